#!/usr/bin/env node
/**
 * Makes sure a Chromium is there for the browser tests (driven by playwright-core). Run by
 * `npm test` (pretest) and by the tests' helper (test/browser/chromium.ts), so `npx jest` on a
 * fresh machine works too. The same rules as scripts/ensure-nats-server.mjs:
 *
 * - Found (CHROMIUM_BIN, then chromium / chromium-browser / google-chrome on PATH or in
 *   /usr/bin, /usr/local/bin, /snap/bin) and it runs: nothing to do.
 * - Missing, and this is root with apt-get: `apt-get install -y chromium` (after an
 *   `apt-get update` when the package lists do not know it).
 * - Otherwise: one line on stderr saying how to install it, exit code 1 (the browser tests
 *   then skip with that line; everything else still runs).
 *
 * `--print-path` prints the binary's path on stdout (the only thing printed there).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const HOW = 'install Chromium for the browser tests: "sudo apt-get install -y chromium" (Debian/Ubuntu), or point CHROMIUM_BIN at a Chromium or Chrome binary';

function executable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function candidates() {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin', '/snap/bin'];
  const out = [];
  if (process.env.CHROMIUM_BIN) out.push(process.env.CHROMIUM_BIN);
  for (const name of NAMES) for (const d of dirs) out.push(join(d, name));
  return [...new Set(out)];
}

/** The first binary that answers `--version`. */
function find() {
  for (const bin of candidates()) {
    if (!executable(bin)) continue;
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0 && /\d+\.\d+/.test(`${r.stdout}`)) return bin;
  }
  return undefined;
}

function aptInstall() {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Two test workers may get here at once: the second waits for the first's dpkg lock.
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  const install = () => spawnSync('apt-get', [...lock, 'install', '-y', '--no-install-recommends', 'chromium'], { stdio: ['ignore', 2, 2], env });
  if (install().status === 0) return true;
  process.stderr.write('ensure-chromium: apt-get install failed, updating the package lists and trying again\n');
  spawnSync('apt-get', [...lock, 'update'], { stdio: ['ignore', 2, 2], env });
  return install().status === 0;
}

function main() {
  let bin = find();
  if (bin === undefined) {
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const aptGet = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
    if (isRoot && aptGet) {
      process.stderr.write('ensure-chromium: chromium missing: apt-get install -y chromium\n');
      if (aptInstall()) bin = find();
    }
  }
  if (bin === undefined) {
    process.stderr.write(`chromium is missing: ${HOW}\n`);
    process.exit(1);
  }
  if (process.argv.includes('--print-path')) process.stdout.write(`${bin}\n`);
}

main();
