/**
 * Replicas shared by whoever reads the same stream: a replica made of others (the combined
 * account replica) leases its parts here instead of running copies of them, so each update
 * of a stream is applied once however many replicas read it. State replicas only: a state
 * replica replays its latest state to a newcomer, so joining a running one is the same as
 * starting one; an event replica does not replay its history.
 */
import type { Scope } from '../protocol';
import type { StateChannel, StateChannelStates } from './channelReducers';
import type { StreamSync } from './StreamSync';

/** A running replica held until `release()` (the last release closes it). */
export interface ReplicaLease<R> {
  readonly replica: R;
  release(): void;
}

export interface SharedReplicas {
  /** The shared state replica of a stream, or undefined when it cannot stand in for the standard one (e.g. a custom reducer). */
  state<C extends StateChannel>(channel: C, scope: Scope): ReplicaLease<StreamSync<StateChannelStates[C]>> | undefined;
}
