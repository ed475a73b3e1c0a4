/**
 * What a replica applied, told beside an emission (`StreamSyncConfig.onApplied`). Internal:
 * the NATS relay publishes exactly what its replica applied, no second copy of the sync
 * algorithm. Not part of the package's public surface.
 */
import type { LoadedSnapshot } from './SnapshotFetcher';
import type { ReplicaState } from './ReplicaState';
import type { SourceUpdate } from './ReplicaSource';
import type { BufferedUpdate } from './UpdateBuffer';

/** An update applied while live (the emission's `cause` is `update`): `seq` is the previous one + 1. */
export interface AppliedUpdate {
  readonly cause: 'update';
  readonly update: SourceUpdate;
}

/**
 * A state (re)built from a snapshot and shown (the emission's `cause` is `snapshot`): the
 * snapshot (data at `snapshot.sequence`) and the updates folded onto it, in order, each
 * exactly the previous seq + 1 from `snapshot.sequence + 1`, the last at the emission's `seq`.
 * Every such change starts a new run of contiguous updates.
 */
export interface AppliedSnapshot {
  readonly cause: 'snapshot';
  readonly snapshot: LoadedSnapshot;
  readonly folded: readonly BufferedUpdate[];
}

/** A status emission (`cause: 'status'`): nothing applied. */
export interface AppliedNothing {
  readonly cause: 'status';
}

export type AppliedChange = AppliedUpdate | AppliedSnapshot | AppliedNothing;

/**
 * Called after every emission of a replica (once its subscribers had it), with what it
 * applied. May call the replica back (`resync()`). What it throws is reported like the
 * other hooks' failures (`onError`), never escapes.
 */
export type AppliedHook<S> = (emission: ReplicaState<S>, applied: AppliedChange) => void;
