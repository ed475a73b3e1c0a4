/** Bytes per price level of a book holding many levels a side, each book measured in its own process. */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ProbeBook } from './memoryProbe';

export interface MemorySpec {
  readonly levelsPerSide: number;
  /** Books built at once, to average out allocation noise. */
  readonly books: number;
  readonly seed: number;
}

const PROBE = fileURLToPath(new URL('./memoryProbe.ts', import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const PROBE_TIMEOUT_MS = 60_000;

/**
 * Heap + array-buffer bytes added by creating and loading `books` books of `levelsPerSide`
 * levels a side, per level, measured in a fresh child process (see memoryProbe.ts): in a
 * process that has been benchmarking, garbage of earlier work and buffers freed
 * concurrently make the readings drift.
 */
export function bytesPerLevel(book: ProbeBook, spec: MemorySpec): Promise<{ name: string; bytesPerLevel: number }> {
  const args = ['--expose-gc', '--single-threaded-gc', '--import', TSX_LOADER, PROBE, book, String(spec.levelsPerSide), String(spec.books), String(spec.seed)];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: PROBE_TIMEOUT_MS }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`memory probe of ${book} failed: ${err.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()!) as { name: string; bytesPerLevel: number });
      } catch (e) {
        reject(new Error(`memory probe of ${book} printed no result: ${stdout}\n${stderr}`, { cause: e }));
      }
    });
  });
}
