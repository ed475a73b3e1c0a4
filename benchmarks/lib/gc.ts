/**
 * A handle on the garbage collector for memory measurements, also when the process was not
 * started with --expose-gc (the flag is set at run time and the function fetched from a
 * fresh context).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let cached: (() => void) | undefined;

export function getGc(): () => void {
  if (cached) return cached;
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return (cached = existing);
  setFlagsFromString('--expose-gc');
  cached = runInNewContext('gc') as () => void;
  return cached;
}

/** Bytes held by the heap plus array buffers (typed arrays live there). */
export function heldBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Collects garbage until the held bytes stop shrinking (a few full passes). */
export function settle(): number {
  const gc = getGc();
  let prev = Infinity;
  for (let i = 0; i < 6; i++) {
    gc();
    const now = heldBytes();
    if (now >= prev - 1024) return now;
    prev = now;
  }
  return prev;
}
