/**
 * The object a replica emits, made by a constructor instead of an object literal. Same
 * fields, same order, same values as the `ReplicaState` literal it replaces; the difference
 * is V8's: a literal's allocation site is tracked, and since a replica holds on to its latest
 * emission (replayed to late subscribers) nearly every one survives a scavenge, so the site
 * gets pretenured: each emission is then allocated in the old generation, and every store of
 * a young value into it (the new state, the bigints) goes through the write barrier. Objects
 * made by `new` are not pretenured by allocation site: they start young and die young, as
 * most emissions do. @internal
 */
import type { EmissionCause, ReplicaState } from './ReplicaState';
import type { ReplicaStatus } from './ReplicaStatus';
import type { ReplicaTransitionCode } from './statusCodes';

export class ReplicaEmission<S> implements ReplicaState<S> {
  constructor(
    readonly status: ReplicaStatus,
    readonly code: ReplicaTransitionCode,
    readonly state: S,
    readonly seq: bigint,
    readonly timestampNs: bigint,
    readonly receivedAtNs: bigint,
    readonly snapshotId: number,
    readonly cause: EmissionCause,
  ) {}
}
