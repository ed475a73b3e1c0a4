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

/**
 * The snapshot is ahead of the stream: its sequence S stayed above every update the stream
 * delivered for longer than `snapshotAheadMs` (a server whose REST and feed disagree, or a
 * numbering that restarted). The replica is not shown as live meanwhile; a new snapshot is
 * fetched with backoff.
 */
export class SnapshotAheadError extends ExchangeReplicaError {
  readonly snapshotSequence: bigint;
  readonly streamSeq: bigint;
  constructor(snapshotSequence: bigint, streamSeq: bigint, waitedMs: number, context: ErrorContext = {}) {
    super('ERR_SNAPSHOT_AHEAD', `snapshot sequence ${snapshotSequence} is ahead of the stream (newest seq ${streamSeq}) and the stream did not catch up within ${waitedMs} ms: fetching a new snapshot`, context);
    this.snapshotSequence = snapshotSequence;
    this.streamSeq = streamSeq;
  }
}
