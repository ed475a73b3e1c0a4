/**
 * The object a replica emits, made by a constructor instead of an object literal. Same
 * fields, same order, same values, and the same prototype (`Object.prototype`: a plain
 * object to every check) as the `ReplicaState` literal it replaces; the difference is V8's:
 * a literal's allocation site is tracked, and since a replica holds on to its latest emission
 * (replayed to late subscribers) nearly every one survives a scavenge, so the site gets
 * pretenured: each emission is then allocated in the old generation, and every store of a
 * young value into it (the new state, the bigints) goes through the write barrier. Objects
 * made by `new` are not pretenured by allocation site: they start young and die young, as
 * most emissions do. @internal
 */
import type { EmissionCause, ReplicaState } from './ReplicaState';
import type { ReplicaStatus } from './ReplicaStatus';
import type { ReplicaTransitionCode } from './statusCodes';

type Fields<S> = { -readonly [K in keyof ReplicaState<S>]: ReplicaState<S>[K] };

interface ReplicaEmissionConstructor {
  new <S>(status: ReplicaStatus, code: ReplicaTransitionCode, state: S, seq: bigint, timestampNs: bigint, receivedAtNs: bigint, snapshotId: number, cause: EmissionCause): ReplicaState<S>;
}

/** A function rather than a class: its instances' prototype can be `Object.prototype` itself. */
function construct<S>(this: Fields<S>, status: ReplicaStatus, code: ReplicaTransitionCode, state: S, seq: bigint, timestampNs: bigint, receivedAtNs: bigint, snapshotId: number, cause: EmissionCause): void {
  this.status = status;
  this.code = code;
  this.state = state;
  this.seq = seq;
  this.timestampNs = timestampNs;
  this.receivedAtNs = receivedAtNs;
  this.snapshotId = snapshotId;
  this.cause = cause;
}
construct.prototype = Object.prototype;

export const ReplicaEmission = construct as unknown as ReplicaEmissionConstructor;
