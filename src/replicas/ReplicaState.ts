/** What a replica emits: its state and everything needed to judge it (status, sequence, timing). */
import type { ReplicaStatus } from './ReplicaStatus';
import type { ReplicaTransitionCode } from './statusCodes';

/**
 * Why an emission happened: a snapshot was applied (first sync or a resync, with the
 * buffered updates folded in), one update was applied, or only the status changed.
 */
export type EmissionCause = 'snapshot' | 'update' | 'status';

/**
 * One emission of a replica. `state` is never a mix of two snapshots: a resync builds a new
 * state from its snapshot before it is shown, and `snapshotId` tells the two apart.
 */
export interface ReplicaState<S> {
  readonly status: ReplicaStatus;
  /** Why the replica has this status: the stable code of the transition that set it (see `STATUS_CODES`). */
  readonly code: ReplicaTransitionCode;
  readonly state: S;
  /** The stream `seq` the state includes (the snapshot's sequence or the last update applied). */
  readonly seq: bigint;
  /** Server time (ns) of the last update applied, or of the snapshot answer. */
  readonly timestampNs: bigint;
  /** Local wall-clock time (ns) at which that update or snapshot was received. */
  readonly receivedAtNs: bigint;
  /** 1 for the first snapshot, incremented by every resync. */
  readonly snapshotId: number;
  readonly cause: EmissionCause;
}
