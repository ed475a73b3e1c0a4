/** Configuration and options of a StreamSync, their defaults (applied here, once) and the resync triggers it counts. */
import { systemClock, type Clock } from '../clock';
import { InvalidParameterError } from '../errors';
import { positiveInteger } from '../util/positiveInteger';
import { recordOf } from '../util/recordOf';
import type { ChannelName, Scope } from '../protocol';
import type { AppliedHook } from './AppliedChange';
import type { Reducer } from './Reducer';
import type { ReplicaSource } from './ReplicaSource';
import type { ResyncScheduler } from './ResyncScheduler';
import type { ReplicaTransitionCode } from './statusCodes';

/** What a StreamSync runs on. */
export interface StreamSyncConfig<S> {
  readonly channel: ChannelName;
  readonly scope: Scope;
  readonly reducer: Reducer<S>;
  /** Where the stream and the snapshots come from (the exchange, a bus, a recording). */
  readonly source: ReplicaSource;
  /**
   * Shared by every replica of a client: the bound on snapshot fetches in flight and their
   * retry policy. @default a scheduler of this replica alone, with the default options
   */
  readonly scheduler?: ResyncScheduler;
  /**
   * Internal (the NATS relay; not exported from the package): told, after each emission,
   * what it applied (see AppliedChange). @default none (no cost)
   */
  readonly onApplied?: AppliedHook<S>;
  /**
   * Told the server and receive times of every update the replica receives, before anything
   * else is done with it (the client's latency metrics). Must not throw. @default none (no cost)
   */
  readonly timer?: UpdateTimer;
}

/** Where a replica records the times of each update it receives (see `StreamSyncConfig.timer`). */
export interface UpdateTimer {
  /** One update: its server send time and local receive time, in ns. Must not throw. */
  record(timestampNs: bigint, receivedAtNs: bigint): void;
}

/** What started a resync (each is also a transition code of the same name). */
export const RESYNC_TRIGGERS = ['resync_required', 'seq_jump', 'seq_regression', 'snapshot_ahead', 'disconnected', 'integrity', 'liveness', 'resubscribed', 'manual'] as const satisfies readonly ReplicaTransitionCode[];
export type ResyncTrigger = (typeof RESYNC_TRIGGERS)[number];

/** A zeroed count per trigger. */
export function emptyResyncCounts(): Record<ResyncTrigger, number> {
  return recordOf(RESYNC_TRIGGERS, () => 0);
}

/**
 * Default liveness window per channel, in ms. Only `book` has one: a market's book moves
 * all the time, while the other channels may be quiet for long.
 */
export const DEFAULT_LIVENESS_MS: Readonly<Partial<Record<ChannelName, number>>> = { book: 30_000 };

export interface StreamSyncOptions {
  /** Resync when no update arrives for this long (ms) while subscribed; 0 disables. @default DEFAULT_LIVENESS_MS[channel] ?? 0 */
  readonly livenessMs?: number;
  /** Most updates buffered while a snapshot is on its way (oldest dropped beyond). @default 10000 */
  readonly maxBufferedUpdates?: number;
  /**
   * Most bytes of updates buffered while a snapshot is on its way (each update counted at the
   * length of the frame that carried it); beyond, the oldest are dropped and
   * `ERR_BUFFER_OVERFLOW` is reported once per snapshot request: the alignment check then
   * asks for a snapshot that reaches the oldest update kept.
   * @default 67108864 (64 MiB)
   */
  readonly maxBufferedBytes?: number;
  /**
   * Delay (ms) before asking again for a snapshot when a request failed past its retries
   * (`resync.retry`), before subscribing again after a subscribe that timed out, and the
   * longest backoff before refetching a snapshot that stayed ahead of the stream.
   * @default 5000
   */
  readonly retryAfterMs?: number;
  /**
   * Longest wait (ms) honoured from a snapshot answer's `Retry-After` (429, 503) before asking
   * again; a longer one is cut to this. @default 60000
   */
  readonly maxRetryAfterMs?: number;
  /**
   * Snapshot requests of this stream allowed back to back; beyond, one per `resyncRefillMs`
   * (a token bucket), so a server that asks for resyncs without end cannot flood REST.
   * @default 5
   */
  readonly resyncBurst?: number;
  /** Time (ms) to earn back one snapshot request of the `resyncBurst` budget; 0 disables the limit. @default 1000 */
  readonly resyncRefillMs?: number;
  /**
   * How long (ms) a snapshot may stay ahead of the stream (its sequence above every update
   * received) before it is reported (`ERR_SNAPSHOT_AHEAD`) and fetched again. The replica is
   * not `live` while it waits for the stream to catch up.
   * @default 5000
   */
  readonly snapshotAheadMs?: number;
  /** Called for every update with its latency `receivedAtNs - timestampNs`. */
  readonly onLatency?: (streamKey: string, latencyNs: bigint) => void;
  /** Told about failures the replica survives (snapshot loads, reducer errors, hooks that threw). */
  readonly onError?: (error: unknown) => void;
  /**
   * Every time read and timer set: `nowNs()` stamps `receivedAtNs` on a snapshot when it
   * arrives (updates carry the source's stamp, taken the same way), `nowMs()` and
   * `setTimer` run the liveness window, the resync budget, backoffs and retries.
   * @default systemClock
   */
  readonly clock?: Clock;
  /** Source of the snapshot retry jitter, uniform in [0, 1). @default Math.random */
  readonly random?: () => number;
}

export interface ResolvedStreamSyncOptions {
  readonly livenessMs: number;
  readonly maxBufferedUpdates: number;
  readonly maxBufferedBytes: number;
  readonly retryAfterMs: number;
  readonly maxRetryAfterMs: number;
  readonly resyncBurst: number;
  readonly resyncRefillMs: number;
  readonly snapshotAheadMs: number;
  readonly onLatency?: (streamKey: string, latencyNs: bigint) => void;
  readonly onError?: (error: unknown) => void;
  readonly clock: Clock;
  readonly random: () => number;
}

/**
 * Applies the defaults of a channel and checks the values.
 * @throws InvalidParameterError naming the option at fault.
 */
export function resolveStreamSyncOptions(channel: ChannelName, options: StreamSyncOptions = {}): ResolvedStreamSyncOptions {
  return {
    livenessMs: nonNegative('livenessMs', options.livenessMs ?? DEFAULT_LIVENESS_MS[channel] ?? 0),
    maxBufferedUpdates: positiveInteger(options.maxBufferedUpdates ?? 10_000, 'maxBufferedUpdates'),
    maxBufferedBytes: positiveInteger(options.maxBufferedBytes ?? 64 * 1024 * 1024, 'maxBufferedBytes'),
    retryAfterMs: nonNegative('retryAfterMs', options.retryAfterMs ?? 5000),
    maxRetryAfterMs: nonNegative('maxRetryAfterMs', options.maxRetryAfterMs ?? 60_000),
    resyncBurst: positiveInteger(options.resyncBurst ?? 5, 'resyncBurst'),
    resyncRefillMs: nonNegative('resyncRefillMs', options.resyncRefillMs ?? 1000),
    snapshotAheadMs: nonNegative('snapshotAheadMs', options.snapshotAheadMs ?? 5000),
    onLatency: options.onLatency,
    onError: options.onError,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
  };
}

function nonNegative(name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new InvalidParameterError(`invalid option '${name}': expected a finite number >= 0, got ${String(v)}`, { param: name });
  return v;
}
