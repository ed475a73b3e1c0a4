/** The IPC messages between the bus benchmark and its processes: the feed, the relay, the consumers. */
import type { StreamSpec, TopLevels } from '../book/deltaStream';

// ---- the feed (feed.ts) -------------------------------------------------------

export interface FeedArgs {
  /** Wall-clock ns minus hrtime ns (decimal), shared by every process (wallClock.ts). */
  readonly anchorNs: string;
  readonly stream: StreamSpec;
}

export type FeedCommand =
  /** Send the stream on from where it is, at `rate` updates/s (a running feed changes rate). */
  | { readonly cmd: 'start'; readonly rate: number }
  /** Pause: nothing more is sent until the next `start`. */
  | { readonly cmd: 'stop' }
  /** Updates sent so far. */
  | { readonly cmd: 'count' }
  | { readonly cmd: 'exit' };

export type FeedReply =
  | { readonly type: 'ready'; readonly port: number }
  | { readonly type: 'started' }
  /** `exhausted`: the stream ran out (the run needed more frames than were made). */
  | { readonly type: 'count'; readonly sent: number; readonly clients: number; readonly exhausted: boolean; readonly maxBufferedBytes: number }
  | { readonly type: 'error'; readonly message: string };

// ---- the relay (relayProcess.ts) ----------------------------------------------

export interface RelayArgs {
  readonly restUrl: string;
  readonly wsUrl: string;
  readonly natsUrl: string;
  readonly prefix: string;
  /** The shared wall clock's anchor (only for the slow-update log, see relayProcess.ts). */
  readonly anchorNs: string;
  /** Where JetStream keeps the updates stream and the bucket (`BUS_BENCH_STORAGE`). */
  readonly storage: 'file' | 'memory';
}

/**
 * Where an update was when, in one process (stageTrace.ts): parallel arrays, one entry per
 * update (`seqs[i]`), times in µs of the machine's monotonic clock (every process shares it);
 * `sentUs`: the feed's send stamp of that update, where the process reads it.
 */
export interface StageTrace {
  readonly seqs: readonly number[];
  readonly atUs: readonly number[];
  readonly sentUs?: readonly number[];
}

/** `window`/`trace`: from now, the relay notes when it hands each update to NATS (its publish call); `trace` ends it. */
export type RelayCommand = { readonly cmd: 'describe' } | { readonly cmd: 'window' } | { readonly cmd: 'trace' } | { readonly cmd: 'exit' };

export type RelayReply =
  | { readonly type: 'ready' }
  | { readonly type: 'started' }
  | { readonly type: 'trace'; readonly trace: StageTrace }
  | { readonly type: 'describe'; readonly status: string; readonly publishedSeq: string | null; readonly published: number; readonly messages: number; readonly syncs: number; readonly errors: readonly string[] }
  | { readonly type: 'error'; readonly message: string };

// ---- a consumer (consumer.ts) -------------------------------------------------

/**
 * `direct`: an ExchangeClient on the feed; `bus`: a BusClient on NATS; `bare`: the cheapest
 * consumer of the bus, the floor of a bus consumer's CPU: a plain nats.js core subscription
 * on the stream's subject decoding each update of each message with the feed's fast decoder
 * (no JetStream consumer, no replica).
 */
export type ConsumerMode = 'direct' | 'bus' | 'bare';

export interface ConsumerArgs {
  readonly mode: ConsumerMode;
  readonly anchorNs: string;
  readonly restUrl: string;
  readonly wsUrl: string;
  readonly natsUrl: string;
  readonly prefix: string;
}

export type ConsumerCommand =
  /** Start a measuring window: CPU, update count and latency histogram from now. */
  | { readonly cmd: 'window' }
  /** End the window and report it. */
  | { readonly cmd: 'report' }
  /** The replica's seq and best `depth` levels a side. */
  | { readonly cmd: 'state'; readonly depth: number }
  | { readonly cmd: 'exit' };

/** One window of a consumer: its own CPU (process.cpuUsage) and the latency of each update, exchange send to emission. */
export interface ConsumerWindow {
  readonly type: 'window';
  readonly cpuUs: number;
  readonly wallUs: number;
  readonly updates: number;
  /** The replica's seq at the window's end. */
  readonly seq: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly p999Us: number;
  readonly maxUs: number;
  /** `bare` only: bus messages received in the window, and their payload bytes. */
  readonly messages?: number;
  readonly bytes?: number;
  /** When each update of the window was emitted (`bare`: decoded), with its send stamp. */
  readonly trace: StageTrace;
}

export type ConsumerReply =
  | { readonly type: 'ready' }
  | { readonly type: 'started' }
  | ConsumerWindow
  | { readonly type: 'state'; readonly seq: number; readonly status: string; readonly top: TopLevels; readonly resyncs: number; readonly resyncCodes: readonly string[]; readonly errors: readonly string[] }
  | { readonly type: 'error'; readonly message: string };
