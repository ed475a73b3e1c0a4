#!/usr/bin/env node
/**
 * Makes sure a nats-server (2.9 or newer, JetStream built in) is there for the tests of
 * exchange-replica/nats. Run by `npm test` (pretest) and by the tests' helper
 * (test/nats/natsServer.ts), so `npx jest` on a fresh machine works too.
 *
 * - Found (NATS_SERVER_BIN, PATH, /usr/sbin, /usr/local/bin, /usr/bin) and new enough: nothing
 *   to do (fast: one `nats-server --version`).
 * - Missing, and this is root with apt-get: `apt-get install -y nats-server` (after an
 *   `apt-get update` when the package lists do not know it).
 * - Otherwise: one line on stderr saying how to install it, exit code 1 (the tests that need
 *   a nats-server then fail with that line).
 *
 * `--print-path` prints the binary's path on stdout (the only thing printed there).
 * `--pretest` (npm test's pretest): a missing nats-server is a loud warning, exit code 0, so
 * that the run goes on and its tests report it.
 */
import { spawnSync } from 'node:child_process';
import { aptInstall, canAptInstall, candidates, executable, warnMissing } from './systemPackage.mjs';

const MIN = [2, 9, 0];
const HOW = 'install nats-server 2.9 or newer with JetStream: "sudo apt-get install -y nats-server" (Debian/Ubuntu), or put its binary on PATH or in NATS_SERVER_BIN (https://github.com/nats-io/nats-server/releases)';

/** The version of a binary as [major, minor, patch], or undefined when it does not run. */
function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) return undefined;
  const m = /v?(\d+)\.(\d+)\.(\d+)/.exec(`${r.stdout}${r.stderr}`);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function newEnough(v) {
  for (let i = 0; i < 3; i++) if (v[i] !== MIN[i]) return v[i] > MIN[i];
  return true;
}

/** The first usable binary: { bin, version } or { old } when only older ones exist. */
function find() {
  let old;
  for (const bin of candidates(['nats-server'], process.env.NATS_SERVER_BIN, ['/usr/sbin', '/usr/local/bin', '/usr/bin', '/usr/local/sbin'])) {
    if (!executable(bin)) continue;
    const v = versionOf(bin);
    if (v === undefined) continue;
    if (newEnough(v)) return { bin, version: v.join('.') };
    old ??= `${bin} is ${v.join('.')}`;
  }
  return { old };
}

function main() {
  const printPath = process.argv.includes('--print-path');
  let found = find();
  if (found.bin === undefined) {
    if (canAptInstall()) {
      process.stderr.write(`ensure-nats-server: nats-server ${found.old ? `too old (${found.old})` : 'missing'}: apt-get install -y nats-server\n`);
      if (aptInstall('nats-server', 'ensure-nats-server', 300)) found = find();
    }
  }
  if (found.bin === undefined) {
    const line = `nats-server ${found.old ? `is too old (${found.old})` : 'is missing'}: ${HOW}`;
    if (process.argv.includes('--pretest')) {
      warnMissing(line, 'The tests of exchange-replica/nats (test/nats, the bus benchmark) will FAIL.');
      return;
    }
    process.stderr.write(`${line}\n`);
    process.exit(1);
  }
  if (printPath) process.stdout.write(`${found.bin}\n`);
}

main();
