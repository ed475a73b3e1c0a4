/** The error a reducer throws when applying what it was given would make the replica wrong. */
import { ExchangeReplicaError, type ErrorContext } from '../errors';

/** Thrown by `apply` when an update would make the replica wrong (e.g. a crossed book): the replica resyncs. */
export class ReplicaIntegrityError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super('ERR_REPLICA_INTEGRITY', message, context, options);
  }
}
