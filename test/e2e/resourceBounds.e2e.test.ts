/**
 * Closing the client (and the simulator) releases every timer, socket and listener: a child
 * process that starts both, holds many replicas, closes both and never calls process.exit
 * must exit by itself within a bound.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const EXIT_BOUND_MS = 40_000;
const CLOSE_TO_EXIT_BOUND_MS = 10_000;

test('a process holding a client and a simulator exits by itself once both are closed', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'closeAllChild.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let closedAt = 0;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (closedAt === 0 && out.includes('closed;')) closedAt = performance.now();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = await new Promise<{ code: number | null; timedOut: boolean }>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ code: null, timedOut: true });
    }, EXIT_BOUND_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut: false });
    });
  });
  const lingerMs = performance.now() - closedAt;
  expect({ ...exit, err: err.trim() }).toEqual({ code: 0, timedOut: false, err: '' });
  expect(out).toMatch(/^closed; still active: /m);
  // Once both are closed, nothing keeps the process alive for long (pooled REST sockets close on their own).
  expect(lingerMs).toBeLessThan(CLOSE_TO_EXIT_BOUND_MS);
});
