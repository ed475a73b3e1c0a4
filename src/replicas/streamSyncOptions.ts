/** Configuration and options of a StreamSync, their defaults (applied here, once) and the resync triggers it counts. */
import type { Observable } from 'rxjs';
import { InvalidParameterError } from '../errors';
import type { ChannelName, Scope } from '../protocol';
import type { RouterEvent } from '../router/RouterEvent';
import { monotonicMs, wallClockNs } from './clock';
import type { Reducer } from './Reducer';
import type { ResyncScheduler } from './resyncScheduler';
import type { SnapshotFetcher } from './SnapshotFetcher';

/** What a StreamSync runs on. */
export interface StreamSyncConfig<S> {
  readonly channel: ChannelName;
  readonly scope: Scope;
  readonly reducer: Reducer<S>;
  /** The router's stream of this channel and scope. */
  readonly events: Observable<RouterEvent>;
  readonly fetch: SnapshotFetcher;
  readonly scheduler: ResyncScheduler;
}

/** What started a resync. */
export const RESYNC_TRIGGERS = ['resync_required', 'seq_jump', 'disconnected', 'integrity', 'liveness', 'resubscribed', 'manual'] as const;
export type ResyncTrigger = (typeof RESYNC_TRIGGERS)[number];

/** A zeroed count per trigger. */
export function emptyResyncCounts(): Record<ResyncTrigger, number> {
  return Object.fromEntries(RESYNC_TRIGGERS.map((t) => [t, 0])) as Record<ResyncTrigger, number>;
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
  /** Delay (ms) before asking again for a snapshot when the scheduler gave up on one. @default 5000 */
  readonly retryAfterMs?: number;
  /** Called for every update with its latency `receivedAtNs - timestampNs`. */
  readonly onLatency?: (streamKey: string, latencyNs: bigint) => void;
  /** Told about failures the replica survives (snapshot loads, reducer errors, hooks that threw). */
  readonly onError?: (error: unknown) => void;
  /** Local wall clock (ns) stamped on snapshots. @default wallClockNs */
  readonly nowNs?: () => bigint;
  /** Millisecond clock of the liveness window. @default Date.now */
  readonly nowMs?: () => number;
}

export interface ResolvedStreamSyncOptions {
  readonly livenessMs: number;
  readonly maxBufferedUpdates: number;
  readonly retryAfterMs: number;
  readonly onLatency?: (streamKey: string, latencyNs: bigint) => void;
  readonly onError?: (error: unknown) => void;
  readonly nowNs: () => bigint;
  readonly nowMs: () => number;
}

/**
 * Applies the defaults of a channel and checks the values.
 * @throws InvalidParameterError naming the option at fault.
 */
export function resolveStreamSyncOptions(channel: ChannelName, options: StreamSyncOptions = {}): ResolvedStreamSyncOptions {
  const maxBufferedUpdates = options.maxBufferedUpdates ?? 10_000;
  if (!Number.isInteger(maxBufferedUpdates) || maxBufferedUpdates < 1) {
    throw new InvalidParameterError(`invalid option 'maxBufferedUpdates': expected an integer >= 1, got ${String(maxBufferedUpdates)}`, { param: 'maxBufferedUpdates' });
  }
  return {
    livenessMs: nonNegative('livenessMs', options.livenessMs ?? DEFAULT_LIVENESS_MS[channel] ?? 0),
    maxBufferedUpdates,
    retryAfterMs: nonNegative('retryAfterMs', options.retryAfterMs ?? 5000),
    onLatency: options.onLatency,
    onError: options.onError,
    nowNs: options.nowNs ?? wallClockNs,
    nowMs: options.nowMs ?? monotonicMs,
  };
}

function nonNegative(name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new InvalidParameterError(`invalid option '${name}': expected a finite number >= 0, got ${String(v)}`, { param: name });
  return v;
}
