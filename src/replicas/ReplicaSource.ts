/**
 * Where a replica comes from. A replica needs two things from whatever feeds it: an ordered
 * stream of updates with a contiguous `seq` (plus resync signals), and snapshots carrying
 * the `seq` they include. `StreamSync` runs on this interface alone, so the alignment rule,
 * the statuses, the resync policy and the reducers exist once for every source: the
 * exchange (router stream + REST: `ExchangeSource` in src/client/), a message bus, a
 * recording replayed.
 */
import type { Observable } from 'rxjs';
import type { ChannelName, ParamValues, Scope, SnapshotOperationName } from '../protocol';
import type { SnapshotPage } from './SnapshotFetcher';

/** The subscription is active: updates follow. Sent again after every reconnect. */
export interface SourceSubscribed {
  readonly kind: 'subscribed';
  /** The source's id of the subscription (for messages only). */
  readonly subscriptionId: string;
  /** Increases with every (re)subscription of the source (for messages only). */
  readonly generation: number;
}

/** One update. `data` is validated for the channel; treat it as read-only (it may be shared). */
export interface SourceUpdate {
  readonly kind: 'update';
  /** Consecutive updates carry consecutive numbers. */
  readonly seq: bigint;
  /** Server send time, Unix nanoseconds. */
  readonly timestampNs: bigint;
  /** Local receive time, Unix nanoseconds: the `Clock.nowNs()` of the source when the update arrived. */
  readonly receivedAtNs: bigint;
  readonly data: unknown;
  /**
   * What holding the update costs, in bytes: the length of the frame (or message) that
   * carried it. Bounds the updates a replica holds while a snapshot is on its way
   * (`maxBufferedBytes`); an update without it counts as 1 KiB.
   */
  readonly size?: number;
}

/** The source skipped updates (or one was invalid): the replica must be rebuilt from a snapshot. */
export interface SourceResyncRequired {
  readonly kind: 'resync_required';
  readonly reason: string;
}

/** The stream is down; nothing arrives until the next `subscribed`. */
export interface SourceDisconnected {
  readonly kind: 'disconnected';
  readonly reason: string;
}

export type SourceEvent = SourceSubscribed | SourceUpdate | SourceResyncRequired | SourceDisconnected;

/** A consumer of `ReplicaSource.listen`: what an observer of `events` would get, called in place. */
export interface SourceListener {
  next(event: SourceEvent): void;
  error(error: unknown): void;
  complete(): void;
}

/**
 * @example
 * const source: ReplicaSource = {
 *   events: (channel, scope) => router.stream(channel, scope),
 *   snapshot: (operation, params, signal) => rest.call(operation, params, { signal }),
 * };
 */
export interface ReplicaSource {
  /**
   * The stream of one channel and scope. Subscribing to it subscribes at the source,
   * unsubscribing releases it; it may be subscribed to again. It errors with
   * `RequestTimeoutError` when a subscribe got no answer in time (transient: the replica
   * subscribes again after `retryAfterMs`); any other error is final (a refused scope).
   */
  events(channel: ChannelName, scope: Scope): Observable<SourceEvent>;
  /**
   * Optional, the same stream as `events` without an RxJS subscriber chain per event (a
   * replica's hot path): `listener` gets exactly what an observer of `events` would, and the
   * returned function unsubscribes (idempotent). A source without it is read through `events`.
   */
  listen?(channel: ChannelName, scope: Scope, listener: SourceListener): () => void;
  /**
   * One answer of a snapshot operation (a row of the operations table with its parameters):
   * what `Reducer.loadSnapshot` and the generic loaders ask for, page by page. Honours
   * `signal`. Not retried here: the replica retries the whole snapshot with its policy.
   */
  snapshot(operation: SnapshotOperationName, params: ParamValues, signal: AbortSignal): Promise<SnapshotPage>;
}
