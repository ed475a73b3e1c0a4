/**
 * What the package tests share: running a command to its end, and the package root to pack.
 * Under `npm test`, scripts/test.mjs builds the package once, beside jest, into the root named
 * in EXCHANGE_REPLICA_PACKAGE_ROOT, and writes the build's outcome to the file named in
 * EXCHANGE_REPLICA_PACKAGE_BUILD_STATUS: every test that packs it waits for that file (the
 * build may still run when jest reaches the test, as on a loaded machine). Run alone
 * (`npx jest test/package`), a test builds into its own work folder.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROCESS_HANG_MS } from '../helpers/deadlines';

export const root = join(__dirname, '..', '..');

export interface Outcome {
  code: number | string | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (never rejects): exit code and output, for assertions that show both. Killed only when it hangs. */
export function run(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: PROCESS_HANG_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : error.killed ? `killed: still running after ${PROCESS_HANG_MS} ms (hung?)` : (error.code ?? null);
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Runs a command that must succeed; throws with its output otherwise. */
export async function mustRun(file: string, args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const r = await run(file, args, cwd, env);
  if (r.code !== 0) throw new Error(`${file} ${args.join(' ')} exited with ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Waits for the run's package build to end (its status file appears), and throws with its output when it failed. */
async function runBuildDone(statusFile: string): Promise<void> {
  const deadline = Date.now() + PROCESS_HANG_MS;
  while (!existsSync(statusFile)) {
    if (Date.now() > deadline) throw new Error(`the package build of npm test (scripts/test.mjs) still ran after ${PROCESS_HANG_MS} ms: hung? (no ${statusFile})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const status = JSON.parse(readFileSync(statusFile, 'utf8')) as { ok: boolean; code: number | null; output: string };
  if (!status.ok) throw new Error(`the package build of npm test failed (exit ${status.code}):\n${status.output}`);
}

/** The package root to pack: the run's build (EXCHANGE_REPLICA_PACKAGE_ROOT, once it is done), else one built here in `work`. */
export async function packageRoot(work: string): Promise<string> {
  const given = process.env.EXCHANGE_REPLICA_PACKAGE_ROOT;
  if (given) {
    const statusFile = process.env.EXCHANGE_REPLICA_PACKAGE_BUILD_STATUS;
    if (statusFile) await runBuildDone(statusFile);
    if (!existsSync(join(given, 'dist', 'index.js'))) throw new Error(`EXCHANGE_REPLICA_PACKAGE_ROOT=${given} holds no build (dist/index.js)`);
    return given;
  }
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const f of ['package.json', 'README.md', 'LICENSE']) cpSync(join(root, f), join(stage, f));
  cpSync(join(root, 'bin'), join(stage, 'bin'), { recursive: true });
  await mustRun('npm', ['run', 'build', '--silent'], root, { ...process.env, BUILD_OUT_DIR: join(stage, 'dist') });
  return stage;
}
