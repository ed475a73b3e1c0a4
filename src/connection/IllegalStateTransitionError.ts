import { ExchangeReplicaError } from '../errors';
import type { ConnectionStateName } from './ConnectionState';

/** Thrown by the connection's state machine on a transition its table does not allow (a bug, not a runtime condition). */
export class IllegalStateTransitionError extends ExchangeReplicaError {
  constructor(from: ConnectionStateName, to: ConnectionStateName, reason: string) {
    super('ERR_ILLEGAL_STATE_TRANSITION', `illegal connection state transition ${from} -> ${to} (${reason})`);
  }
}
