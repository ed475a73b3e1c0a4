#!/usr/bin/env node
/**
 * `npm test` (after its pretest, which makes sure nats-server and Chromium are there): the type
 * check, the package build and jest on the whole suite, side by side.
 *
 * - The type check (`npm run typecheck`): its output is printed after jest's.
 * - The package build (`npm run build`), the one build of the run, into a temporary package
 *   root laid out as published (package.json, README.md, LICENSE, bin/, dist/), never into the
 *   repository's dist/ (bin/exchange-replica.js would then run that build instead of src/).
 *   When it ends it writes its outcome (and its output when it failed) to a status file.
 * - jest, with whatever follows `npm test --` (e.g. `npm test -- --ci --json
 *   --outputFile=out.json`, as .ci/run does). EXCHANGE_REPLICA_PACKAGE_ROOT names the package
 *   root and EXCHANGE_REPLICA_PACKAGE_BUILD_STATUS the status file: the package test
 *   (test/package/package.test.ts) waits for that file, then packs and installs that build.
 *   (`npx jest` alone builds in the package test.)
 *
 * Exit code: 0 when all three passed, else jest's code or 1. No step has a time limit here:
 * Jest's own per-test timeout catches a hang.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** Children running now: a signal to this process is passed on to them (then it cleans up and exits). */
const running = new Set();

/** Runs a command; resolves with its exit code and, when `capture`, its output (else inherited). */
function run(command, args, { env = process.env, capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    running.add(child);
    let output = '';
    if (capture) {
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
    }
    child.on('error', (e) => {
      running.delete(child);
      resolve({ code: 1, output: `${output}${e.message}\n` });
    });
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve({ code: code ?? (signal ? 1 : 0), signal, output });
    });
  });
}

const seconds = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

/** Builds the package root, then writes the status file (atomically: the package test waits for it). */
async function buildPackage(packageRoot, statusFile) {
  const t0 = performance.now();
  let r;
  try {
    mkdirSync(packageRoot, { recursive: true });
    for (const f of ['package.json', 'README.md', 'LICENSE']) cpSync(join(root, f), join(packageRoot, f));
    cpSync(join(root, 'bin'), join(packageRoot, 'bin'), { recursive: true });
    r = await run(npm, ['run', 'build', '--silent'], { env: { ...process.env, BUILD_OUT_DIR: join(packageRoot, 'dist') }, capture: true });
  } catch (e) {
    r = { code: 1, output: String(e?.stack ?? e) };
  }
  const status = { ok: r.code === 0, code: r.code, seconds: Math.round((performance.now() - t0) / 100) / 10, output: r.code === 0 ? '' : r.output.slice(-20_000) };
  writeFileSync(`${statusFile}.tmp`, JSON.stringify(status));
  renameSync(`${statusFile}.tmp`, statusFile);
  return { ...r, took: seconds(t0) };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'exchange-replica-test-'));
  const packageRoot = join(work, 'package');
  const statusFile = join(work, 'package-build.json');
  // Ctrl-C reaches every process of the terminal's group; a signal to this process alone is
  // passed on. Either way the children end first, then the temporary folder goes.
  for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => running.forEach((child) => child.kill(s)));
  try {
    const t0 = performance.now();
    const typecheck = run(npm, ['run', 'typecheck', '--silent'], { capture: true }).then((r) => ({ ...r, took: seconds(t0) }));
    const build = buildPackage(packageRoot, statusFile);
    const jestBin = createRequire(join(root, 'package.json')).resolve('jest/bin/jest');
    const jest = await run(process.execPath, [jestBin, ...process.argv.slice(2)], {
      env: { ...process.env, EXCHANGE_REPLICA_PACKAGE_ROOT: packageRoot, EXCHANGE_REPLICA_PACKAGE_BUILD_STATUS: statusFile },
    });
    const [tc, b] = await Promise.all([typecheck, build]);
    if (tc.output.trim() !== '') process.stderr.write(`\n${tc.output.trimEnd()}\n`);
    process.stderr.write(`\nnpm test: type check ${tc.code === 0 ? 'passed' : `FAILED (exit ${tc.code})`} (${tc.took})\n`);
    process.stderr.write(`npm test: package build ${b.code === 0 ? 'passed' : `FAILED (exit ${b.code}; its output is in the package test's failure)`} (${b.took})\n`);
    process.stderr.write(`npm test: jest ${jest.code === 0 ? 'passed' : `FAILED (exit ${jest.code})`} (${seconds(t0)} in all)\n`);
    if (jest.code !== 0) return jest.code;
    return tc.code !== 0 || b.code !== 0 ? 1 : 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
