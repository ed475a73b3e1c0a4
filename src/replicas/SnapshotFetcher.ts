/**
 * How replicas get snapshots: a fetcher of snapshot-operation answers (the source's
 * `snapshot`; for the exchange, the REST client's validated `call`) and what a snapshot load
 * hands to StreamSync.
 */
import type { ChannelName, ParamValues, Scope, SnapshotOperationName } from '../protocol';

/** One validated REST answer: the envelope keys a snapshot needs. */
export interface SnapshotPage {
  readonly data: unknown;
  /** The stream `seq` this answer already includes (present on every snapshot operation). */
  readonly sequence?: string;
  readonly next_cursor?: string | null;
  /** The server's clock when it answered. */
  readonly timestamp_ns?: string;
}

/** One answer of a snapshot operation (the REST client's `call`, or any other source): the operation, its parameters, a cancellation signal. */
export type SnapshotFetcher = (operation: SnapshotOperationName, params: ParamValues, signal: AbortSignal) => Promise<SnapshotPage>;

/** A snapshot ready for `Reducer.fromSnapshot`. */
export interface LoadedSnapshot<Snapshot = unknown> {
  readonly data: Snapshot;
  /** The stream `seq` S the snapshot includes: buffered updates with `seq <= S` are dropped. */
  readonly sequence: bigint;
  /** Server time of the (first) answer, 0n when unknown. */
  readonly timestampNs: bigint;
}

/** Everything a REST snapshot load may use (the exchange's side of `ReplicaSource.snapshot`). */
export interface SnapshotRequest {
  readonly channel: ChannelName;
  readonly scope: Scope;
  readonly fetch: SnapshotFetcher;
  readonly signal: AbortSignal;
}
