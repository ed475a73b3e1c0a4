/** Sizes of a benchmark run: the full run (`npm run bench`, under five minutes) and `--quick`. */
import type { BookBenchConfig } from './book/bookBench';
import type { FanoutBenchConfig } from './fanout/fanoutBench';
import type { LinesBenchConfig } from './lines/linesBench';
import type { ResyncBenchConfig } from './resync/resyncBench';
import type { SimulatorThroughputConfig } from './simulatorThroughput';
import type { SocketBenchConfig } from './socket/socketBench';

export type BookSizes = Pick<BookBenchConfig, 'levels' | 'frames' | 'reps' | 'warmups' | 'seed' | 'memory'>;
export type SocketSizes = Pick<SocketBenchConfig, 'rates' | 'styles' | 'warmupMs' | 'windowMs' | 'latencyWindowMs' | 'reps' | 'levels' | 'seed'>;
export type ResyncSizes = Omit<ResyncBenchConfig, 'log'>;
export type FanoutSizes = Omit<FanoutBenchConfig, 'log'>;
export type LinesSizes = Omit<LinesBenchConfig, 'log'>;

/** Sizes of the bus benchmark (bus/busBench.ts, `--only bus`). */
export interface BusSizes {
  /** Rates (updates/s) of the latency pass: the direct client and one bus consumer side by side. */
  readonly rates: readonly number[];
  readonly reps: number;
  /** Settling time after each rate change, ms. */
  readonly warmupMs: number;
  readonly windowMs: number;
  /** Bus consumer processes of the fan-out pass, in increasing order (the last is checked exact). */
  readonly consumers: readonly number[];
  readonly fanoutRate: number;
  readonly fanoutReps: number;
  readonly fanoutWindowMs: number;
  /** Levels a side of the stream's book. */
  readonly levels: number;
  readonly seed: number;
  /** Levels a side compared with the truth at the end. */
  readonly checkDepth: number;
}

export interface RunSizes {
  readonly book: BookSizes;
  readonly socket: SocketSizes;
  readonly resync: ResyncSizes;
  readonly fanout: FanoutSizes;
  readonly simulator: SimulatorThroughputConfig;
  readonly bus: BusSizes;
  readonly lines: LinesSizes;
}

export const FULL: RunSizes = {
  book: { levels: 500, frames: 20_000, reps: 7, warmups: 2, seed: 0x5eed, memory: { levelsPerSide: 10_000, books: 8, seed: 0x3e3 } },
  socket: { rates: [10_000, 50_000, 100_000], styles: ['batched', 'perFrame'], warmupMs: 400, windowMs: 1000, latencyWindowMs: 1000, reps: 3, levels: 500, seed: 0xfeed },
  resync: { repetitions: 300, warmups: 30, eventsPerSecond: 1000, seed: 1, breakdownReps: 200, breakdownIdleMs: 10 },
  fanout: { subscriptions: 200, eventsPerSecond: 2000, warmupMs: 1000, windowMs: 2000, reps: 5, seed: 1 },
  simulator: { levels: [1, 10], durationMs: 3000 },
  bus: { rates: [1000, 10_000], reps: 3, warmupMs: 1000, windowMs: 2000, consumers: [1, 4, 16], fanoutRate: 1000, fanoutReps: 3, fanoutWindowMs: 2000, levels: 200, seed: 0xb05, checkDepth: 50 },
  lines: { eventsPerSecond: 2000, seed: 1, jitterMs: 20, spikes: { meanEveryMs: 1000, minMs: 20, maxMs: 100 }, warmupMs: 1000, windowMs: 3000, reps: 7, dropEveryMs: 2000, drops: 8, stableAfterMs: 1000, checkDepth: 50 },
};

/** Tiny sizes for the smoke test (the fan-out keeps one subscription of each kind, see fanoutPlan.ts). */
export const QUICK: RunSizes = {
  book: { levels: 100, frames: 1000, reps: 2, warmups: 1, seed: 0x5eed, memory: { levelsPerSide: 1000, books: 2, seed: 0x3e3 } },
  socket: { rates: [2000], styles: ['batched', 'perFrame'], warmupMs: 100, windowMs: 200, latencyWindowMs: 200, reps: 1, levels: 100, seed: 0xfeed },
  resync: { repetitions: 5, warmups: 2, eventsPerSecond: 1000, seed: 1, breakdownReps: 10, breakdownIdleMs: 2 },
  fanout: { subscriptions: 40, eventsPerSecond: 1000, warmupMs: 200, windowMs: 300, reps: 2, seed: 1 },
  simulator: { levels: [1], durationMs: 200 },
  bus: { rates: [1000, 10_000], reps: 1, warmupMs: 300, windowMs: 500, consumers: [1, 2], fanoutRate: 1000, fanoutReps: 1, fanoutWindowMs: 500, levels: 100, seed: 0xb05, checkDepth: 20 },
  lines: { eventsPerSecond: 1000, seed: 1, jitterMs: 20, spikes: { meanEveryMs: 300, minMs: 20, maxMs: 100 }, warmupMs: 100, windowMs: 300, reps: 2, dropEveryMs: 600, drops: 2, stableAfterMs: 250, checkDepth: 20 },
};
