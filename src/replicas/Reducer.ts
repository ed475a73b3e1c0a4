/**
 * The contract every channel reducer fulfils. The sync algorithm (StreamSync) is written
 * once and drives any reducer: it builds a state from a snapshot (its source's), then folds updates.
 */
import type { ChannelName, Scope } from '../protocol';
import type { HistorySince } from './ReplicaSource';

export interface Reducer<State, Data = unknown, Snapshot = unknown> {
  readonly channel: ChannelName;
  /**
   * Builds a fresh state from the snapshot's `data` (all pages already merged for paged snapshots).
   * `previous` is the state shown before this resync (undefined on the first sync): a reducer
   * reads from it what must survive a resync (the last event delivered) and never mutates it.
   */
  fromSnapshot(snapshot: Snapshot, scope: Scope, previous?: State): State;
  /**
   * Folds one validated update `data` (its stream `seq` given for reference). May mutate
   * `state` in place and return it, or return a new state.
   * @throws ReplicaIntegrityError when the result would be inconsistent: the caller resyncs.
   */
  apply(state: State, data: Data, seq: bigint): State;
  /**
   * Optional. The states of one fold, oldest first: a state not shown yet, then the state each
   * buffered update made from the one before (see buildState.ts). Only the result is shown:
   * returns the state to show in place of the last one, carrying what the earlier ones hold
   * for consumers (the event reducer: every item they delivered, in order). Never mutates them.
   * Absent: the last one is shown as it is.
   */
  join?(folded: readonly State[]): State;
  /**
   * Optional (event channels). What a resync's snapshot must reach back to, read from the
   * state shown: the last record delivered (`SnapshotQuery.since`). Absent: any snapshot does.
   */
  snapshotSince?(previous: State): HistorySince;
}
