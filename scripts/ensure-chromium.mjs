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
 *   then fail with that line when CI is set, else skip after a warning; everything else
 *   still runs).
 *
 * `--print-path` prints the binary's path on stdout (the only thing printed there).
 * `--pretest` (npm test's pretest): a missing Chromium is a loud warning, exit code 0, so that
 * the run goes on and its browser tests report it.
 */
import { spawnSync } from 'node:child_process';
import { aptInstall, canAptInstall, candidates, executable, inCi, warnMissing } from './systemPackage.mjs';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const HOW = 'install Chromium for the browser tests: "sudo apt-get install -y chromium" (Debian/Ubuntu), or point CHROMIUM_BIN at a Chromium or Chrome binary';

/** The first binary that answers `--version`. */
function find() {
  for (const bin of candidates(NAMES, process.env.CHROMIUM_BIN, ['/usr/bin', '/usr/local/bin', '/snap/bin'])) {
    if (!executable(bin)) continue;
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
    if (r.status === 0 && /\d+\.\d+/.test(`${r.stdout}`)) return bin;
  }
  return undefined;
}

function main() {
  let bin = find();
  if (bin === undefined) {
    if (canAptInstall()) {
      process.stderr.write('ensure-chromium: chromium missing: apt-get install -y chromium\n');
      if (aptInstall('chromium', 'ensure-chromium', 600)) bin = find();
    }
  }
  if (bin === undefined) {
    const line = `chromium is missing: ${HOW}`;
    if (process.argv.includes('--pretest')) {
      warnMissing(line, inCi() ? 'CI is set: the browser tests will FAIL.' : 'The browser tests will be skipped (with CI set they fail).');
      return;
    }
    process.stderr.write(`${line}\n`);
    process.exit(1);
  }
  if (process.argv.includes('--print-path')) process.stdout.write(`${bin}\n`);
}

main();
