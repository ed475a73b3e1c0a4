/**
 * The contract every channel reducer fulfils. The sync algorithm (StreamSync) is written
 * once and drives any reducer: it builds a state from a REST snapshot, then folds updates.
 */
import type { ChannelName, Scope } from '../protocol';

/** Thrown by `apply` when an update would make the replica wrong (e.g. a crossed book): the replica resyncs. */
export class ReplicaIntegrityError extends Error {
  readonly code = 'ERR_REPLICA_INTEGRITY';
  constructor(message: string) {
    super(message);
    this.name = 'ReplicaIntegrityError';
  }
}

export interface Reducer<State, Data = unknown, Snapshot = unknown> {
  readonly channel: ChannelName;
  /** Builds a fresh state from the snapshot's `data` (all pages already merged for paged snapshots). */
  fromSnapshot(snapshot: Snapshot, scope: Scope): State;
  /**
   * Folds one validated update `data` (its stream `seq` given for reference). May mutate
   * `state` in place and return it, or return a new state.
   * @throws ReplicaIntegrityError when the result would be inconsistent: the caller resyncs.
   */
  apply(state: State, data: Data, seq: bigint): State;
}
