/** Sizes of a benchmark run: the full run (`npm run bench`, a few minutes) and `--quick`. */
import type { BookBenchConfig } from './book/bookBench';
import type { SocketBenchConfig } from './socket/socketBench';

export type BookSizes = Pick<BookBenchConfig, 'levels' | 'frames' | 'reps' | 'warmups' | 'seed' | 'memory'>;
export type SocketSizes = Pick<SocketBenchConfig, 'rates' | 'warmupMs' | 'windowMs' | 'latencyWindowMs' | 'reps' | 'levels' | 'seed'>;

export interface RunSizes {
  readonly book: BookSizes;
  readonly socket: SocketSizes;
}

export const FULL: RunSizes = {
  book: { levels: 500, frames: 20_000, reps: 7, warmups: 2, seed: 0x5eed, memory: { levelsPerSide: 10_000, books: 8, seed: 0x3e3 } },
  socket: { rates: [10_000, 50_000, 100_000], warmupMs: 400, windowMs: 1000, latencyWindowMs: 1000, reps: 3, levels: 500, seed: 0xfeed },
};

export const QUICK: RunSizes = {
  book: { levels: 100, frames: 1000, reps: 2, warmups: 1, seed: 0x5eed, memory: { levelsPerSide: 1000, books: 2, seed: 0x3e3 } },
  socket: { rates: [2000], warmupMs: 150, windowMs: 300, latencyWindowMs: 300, reps: 1, levels: 100, seed: 0xfeed },
};
