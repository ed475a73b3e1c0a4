/**
 * The IPC messages between the lines benchmark (linesBench.ts) and its processes: the
 * simulator (linesSim.ts) and the clients (linesClient.ts, one process per client). Times
 * that cross processes are CLOCK_MONOTONIC (`process.hrtime`, shared by every process of the
 * machine) in ns since `baseHrNs`, a reading the benchmark takes once and hands to all.
 */
import type { SimulatorOptions } from '../../src/simulator';

/** A book stream the clients replicate. */
export interface BookStream {
  readonly key: string;
  readonly market_type: 'perp' | 'spot';
  readonly market_id: number;
}

/** Random stalls of each connection, on top of the jitter: each connection its own seeded Poisson schedule. */
export interface SpikeSpec {
  /** Mean time between the starts of two stalls of one connection, ms. */
  readonly meanEveryMs: number;
  /** A stall lasts a uniform draw in [minMs, maxMs). */
  readonly minMs: number;
  readonly maxMs: number;
  readonly seed: number;
}

// ---- the simulator (linesSim.ts) ------------------------------------------------

export interface SimArgs {
  readonly options: SimulatorOptions;
  /** hrtime ns (decimal) the event times are counted from. */
  readonly baseHrNs: string;
}

export type SimCommand =
  /** Markets and their book stream keys. */
  | { readonly cmd: 'streams' }
  /** `faults.delayFrames(ms, { jitterMs })`: every connection, each its own seeded draws. */
  | { readonly cmd: 'jitter'; readonly ms: number; readonly jitterMs: number }
  /** Start (spec) or stop (null) random stalls of every connection. */
  | { readonly cmd: 'spikes'; readonly spec: SpikeSpec | null }
  /** Open connections: ids and the stream keys each one is subscribed to. */
  | { readonly cmd: 'connections' }
  | { readonly cmd: 'drop'; readonly id: number }
  /** Event times (hrtime ns since base; NaN when not seen) of stream `key`, seqs from..to inclusive. */
  | { readonly cmd: 'events'; readonly key: string; readonly from: number; readonly to: number }
  | { readonly cmd: 'pause' }
  /** The truth's book of a market (depth levels a side) and its seq. */
  | { readonly cmd: 'truthBook'; readonly market_type: 'perp' | 'spot'; readonly market_id: number; readonly depth: number }
  | { readonly cmd: 'stats' }
  | { readonly cmd: 'exit' };

export type SimReply =
  | { readonly type: 'ready'; readonly restUrl: string; readonly wsUrl: string }
  /** Every market's book and the updates published on it so far. */
  | { readonly type: 'streams'; readonly streams: (BookStream & { readonly published: number })[]; readonly sinceStartMs: number }
  | { readonly type: 'ok' }
  | { readonly type: 'connections'; readonly connections: { readonly id: number; readonly keys: string[] }[] }
  | { readonly type: 'dropped'; readonly done: boolean }
  | { readonly type: 'events'; readonly times: number[] }
  | { readonly type: 'truthBook'; readonly seq: string; readonly bids: [string, string][]; readonly asks: [string, string][] }
  | { readonly type: 'stats'; readonly cpuUs: number; readonly overflowDrops: number; readonly stalls: number; readonly faults: Record<string, number> }
  | { readonly type: 'error'; readonly message: string };

// ---- a client (linesClient.ts) --------------------------------------------------

export interface ClientArgs {
  /** 1: the plain client; 2: A/B lines. */
  readonly lines: number;
  /** Wall-clock ns minus hrtime ns (decimal, wallClock.ts): the client's clock reads anchor + hrtime, so `receivedAtNs` is on the shared clock. */
  readonly anchorNs: string;
  readonly baseHrNs: string;
  /** `connection.reconnect.stableAfterMs` (both clients alike). */
  readonly stableAfterMs: number;
}

/** What a client saw of snapshots, resyncs and its lines. */
export interface ClientCounts {
  /** Snapshots applied, summed over the books (snapshot id changes, the first of each book included). */
  readonly snapshots: number;
  /** Book snapshot requests sent (`/v1/orderBook`), the first of each book included. */
  readonly fetches: number;
  readonly resyncs: Record<string, number>;
  /** Emissions of a book that was not `live`, after it had first been live. */
  readonly notLive: number;
  /** Per line: state, updates won and late, holes filled; resyncs avoided, holes unfilled (zeros for one line). */
  readonly lineStats: { readonly lines: { readonly state: string; readonly won: number; readonly late: number; readonly gapsFilled: number }[]; readonly resyncsAvoided: number; readonly gapsUnfilled: number };
  readonly errors: string[];
}

export type ClientCommand =
  /** Open the client and subscribe every book; answered `live` once every book is live. */
  | { readonly cmd: 'connect'; readonly restUrl: string; readonly wsUrl: string; readonly streams: BookStream[] }
  /** Start a window: CPU baseline taken, each update's emission recorded. */
  | { readonly cmd: 'start' }
  /** End the window: its CPU, updates and samples. */
  | { readonly cmd: 'stop' }
  | { readonly cmd: 'counts' }
  /** Every book: status, seq and its best `depth` levels a side. */
  | { readonly cmd: 'books'; readonly depth: number }
  | { readonly cmd: 'exit' };

export interface WindowSamples {
  /** Index of the stream (in the `connect` command's `streams`) of each update. */
  readonly stream: number[];
  readonly seq: number[];
  /** When the update's state was emitted (hrtime ns since base). */
  readonly emitNs: number[];
  /** `receivedAtNs` of the update: its frame's receipt by the line that brought it first (hrtime ns since base). */
  readonly recvNs: number[];
}

export type ClientReply =
  /** Loaded, not connected yet. */
  | { readonly type: 'ready' }
  | { readonly type: 'live' }
  | { readonly type: 'started' }
  | { readonly type: 'window'; readonly cpuUs: number; readonly wallUs: number; readonly updates: number; readonly samples: WindowSamples }
  | { readonly type: 'counts'; readonly counts: ClientCounts }
  | { readonly type: 'books'; readonly books: { readonly status: string; readonly seq: string; readonly bids: [string, string][]; readonly asks: [string, string][] }[] }
  | { readonly type: 'error'; readonly message: string };
