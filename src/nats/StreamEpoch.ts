/**
 * The epoch of one carried stream, shared by its `StreamRelay` (which starts and ends
 * epochs), its `StreamPublisher` (which records where each update was stored) and its
 * `SnapshotAligner` (which writes snapshots from those positions). See StreamRelay.ts.
 */

/**
 * Why the relay cannot carry the stream: an update it cannot publish, (`snapshot_ahead`) a
 * refresh snapshot the replica has stayed below for `snapshotAheadMs` (evidence of a silent
 * gap on a quiet stream: the replica would otherwise stay live one behind until the next
 * update), or (`bus_reset`) an updates stream that is not the one the epoch published to (a
 * nats-server restart lost a memory stream, or the stream was deleted): what the epoch
 * published and its KV entry are gone, or (`duplicate_conflict`) JetStream answered a batch as
 * a duplicate of a stored message that is not that batch (a forged message id, or an exchange
 * whose numbering restarted within the duplicate window): readers may have applied the stored
 * one, so a reset goes first (wire/resetMessage.ts). It resyncs its replica (counted besides the
 * replica's own triggers).
 */
export type CarryFailure = 'publish_failed' | 'backpressure' | 'encode' | 'snapshot_ahead' | 'bus_reset' | 'duplicate_conflict';

/** What the publisher and the aligner ask of their stream relay. */
export interface EpochHooks {
  /** The relay cannot carry what the replica applied: the epoch ends and the replica is rebuilt from a fresh snapshot. */
  readonly breakEpoch: (reason: CarryFailure) => void;
  /** Runs a step; an unexpected exception is reported instead of escaping into RxJS or a timer. */
  readonly guard: (step: () => void) => void;
}

export class StreamEpoch {
  /** Counts the epochs: bumped when one ends, so that what an ended epoch left on its way is dropped. */
  epoch = 0;
  /** An epoch is running: the replica is live and every update it applies is carried. */
  live = false;
  closed = false;
  /** The seq of the replica's state (the last update it applied). */
  tip = 0n;
  /** S of the snapshot the epoch started from. */
  epochStart = 0n;
  /** Where each update of the epoch was stored: exchange seq -> JetStream sequence of its batch. */
  readonly positions = new Map<bigint, number>();
  /** A reset published and not acknowledged yet: no snapshot is written meanwhile (its `jsStartSeq` must be past the reset). */
  resetPending = false;
  /** Where the last reset was stored: every snapshot written after it starts past it. */
  resetSeq = 0;
}
