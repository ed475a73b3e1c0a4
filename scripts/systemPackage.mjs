/**
 * What the scripts that make sure a test dependency is installed (ensure-nats-server.mjs,
 * ensure-chromium.mjs) share: finding an executable, and installing a Debian package when
 * this process may (root with apt-get).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `names` may be: `envBin` (an explicit path) first, then PATH, then `extraDirs`; no repeats. */
export function candidates(names, envBin, extraDirs) {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...extraDirs];
  const out = [];
  if (envBin) out.push(envBin);
  for (const name of names) for (const d of dirs) out.push(join(d, name));
  return [...new Set(out)];
}

/** Root with apt-get: the package may be installed here. */
export function canAptInstall() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return isRoot && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * `apt-get install -y <pkg>` (after an `apt-get update` when the package lists do not know it);
 * output on stderr. Two test workers may get here at once: the second waits for the first's
 * dpkg lock (up to `lockTimeoutS`).
 */
export function aptInstall(pkg, logPrefix, lockTimeoutS) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const lock = ['-o', `DPkg::Lock::Timeout=${lockTimeoutS}`];
  const install = () => spawnSync('apt-get', [...lock, 'install', '-y', '--no-install-recommends', pkg], { stdio: ['ignore', 2, 2], env });
  if (install().status === 0) return true;
  process.stderr.write(`${logPrefix}: apt-get install failed, updating the package lists and trying again\n`);
  spawnSync('apt-get', [...lock, 'update'], { stdio: ['ignore', 2, 2], env });
  return install().status === 0;
}
