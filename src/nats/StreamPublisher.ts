/**
 * The publishing side of one carried stream (see StreamRelay.ts for the epochs).
 *
 * Batches. The updates applied in one turn of the event loop (one socket read of the
 * exchange feed) are published as ONE message, a batch first..last (wire/updateBatch.ts), handed
 * to the publisher in a microtask at the end of that turn: no wait is added (the NATS client
 * writes its buffer in a microtask too), and the per-message costs of NATS (protocol lines,
 * headers, acknowledgements, the consumers' message objects) are paid once per batch. A
 * batch is cut early at `MAX_BATCH_CHARS`. Consecutive batches of an epoch are contiguous.
 * Each acknowledged batch records where its updates were stored (the epoch's positions, which
 * align the snapshots: SnapshotAligner.ts); a batch answered as a duplicate of a message that
 * is not that batch publishes a reset (wire/resetMessage.ts) and ends the epoch.
 */
import type { Timer, Clock } from '../clock';
import { ExchangeReplicaError } from '../errors';
import type { ChannelName } from '../protocol';
import type { BufferedUpdate } from '../replicas/UpdateBuffer';
import type { ResolvedRelayOptions } from './relayOptions';
import type { CarryFailure, EpochHooks, StreamEpoch } from './StreamEpoch';
import type { StreamRelayDeps } from './StreamRelay';
import { busError, encodeResetMessage, encodeUpdateBatch, encodeUpdateMessage, MAX_BATCH_CHARS, messageId, resetMessageId, updateMessagePrefix, type PublishAck } from './wire';

/** Exchange seq -> JetStream seq entries kept per stream (the newest; older ones cannot align a snapshot the KV does not already beat). */
const MAX_POSITIONS = 200_000;

/** How long a batch answered as a duplicate is compared again with the stored message while the comparison fails (ms): past it, a conflict. */
const DUPLICATE_CHECK_MS = 60_000;

/** What the publisher asks of its stream relay besides {@link EpochHooks}. */
export interface PublisherHooks extends EpochHooks {
  /** A carry failure outside an epoch: counted only. */
  readonly countFailure: (reason: CarryFailure) => void;
  /** New positions, or a reset stored: the pending snapshot may be written now (SnapshotAligner.align). */
  readonly align: () => void;
}

export class StreamPublisher {
  /** The batch being gathered in this turn: the frames of updates `batchFirst`.. (see the module comment). */
  private batch: string[] = [];
  private batchFirst = 0n;
  private batchChars = 0;
  private flushQueued = false;
  private readonly flushBatch = (): void => {
    this.flushQueued = false;
    this.hooks.guard(() => this.submitBatch());
  };
  private readonly messagePrefix: string;
  private readonly clock: Clock;
  private resetRetry?: Timer;
  // counters for heartbeats
  /** The newest exchange seq acknowledged, null before the first. */
  publishedSeq: bigint | null = null;
  /** Updates acknowledged (duplicates included). */
  published = 0;
  /** Of those, the ones JetStream already held. */
  duplicates = 0;
  /** Batches acknowledged. */
  messages = 0;
  // counters for metrics (relayMetrics.ts)
  /** Clock ms of the last acknowledgement, null before the first. */
  lastAckMs: number | null = null;

  constructor(
    private readonly key: string,
    private readonly channel: ChannelName,
    private readonly subject: string,
    private readonly state: StreamEpoch,
    private readonly deps: StreamRelayDeps,
    private readonly options: ResolvedRelayOptions,
    private readonly hooks: PublisherHooks,
  ) {
    this.messagePrefix = updateMessagePrefix(channel, key);
    this.clock = options.clock;
  }

  /** The epoch ended: updates not handed to the publisher yet are dropped with it. */
  dropBatch(): void {
    this.batch = [];
    this.batchChars = 0;
  }

  /** No more resets are tried. */
  close(): void {
    this.resetRetry?.cancel();
    this.resetRetry = undefined;
  }

  /** Adds an update to this turn's batch (published at the end of the turn, see the module comment); false when the epoch ended instead. */
  add(u: BufferedUpdate): boolean {
    let frame: string;
    try {
      frame = encodeUpdateMessage(this.messagePrefix, this.channel, u.seq, u.timestampNs, u.data);
    } catch (error) {
      this.deps.report(new ExchangeReplicaError('ERR_BUS', `update ${u.seq} of ${this.key} cannot be carried exactly: ${(error as Error).message}`, { stream: this.key }, { cause: error }));
      this.hooks.breakEpoch('encode');
      return false;
    }
    if (this.batch.length > 0 && this.batchChars + frame.length > MAX_BATCH_CHARS) {
      this.submitBatch();
      if (!this.state.live) return false;
    }
    if (this.batch.length === 0) this.batchFirst = u.seq;
    this.batch.push(frame);
    this.batchChars += frame.length + 1;
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushBatch);
    }
    return true;
  }


  /** Hands the batch gathered so far to the publisher as one message. */
  private submitBatch(): void {
    const frames = this.batch;
    if (frames.length === 0 || !this.state.live) return;
    this.batch = [];
    this.batchChars = 0;
    const epoch = this.state.epoch;
    const first = this.batchFirst;
    const last = first + BigInt(frames.length - 1);
    const payload = encodeUpdateBatch(first, frames);
    const accepted = this.deps.publisher.submit({
      subject: this.subject,
      payload,
      msgID: messageId(this.key, first, last),
      wanted: () => this.state.epoch === epoch,
      onAck: (ack) => this.hooks.guard(() => (ack.duplicate ? this.onDuplicate(epoch, first, last, ack, payload) : this.onAck(epoch, first, last, ack))),
      onError: (error) => this.hooks.guard(() => this.onPublishError(epoch, last, error)),
    });
    if (!accepted) this.hooks.breakEpoch('backpressure');
  }


  private onAck(epoch: number, first: bigint, last: bigint, ack: PublishAck): void {
    const n = Number(last - first) + 1;
    this.published += n;
    this.messages++;
    this.lastAckMs = this.clock.nowMs();
    if (ack.duplicate) this.duplicates += n;
    if (this.publishedSeq === null || last > this.publishedSeq) this.publishedSeq = last;
    if (epoch !== this.state.epoch) return;
    // Every update of the batch is read from the batch's message (a consumer trims what it already has).
    for (let seq = first; seq <= last; seq++) this.state.positions.set(seq, ack.seq);
    if (this.state.positions.size > MAX_POSITIONS) {
      for (const k of this.state.positions.keys()) {
        this.state.positions.delete(k);
        if (this.state.positions.size <= MAX_POSITIONS) break;
      }
    }
    this.hooks.align();
  }


  /**
   * JetStream already held a message under this batch's id: another relay's copy of the same
   * batch, or this relay's own after a lost acknowledgement (the same bytes either way), or a
   * forged or conflicting one. Its position is used only once the stored message is seen to be
   * this batch; otherwise readers may have applied something this relay never applied: a reset
   * and a new epoch.
   */
  private onDuplicate(epoch: number, first: bigint, last: bigint, ack: PublishAck, payload: string, sinceMs = this.clock.nowMs()): void {
    this.deps.storedEquals(this.subject, payload, ack.seq).then(
      (same) => this.hooks.guard(() => (same ? this.onAck(epoch, first, last, ack) : this.onConflict(first, last, ack, undefined))),
      (error: unknown) =>
        this.hooks.guard(() => {
          // Not compared (JetStream busy: an election, a node lost): compared again. Only a stored
          // message seen to differ is a conflict; a reset for a failed look-up made every
          // consumer of an event stream start again past the records it lacked (a gap).
          if (this.state.closed) return;
          if (this.clock.nowMs() - sinceMs >= DUPLICATE_CHECK_MS) return this.onConflict(first, last, ack, error);
          this.clock.setTimer(() => this.hooks.guard(() => this.onDuplicate(epoch, first, last, ack, payload, sinceMs)), this.options.retry.maxDelayMs, { unref: true });
        }),
    );
  }


  private onConflict(first: bigint, last: bigint, ack: PublishAck, error: unknown): void {
    if (this.state.closed) return;
    const what = error === undefined ? 'holds another message under that id (a forged message id, or an exchange numbering that restarted)' : `could not be compared with it (${(error as Error)?.message ?? String(error)})`;
    this.deps.report(new ExchangeReplicaError('ERR_BUS', `batch ${first}..${last} of ${this.key} was answered as a duplicate, and JetStream sequence ${ack.seq} ${what}: readers are reset and the stream starts a new epoch`, { stream: this.key }, { cause: error }));
    this.publishReset();
    if (this.state.live) this.hooks.breakEpoch('duplicate_conflict');
    else this.hooks.countFailure('duplicate_conflict');
  }


  /**
   * Publishes a reset on the subject (wire/resetMessage.ts), ordered before anything the next epoch
   * publishes; no snapshot is written until it is stored, and every later one starts past it.
   * Tried again until stored (or the relay closes).
   */
  private publishReset(): void {
    if (this.state.closed) return;
    this.state.resetPending = true;
    this.resetRetry?.cancel();
    this.resetRetry = undefined;
    const retry = (error: unknown): void => {
      this.deps.report(new ExchangeReplicaError('ERR_BUS', `publishing a reset of ${this.key} failed: ${(error as Error)?.message ?? String(error)}`, { stream: this.key }, { cause: error }));
      if (this.state.closed || this.resetRetry !== undefined) return;
      this.resetRetry = this.clock.setTimer(() => this.hooks.guard(() => ((this.resetRetry = undefined), this.publishReset())), this.options.retry.maxDelayMs, { unref: true });
    };
    const accepted = this.deps.publisher.submit({
      subject: this.subject,
      payload: encodeResetMessage(this.options.relayId),
      msgID: resetMessageId(this.key, this.options.relayId, this.clock.nowNs()),
      wanted: () => !this.state.closed,
      onAck: (ack) =>
        this.hooks.guard(() => {
          this.state.resetPending = false;
          this.state.resetSeq = Math.max(this.state.resetSeq, ack.seq);
          this.hooks.align();
        }),
      onError: (error) => this.hooks.guard(() => retry(error)),
    });
    if (!accepted) retry(busError('the publish queue is full'));
  }


  private onPublishError(epoch: number, seq: bigint, error: unknown): void {
    if (epoch !== this.state.epoch || !this.state.live) return;
    // A refusal of the server was reported by the relay (ERR_BUS_PERMISSION, once per subject).
    const refused = error instanceof ExchangeReplicaError && error.code === 'ERR_BUS_PERMISSION';
    if (!refused) this.deps.report(new ExchangeReplicaError('ERR_BUS', `publishing update ${seq} of ${this.key} failed: ${(error as Error)?.message ?? String(error)}`, { stream: this.key }, { cause: error }));
    this.hooks.breakEpoch('publish_failed');
  }

}
