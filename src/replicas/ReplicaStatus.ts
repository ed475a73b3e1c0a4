/** What a replica says about its state: the public statuses (see ReplicaStateMachine for how they move). */
import type { ReplicaTransitionCode } from './statusCodes';

/**
 * - `syncing`: no state yet, waiting for the first snapshot;
 * - `live`: the state follows the stream;
 * - `resyncing`: the state shown is the last good one, a fresh snapshot is on its way;
 * - `stale`: the stream is down (disconnected): the state shown is not being updated;
 * - `failed`: the subscription was refused or the snapshot cannot be had; terminal.
 */
export const REPLICA_STATUSES = ['syncing', 'live', 'resyncing', 'stale', 'failed'] as const;
export type ReplicaStatus = (typeof REPLICA_STATUSES)[number];

/** One status transition, why it happened (`code`, stable) and a description for people (`reason`). */
export interface StatusChange {
  readonly from: ReplicaStatus;
  readonly to: ReplicaStatus;
  readonly code: ReplicaTransitionCode;
  readonly reason: string;
}
