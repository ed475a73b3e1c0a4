/**
 * Where a replica comes from. A replica needs two things from whatever feeds it: an ordered
 * stream of updates with a contiguous `seq` (plus resync signals), and snapshots carrying
 * the `seq` they include. `StreamSync` runs on this interface alone, so the alignment rule,
 * the statuses, the resync policy and the reducers exist once for every source: the
 * exchange (router stream + REST: `ExchangeSource` in src/client/), a message bus, a
 * recording replayed.
 */
import type { ChannelName, Scope } from '../protocol';
import type { LoadedSnapshot } from './SnapshotFetcher';

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

/**
 * What a source tells one subscriber: the events of a stream (`next`), its end with an error
 * (`error`: `RequestTimeoutError` when a subscribe got no answer in time, which is transient;
 * anything else is final, a refused scope), or its end (`complete`). The one listener shape
 * of every source.
 */
export interface SourceSink {
  next(event: SourceEvent): void;
  error(error: unknown): void;
  complete(): void;
}

/** @deprecated the same as {@link SourceSink} (its old name). */
export type SourceListener = SourceSink;

/** How far back an event stream's snapshot must reach (see {@link SnapshotQuery.since}). */
export interface HistorySince {
  /** The last record `sequence` delivered; undefined when none was yet (then every record is new). */
  readonly watermark: bigint | undefined;
  /** Pages of history read at most (a source that pages); where they do not reach, the replica marks a gap. */
  readonly maxPages?: number;
}

/** What a replica asks its source for: the whole snapshot of one stream. */
export interface SnapshotQuery {
  readonly channel: ChannelName;
  readonly scope: Scope;
  /**
   * Event channels, on a resync: the history is wanted back to this record `sequence` (the
   * last one the replica delivered; undefined when none was yet). Absent: the newest page
   * (a first sync). State channels ignore it.
   */
  readonly since?: HistorySince;
  /**
   * The `subscriptionId` of the `subscribed` event the replica is syncing for: a source that
   * serves several readers of one stream (the bus) answers that reader alone. @default none
   */
  readonly subscriptionId?: string;
  /** Honoured: an aborted request rejects with `AbortedError` and stops its work. */
  readonly signal: AbortSignal;
}

/**
 * Where replicas come from, at the level of replicas: a stream of updates with a contiguous
 * `seq` (plus resync signals) per channel and scope, and the snapshot of a stream with the
 * `seq` it includes. The exchange (`ExchangeSource`: the router's streams, REST paging inside),
 * several lines of it (`ArbitratedSource`), the NATS bus (`BusSource`) and a recording each
 * implement it; `StreamSync`, the alignment rule, the statuses and the resync policy exist once.
 *
 * @example
 * const source: ReplicaSource = {
 *   subscribe: (channel, scope, sink) => router.listen(channel, scope, sink),
 *   snapshot: (query) => loadExchangeSnapshot(query, (op, params, signal) => rest.call(op, params, { signal })),
 * };
 */
export interface ReplicaSource {
  /**
   * Subscribes `sink` to the stream of one channel and scope (at the source, which shares
   * one subscription between its subscribers); returns the function that unsubscribes
   * (idempotent). A source may deliver synchronously, even before it returns.
   */
  subscribe(channel: ChannelName, scope: Scope, sink: SourceSink): () => void;
  /**
   * The snapshot of one stream: its data (every page of it, already merged), the `seq` S it
   * includes and the server's time. Not retried here: the replica retries the whole
   * snapshot with its policy.
   */
  snapshot(query: SnapshotQuery): Promise<LoadedSnapshot>;
}
