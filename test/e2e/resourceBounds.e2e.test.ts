/**
 * Closing the client (and the simulator) releases every timer, socket and listener: a child
 * process that starts both, holds many replicas, closes both and never calls process.exit
 * has, once its sockets ended, no timer left that keeps it alive, and exits by itself (the
 * bound only catches a hang).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { WAIT_MS } from '../helpers/deadlines';

const ROOT = join(__dirname, '..', '..');
const EXIT_BOUND_MS = 2 * WAIT_MS;

test('a process holding a client and a simulator exits by itself once both are closed', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'closeAllChild.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
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
  expect({ ...exit, err: err.trim() }).toEqual({ code: 0, timedOut: false, err: '' });
  expect(out).toMatch(/^closed; still active: /m);
  // Once the sockets ended, nothing of the client's or the simulator's is left: no socket, no ref'd timer.
  const left = JSON.parse(/^sockets gone; still active: (.*)$/m.exec(out)?.[1] ?? 'null') as string[] | null;
  expect(left?.filter((r) => r.startsWith('TCP') || r === 'Timeout')).toEqual([]);
});
