/**
 * Runs `benchmarks/run.ts --quick` (with more arguments) in a child process with the tsx
 * loader, as `npm run bench` does, for the smoke tests of the benchmark. No time limit decides
 * anything: the child is stopped only when it still runs after PROCESS_HANG_MS (a hang), with
 * SIGTERM first so that the benchmark's own cleanup ends the processes it started (simulator,
 * nats-server, relay, consumers).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROCESS_HANG_MS } from '../helpers/deadlines';

const ROOT = resolve(__dirname, '../..');
const TSX_LOADER = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;

export function runQuickBench(args: readonly string[], outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'benchmarks/run.ts'), '--quick', ...args, '--out', outDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const hang = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      reject(new Error(`the quick benchmark (${args.join(' ') || 'every part'}) still ran after ${PROCESS_HANG_MS} ms: hung?\n${output}`));
    }, PROCESS_HANG_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(hang);
      resolvePromise({ code, output });
    });
  });
}
