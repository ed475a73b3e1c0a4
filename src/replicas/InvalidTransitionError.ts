import { ExchangeReplicaError } from '../errors';
import type { SyncState } from './ReplicaStateMachine';
import type { ReplicaTransitionCode } from './statusCodes';

/** A move the machine does not allow (a bug of the caller). */
export class InvalidTransitionError extends ExchangeReplicaError {
  constructor(from: SyncState, to: SyncState, code: ReplicaTransitionCode, reason: string) {
    super('ERR_ILLEGAL_STATE_TRANSITION', `replica state cannot go from ${from} to ${to} (${code}: ${reason})`);
  }
}
