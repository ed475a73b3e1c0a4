/**
 * What the scripts that make sure a test dependency is installed (ensure-nats-server.mjs,
 * ensure-chromium.mjs) share: finding an executable, installing a Debian package when this
 * process may (root with apt-get), and saying loudly what is missing.
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

/** CI is set (to anything but "" / "0" / "false"), as CI services and .ci/run set it. */
export function inCi(env = process.env) {
  const ci = (env.CI ?? '').trim().toLowerCase();
  return ci !== '' && ci !== '0' && ci !== 'false';
}

/**
 * A dependency that cannot be had, as `npm test`'s pretest says it: a banner on stderr with
 * the line that says how to install it and what the run does without it. The run goes on: the
 * tests that need the dependency say it again when they fail (or skip).
 */
export function warnMissing(line, consequence) {
  const rule = '='.repeat(78);
  process.stderr.write(`${rule}\nWARNING: ${line}\n${consequence}\n${rule}\n`);
}
