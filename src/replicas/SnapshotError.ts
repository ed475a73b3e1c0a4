/** Errors of snapshot loading. Both are retried by the resync scheduler. */
import { ExchangeReplicaError, type ErrorContext } from '../errors';

/** A snapshot answer cannot be used: no `sequence`, pages of different sequences, too many pages. */
export class SnapshotError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}) {
    super('ERR_SNAPSHOT_INVALID', message, context);
  }
}

/**
 * The snapshot is older than the buffered updates: the first buffered update above its
 * sequence S is not S + 1, so updates in between are missing. A newer snapshot is needed.
 */
export class SnapshotBehindError extends ExchangeReplicaError {
  readonly snapshotSequence: bigint;
  readonly firstBufferedSeq: bigint;
  constructor(snapshotSequence: bigint, firstBufferedSeq: bigint, context: ErrorContext = {}) {
    super('ERR_SNAPSHOT_BEHIND', `snapshot sequence ${snapshotSequence} is behind the buffered updates (next buffered seq ${firstBufferedSeq}, needed ${snapshotSequence + 1n})`, context);
    this.snapshotSequence = snapshotSequence;
    this.firstBufferedSeq = firstBufferedSeq;
  }
}
