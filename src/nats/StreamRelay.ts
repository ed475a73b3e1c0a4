/**
 * One stream carried by a relay: its replica (a `StreamSync` over the exchange, the channel's
 * own reducer, the library's one sync algorithm) tells through its applied hook exactly what
 * it applied; the relay publishes those updates to the stream's subject and writes snapshots
 * aligned with what it published to the KV bucket. It has no sync logic of its own.
 *
 * Epochs. Every state the replica builds from a snapshot (S, with the buffered updates
 * S + 1.. folded onto it) starts an epoch: the folded updates are published, then each update
 * the replica applies while live (each the previous seq + 1, by StreamSync's guarantee).
 *
 * Batches. The updates applied in one turn of the event loop (one socket read of the
 * exchange feed) are published as ONE message, a batch first..last (busProtocol.ts), handed
 * to the publisher in a microtask at the end of that turn: no wait is added (the NATS client
 * writes its buffer in a microtask too), and the per-message costs of NATS (protocol lines,
 * headers, acknowledgements, the consumers' message objects) are paid once per batch. A
 * batch is cut early at `MAX_BATCH_CHARS`. Consecutive batches of an epoch are contiguous. The
 * epoch ends when the replica stops being live (a resync, a disconnect: StreamSync's
 * triggers) or when the relay cannot carry an update (a failed publish, a full publish queue,
 * an update it cannot encode exactly: the replica is then resynced). Within an epoch the
 * messages of the subject are contiguous, in `seq` order; between two epochs there may be a
 * hole, which a consumer sees as a gap and heals from the KV entry.
 *
 * Alignment (the KV entry: data at S, and `jsStartSeq`). `jsStartSeq` must be a JetStream
 * sequence from which the subject holds S + 1 first among the updates above S. The relay
 * knows where each of its own batches was stored (the PubAck's sequence; for a message
 * JetStream already held, the sequence of the stored copy, a batch with the same bounds). So:
 * - S + 1 published in this epoch: `jsStartSeq` = the PubAck sequence of its batch (the
 *   consumer trims what the batch holds at or below S);
 * - the replica is at S and S is the last it published: `jsStartSeq` = where the batch
 *   ending at S was stored (the consumer drops it; S + 1, published later, is stored after);
 * - the replica is at S and published nothing yet in this epoch (a quiet stream just synced):
 *   it looks up the subject's last message; when none or its batch ends at or below S, `jsStartSeq` = just
 *   after the stream's last sequence read before that look-up (anything above S is stored
 *   later), else it waits for its own publish of S + 1;
 * - S + 1 sent but not acknowledged yet, or the replica still below S (a refresh snapshot
 *   ahead of the feed): it waits; when the replica is still below S after `snapshotAheadMs`,
 *   the feed missed an update the exchange has (a silent gap on a quiet stream): the epoch
 *   ends and the replica resyncs (`snapshot_ahead`); a snapshot whose S + 1 is still
 *   unacknowledged by then is replaced by a fresh one;
 * - S below the epoch's snapshot: the snapshot is dropped (older than what the epoch can prove).
 * The KV entry only moves forward (SnapshotStore): each write compares and sets on the
 * entry's revision and never replaces a snapshot with a higher S.
 */
import type { Subscription } from 'rxjs';
import type { Clock, Timer } from '../clock';
import { ExchangeReplicaError } from '../errors';
import { CHANNELS, streamKey, type ChannelName, type Scope } from '../protocol';
import type { LoadedSnapshot, Reducer, ReplicaState, ResyncTrigger, StatusChange, StreamSync } from '../replicas';
import type { AppliedChange, AppliedHook } from '../replicas/AppliedChange';
import { RESYNC_TRIGGERS } from '../replicas/streamSyncOptions';
import type { BufferedUpdate } from '../replicas/UpdateBuffer';
import { recordOf } from '../util/recordOf';
import { BUS_FORMAT_VERSION, encodeResetMessage, encodeUpdateBatch, encodeUpdateMessage, MAX_BATCH_CHARS, messageId, resetMessageId, snapshotKey, updateMessagePrefix, updateSubject, type HeartbeatStream, type PublishAck, type RelayStreamStatus, type SnapshotRecord } from './busProtocol';
import type { OrderedPublisher } from './OrderedPublisher';
import type { ResolvedRelayOptions } from './relayOptions';
import { SnapshotWriteSuperseded, type SnapshotStore, type StoreResult } from './SnapshotStore';

/** What a stream relay runs on (given by `ReplicaRelay`). */
export interface StreamRelayDeps {
  /** The relay's replica of the stream, built with the given applied hook (not started). */
  readonly replica: (onApplied: AppliedHook<unknown>) => StreamSync<unknown>;
  /** A snapshot for the KV bucket (the reducer's load, `previous` undefined), one attempt. */
  readonly load: (signal: AbortSignal) => Promise<LoadedSnapshot>;
  readonly publisher: OrderedPublisher;
  readonly store: SnapshotStore;
  /**
   * A JetStream sequence from which every message of `subject` with `seq > S` is stored,
   * when the subject holds nothing above S yet; undefined when it does.
   */
  readonly startAfterLast: (subject: string, sequence: bigint) => Promise<number | undefined>;
  /**
   * Whether the message JetStream stores at `seq` is `payload` on `subject`: asked when a
   * batch was answered as a duplicate (another message holds its id).
   */
  readonly storedEquals: (subject: string, payload: string, seq: number) => Promise<boolean>;
  /**
   * False from a NATS disconnect until the relay has checked that the updates stream is still
   * the one published to: the JetStream positions of the epoch may belong to a stream that is
   * gone, so no snapshot is written meanwhile (see {@link StreamRelay.busChecked}).
   */
  readonly busKnown: () => boolean;
  /** Something went wrong and was survived. */
  readonly report: (error: unknown) => void;
  /** The stream's status changed. */
  readonly onStatus: (status: RelayStreamStatus) => void;
}

/**
 * Why the relay cannot carry the stream: an update it cannot publish, (`snapshot_ahead`) a
 * refresh snapshot the replica has stayed below for `snapshotAheadMs` (evidence of a silent
 * gap on a quiet stream: the replica would otherwise stay live one behind until the next
 * update), or (`bus_reset`) an updates stream that is not the one the epoch published to (a
 * nats-server restart lost a memory stream, or the stream was deleted): what the epoch
 * published and its KV entry are gone, or (`duplicate_conflict`) JetStream answered a batch as
 * a duplicate of a stored message that is not that batch (a forged message id, or an exchange
 * whose numbering restarted within the duplicate window): readers may have applied the stored
 * one, so a reset goes first (busProtocol.ts). It resyncs its replica (counted besides the
 * replica's own triggers).
 */
export type CarryFailure = 'publish_failed' | 'backpressure' | 'encode' | 'snapshot_ahead' | 'bus_reset' | 'duplicate_conflict';

/** Why an epoch ended: the replica's resync triggers (but `manual`: the relay's own requests, counted by their reason) and the relay's carry failures. */
export type BreakReason = Exclude<ResyncTrigger, 'manual'> | CarryFailure;

/** A stream's counters beyond its heartbeat's (for metrics). */
export interface StreamRelayStats {
  /** Snapshots this relay wrote to the KV bucket (not those it found already beaten). */
  readonly snapshotWrites: number;
  /** Milliseconds since this relay's last publish was acknowledged, null before the first. */
  readonly msSinceLastPublish: number | null;
}

interface PendingSnapshot {
  readonly loaded: LoadedSnapshot;
  readonly epoch: number;
  readonly sinceMs: number;
}

/** The replica's resync triggers counted as breaks (`manual` is the relay's own request, counted by its reason). */
const REPLICA_BREAKS = RESYNC_TRIGGERS.filter((t): t is Exclude<ResyncTrigger, 'manual'> => t !== 'manual');

/** Exchange seq -> JetStream seq entries kept per stream (the newest; older ones cannot align a snapshot the KV does not already beat). */
const MAX_POSITIONS = 200_000;

export class StreamRelay {
  readonly key: string;
  readonly subject: string;
  readonly snapshotKey: string;
  /** The constant head of this stream's update messages. */
  private readonly messagePrefix: string;
  private readonly clock: Clock;
  private readonly sync: StreamSync<unknown>;
  private statusSubscription?: Subscription;

  private statusValue: RelayStreamStatus = 'syncing';
  /** In an epoch: the replica is live and everything it applied since its snapshot was carried. */
  private live = false;
  private closed = false;
  private epoch = 0;
  /** The seq the replica is at (the snapshot's S or the last update applied). */
  private tip = 0n;
  private epochStart = 0n;
  private readonly positions = new Map<bigint, number>();
  private pending?: PendingSnapshot;
  private writing = false;
  private loading?: AbortController;
  private refreshTimer?: Timer;
  private alignTimer?: Timer;
  private updatesSinceSnapshot = 0;
  /** The batch being gathered in this turn: the frames of updates `batchFirst`.. (see the module comment). */
  private batch: string[] = [];
  private batchFirst = 0n;
  private batchChars = 0;
  private flushQueued = false;
  private readonly flushBatch = (): void => {
    this.flushQueued = false;
    this.guard(() => this.submitBatch());
  };

  // counters for heartbeats
  private publishedSeq: bigint | null = null;
  private snapshotSequence: bigint | null = null;
  private published = 0;
  private duplicates = 0;
  private messages = 0;
  private syncs = 0;
  private readonly carryFailures: Record<CarryFailure, number> = { publish_failed: 0, backpressure: 0, encode: 0, snapshot_ahead: 0, bus_reset: 0, duplicate_conflict: 0 };
  /** A reset published and not acknowledged yet: no snapshot is written meanwhile (its `jsStartSeq` must be past the reset). */
  private resetPending = false;
  /** Where the last reset was stored: every snapshot written after it starts past it. */
  private resetSeq = 0;
  private resetRetry?: Timer;
  // counters for metrics (relayMetrics.ts)
  private snapshotWrites = 0;
  private lastAckMs: number | null = null;

  constructor(
    readonly channel: ChannelName,
    readonly scope: Scope,
    private readonly reducer: Reducer<unknown>,
    private readonly deps: StreamRelayDeps,
    private readonly options: ResolvedRelayOptions,
  ) {
    this.key = streamKey(channel, scope);
    this.subject = updateSubject(options.names, channel, scope);
    this.snapshotKey = snapshotKey(channel, scope);
    this.messagePrefix = updateMessagePrefix(channel, this.key);
    this.clock = options.clock;
    this.sync = deps.replica((emission, applied) => this.onApplied(emission, applied));
  }

  get status(): RelayStreamStatus {
    return this.statusValue;
  }

  /** Epochs ended, by reason (for tests and soak reports). */
  get breakCounts(): Readonly<Record<BreakReason, number>> {
    const counts = this.sync.resyncCounts;
    return { ...recordOf(REPLICA_BREAKS, (t) => counts[t]), ...this.carryFailures };
  }

  /** What a heartbeat says of this stream. */
  describe(): HeartbeatStream {
    return {
      streamKey: this.key,
      channel: this.channel,
      scope: this.scope,
      subject: this.subject,
      snapshotKey: this.snapshotKey,
      status: this.statusValue,
      publishedSeq: this.publishedSeq,
      snapshotSequence: this.snapshotSequence,
      published: this.published,
      duplicates: this.duplicates,
      messages: this.messages,
      syncs: this.syncs,
    };
  }

  /** What the metrics add to {@link describe}: snapshots written to the KV bucket, ms since the last PubAck (null before the first). */
  stats(): StreamRelayStats {
    return { snapshotWrites: this.snapshotWrites, msSinceLastPublish: this.lastAckMs === null ? null : Math.max(0, this.clock.nowMs() - this.lastAckMs) };
  }

  /** Starts the replica (it subscribes to the exchange stream and fetches its snapshot). */
  start(): this {
    if (this.closed || this.statusSubscription !== undefined) return this;
    this.statusSubscription = this.sync.status$.subscribe((change) => this.guard(() => this.onReplicaStatus(change)));
    // The replica's failure is on status$ (and reported by its onError); its states$ error needs no handling here.
    this.sync.start();
    return this;
  }

  /**
   * The relay checked the updates stream after a reconnect. When it was recreated
   * (`bus_reset`), the epoch's messages and snapshot are gone: a live replica starts a new
   * epoch from a fresh snapshot (published and written again; one not live is already on its
   * way to one). Otherwise the pending snapshot, held back meanwhile, is written.
   */
  busChecked(recreated: boolean): void {
    if (this.closed) return;
    if (!recreated) return this.guard(() => this.align());
    // Nothing this relay wrote is on the new bucket: the next snapshot must be written, whatever its S.
    this.snapshotSequence = null;
    this.breakEpoch('bus_reset');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.endEpoch();
    this.resetRetry?.cancel();
    this.resetRetry = undefined;
    this.statusSubscription?.unsubscribe();
    this.sync.close();
  }

  // ---- what the replica applied ----------------------------------------------

  private onReplicaStatus(change: StatusChange): void {
    if (this.closed) return;
    // Leaving live ends the epoch (a resync, a disconnect); a new one starts with the next state built from a snapshot.
    if (change.to !== 'live') this.endEpoch();
    this.setStatus(change.to);
  }

  private onApplied(emission: ReplicaState<unknown>, applied: AppliedChange): void {
    if (this.closed) return;
    switch (applied.cause) {
      case 'snapshot':
        return this.startEpoch(applied.snapshot, applied.folded, emission.seq);
      case 'update':
        if (!this.live) return; // the epoch was given up (a carry failure): the replica resyncs
        this.tip = applied.update.seq;
        return this.publish(applied.update);
      default:
        return;
    }
  }

  /** The replica showed a state built from `snapshot` with `folded` on it: publish them, and write the snapshot once aligned. */
  private startEpoch(snapshot: LoadedSnapshot, folded: readonly BufferedUpdate[], seq: bigint): void {
    this.endEpoch();
    this.live = true;
    this.epochStart = snapshot.sequence;
    this.tip = seq;
    this.syncs++;
    this.updatesSinceSnapshot = 0;
    for (const u of folded) {
      if (!this.live) return;
      this.publish(u);
    }
    if (!this.live) return;
    this.pending = { loaded: snapshot, epoch: this.epoch, sinceMs: this.clock.nowMs() };
    this.align();
    this.scheduleRefresh();
  }

  /** No epoch: no pending snapshot, no positions, no refresh; publishes of the old epoch not yet sent are dropped by the publisher. */
  private endEpoch(): void {
    this.epoch++;
    this.live = false;
    // Updates of the ended epoch not handed to the publisher yet are dropped with it.
    this.batch = [];
    this.batchChars = 0;
    this.positions.clear();
    this.pending = undefined;
    this.loading?.abort();
    this.loading = undefined;
    this.refreshTimer?.cancel();
    this.refreshTimer = undefined;
    this.alignTimer?.cancel();
    this.alignTimer = undefined;
  }

  /** The relay cannot carry what the replica applied: the epoch ends and the replica is rebuilt from a fresh snapshot. */
  private breakEpoch(reason: CarryFailure): void {
    if (!this.live) return;
    this.carryFailures[reason]++;
    this.endEpoch();
    this.sync.resync(`the relay could not carry an update (${reason})`);
  }

  // ---- publishing ------------------------------------------------------------

  /** Adds an update to this turn's batch (published at the end of the turn, see the module comment). */
  private publish(u: BufferedUpdate): void {
    let frame: string;
    try {
      frame = encodeUpdateMessage(this.messagePrefix, this.channel, u.seq, u.timestampNs, u.data);
    } catch (error) {
      this.deps.report(new ExchangeReplicaError('ERR_BUS', `update ${u.seq} of ${this.key} cannot be carried exactly: ${(error as Error).message}`, { stream: this.key }, { cause: error }));
      return this.breakEpoch('encode');
    }
    if (this.batch.length > 0 && this.batchChars + frame.length > MAX_BATCH_CHARS) {
      this.submitBatch();
      if (!this.live) return;
    }
    if (this.batch.length === 0) this.batchFirst = u.seq;
    this.batch.push(frame);
    this.batchChars += frame.length + 1;
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(this.flushBatch);
    }
    this.updatesSinceSnapshot++;
    if (this.updatesSinceSnapshot >= this.options.snapshotRefreshUpdates) this.requestRefresh();
  }

  /** Hands the batch gathered so far to the publisher as one message. */
  private submitBatch(): void {
    const frames = this.batch;
    if (frames.length === 0 || !this.live) return;
    this.batch = [];
    this.batchChars = 0;
    const epoch = this.epoch;
    const first = this.batchFirst;
    const last = first + BigInt(frames.length - 1);
    const payload = encodeUpdateBatch(first, frames);
    const accepted = this.deps.publisher.submit({
      subject: this.subject,
      payload,
      msgID: messageId(this.key, first, last),
      wanted: () => this.epoch === epoch,
      onAck: (ack) => this.guard(() => (ack.duplicate ? this.onDuplicate(epoch, first, last, ack, payload) : this.onAck(epoch, first, last, ack))),
      onError: (error) => this.guard(() => this.onPublishError(epoch, last, error)),
    });
    if (!accepted) this.breakEpoch('backpressure');
  }

  private onAck(epoch: number, first: bigint, last: bigint, ack: PublishAck): void {
    const n = Number(last - first) + 1;
    this.published += n;
    this.messages++;
    this.lastAckMs = this.clock.nowMs();
    if (ack.duplicate) this.duplicates += n;
    if (this.publishedSeq === null || last > this.publishedSeq) this.publishedSeq = last;
    if (epoch !== this.epoch) return;
    // Every update of the batch is read from the batch's message (a consumer trims what it already has).
    for (let seq = first; seq <= last; seq++) this.positions.set(seq, ack.seq);
    if (this.positions.size > MAX_POSITIONS) {
      for (const k of this.positions.keys()) {
        this.positions.delete(k);
        if (this.positions.size <= MAX_POSITIONS) break;
      }
    }
    this.align();
  }

  /**
   * JetStream already held a message under this batch's id: another relay's copy of the same
   * batch, or this relay's own after a lost acknowledgement (the same bytes either way), or a
   * forged or conflicting one. Its position is used only once the stored message is seen to be
   * this batch; otherwise readers may have applied something this relay never applied: a reset
   * and a new epoch.
   */
  private onDuplicate(epoch: number, first: bigint, last: bigint, ack: PublishAck, payload: string): void {
    this.deps.storedEquals(this.subject, payload, ack.seq).then(
      (same) => this.guard(() => (same ? this.onAck(epoch, first, last, ack) : this.onConflict(first, last, ack, undefined))),
      (error: unknown) => this.guard(() => this.onConflict(first, last, ack, error)),
    );
  }

  private onConflict(first: bigint, last: bigint, ack: PublishAck, error: unknown): void {
    if (this.closed) return;
    const what = error === undefined ? 'holds another message under that id (a forged message id, or an exchange numbering that restarted)' : `could not be compared with it (${(error as Error)?.message ?? String(error)})`;
    this.deps.report(new ExchangeReplicaError('ERR_BUS', `batch ${first}..${last} of ${this.key} was answered as a duplicate, and JetStream sequence ${ack.seq} ${what}: readers are reset and the stream starts a new epoch`, { stream: this.key }, { cause: error }));
    this.publishReset();
    if (this.live) this.breakEpoch('duplicate_conflict');
    else this.carryFailures.duplicate_conflict++;
  }

  /**
   * Publishes a reset on the subject (busProtocol.ts), ordered before anything the next epoch
   * publishes; no snapshot is written until it is stored, and every later one starts past it.
   * Tried again until stored (or the relay closes).
   */
  private publishReset(): void {
    if (this.closed) return;
    this.resetPending = true;
    this.resetRetry?.cancel();
    this.resetRetry = undefined;
    const retry = (error: unknown): void => {
      this.deps.report(new ExchangeReplicaError('ERR_BUS', `publishing a reset of ${this.key} failed: ${(error as Error)?.message ?? String(error)}`, { stream: this.key }, { cause: error }));
      if (this.closed || this.resetRetry !== undefined) return;
      this.resetRetry = this.clock.setTimer(() => this.guard(() => ((this.resetRetry = undefined), this.publishReset())), this.options.retry.maxDelayMs, { unref: true });
    };
    const accepted = this.deps.publisher.submit({
      subject: this.subject,
      payload: encodeResetMessage(this.options.relayId),
      msgID: resetMessageId(this.key, this.options.relayId, this.clock.nowNs()),
      wanted: () => !this.closed,
      onAck: (ack) =>
        this.guard(() => {
          this.resetPending = false;
          this.resetSeq = Math.max(this.resetSeq, ack.seq);
          this.align();
        }),
      onError: (error) => this.guard(() => retry(error)),
    });
    if (!accepted) retry(new Error('the publish queue is full'));
  }

  private onPublishError(epoch: number, seq: bigint, error: unknown): void {
    if (epoch !== this.epoch || !this.live) return;
    // A refusal of the server was reported by the relay (ERR_BUS_PERMISSION, once per subject).
    const refused = error instanceof ExchangeReplicaError && error.code === 'ERR_BUS_PERMISSION';
    if (!refused) this.deps.report(new ExchangeReplicaError('ERR_BUS', `publishing update ${seq} of ${this.key} failed: ${(error as Error)?.message ?? String(error)}`, { stream: this.key }, { cause: error }));
    this.breakEpoch('publish_failed');
  }

  // ---- snapshots to the KV bucket --------------------------------------------

  private scheduleRefresh(): void {
    this.refreshTimer?.cancel();
    this.refreshTimer = undefined;
    if (!this.live) return;
    this.refreshTimer = this.clock.setTimer(
      () =>
        this.guard(() => {
          this.refreshTimer = undefined;
          this.requestRefresh();
          this.scheduleRefresh();
        }),
      this.options.snapshotRefreshMs,
      { unref: true },
    );
  }

  /** Fetches a fresh snapshot for the KV bucket unless one is already on its way. */
  private requestRefresh(): void {
    if (!this.live || this.loading !== undefined || this.writing) return;
    if (this.pending !== undefined) {
      // One is waiting for the replica to reach it (or for its PubAck): not forever, a fresh one replaces it.
      if (this.clock.nowMs() - this.pending.sinceMs < this.options.snapshotAheadMs) return;
      const behind = this.tip < this.pending.loaded.sequence;
      this.pending = undefined;
      if (behind) return this.breakEpoch('snapshot_ahead');
    }
    this.fetchRefresh();
  }

  private fetchRefresh(): void {
    const controller = new AbortController();
    this.loading = controller;
    const epoch = this.epoch;
    this.deps.load(controller.signal).then(
      (loaded) =>
        this.guard(() => {
          if (this.loading !== controller) return;
          this.loading = undefined;
          if (epoch === this.epoch) this.onRefreshSnapshot(loaded);
        }),
      (error: unknown) =>
        this.guard(() => {
          if (this.loading !== controller) return;
          this.loading = undefined;
          if (epoch !== this.epoch) return;
          this.deps.report(error);
          this.scheduleRefresh();
        }),
    );
  }

  private onRefreshSnapshot(loaded: LoadedSnapshot): void {
    if (!this.live) return;
    if (this.snapshotSequence !== null && loaded.sequence <= this.snapshotSequence) return;
    try {
      // The same check a client makes of a snapshot before it shows it.
      this.reducer.fromSnapshot(loaded.data, this.scope, undefined);
    } catch (error) {
      this.deps.report(error);
      return;
    }
    this.pending = { loaded, epoch: this.epoch, sinceMs: this.clock.nowMs() };
    this.align();
  }

  /** Writes the pending snapshot once its `jsStartSeq` is known (see the module comment). */
  private align(): void {
    const p = this.pending;
    if (p === undefined || this.writing || this.resetPending || p.epoch !== this.epoch || !this.live || !this.deps.busKnown()) return;
    const S = p.loaded.sequence;
    if (S < this.epochStart) {
      this.pending = undefined;
      return;
    }
    const next = this.positions.get(S + 1n);
    if (next !== undefined) return this.write(p, next);
    if (this.tip !== S) return; // S + 1 awaits its PubAck, or the replica is still below S
    const at = this.positions.get(S);
    if (at !== undefined) return this.write(p, at);
    if (S !== this.epochStart) return; // S awaits its PubAck
    // Nothing published in this epoch: ask JetStream where the subject stands.
    this.writing = true;
    const epoch = this.epoch;
    this.deps.startAfterLast(this.subject, S).then(
      (start) =>
        this.guard(() => {
          this.writing = false;
          if (epoch !== this.epoch || this.pending !== p) return this.align();
          const exact = this.positions.get(S + 1n);
          if (exact !== undefined) return this.write(p, exact);
          // Past this relay's last reset: a reader that met it waits for an entry past it.
          if (start !== undefined && this.tip === S) return this.write(p, Math.max(start, this.resetSeq + 1));
          // The subject already holds updates above S (another relay is ahead): our own
          // publish of S + 1 will tell where it is.
        }),
      (error: unknown) =>
        this.guard(() => {
          this.writing = false;
          this.deps.report(error);
          this.retryAlign();
        }),
    );
  }

  /** After a failed look-up or write (NATS down?): try the pending snapshot again later. */
  private retryAlign(): void {
    if (this.alignTimer !== undefined || !this.live) return;
    this.alignTimer = this.clock.setTimer(
      () =>
        this.guard(() => {
          this.alignTimer = undefined;
          this.align();
        }),
      this.options.retry.maxDelayMs,
      { unref: true },
    );
  }

  private write(p: PendingSnapshot, jsStartSeq: number): void {
    this.pending = undefined;
    this.writing = true;
    const epoch = this.epoch;
    const { loaded } = p;
    const record: SnapshotRecord = {
      v: BUS_FORMAT_VERSION,
      streamKey: this.key,
      channel: this.channel,
      scope: this.scope,
      subject: this.subject,
      operation: CHANNELS[this.channel].snapshot,
      sequence: loaded.sequence,
      timestampNs: loaded.timestampNs,
      data: loaded.data,
      jsStream: this.options.names.stream,
      jsStartSeq,
      writtenAtNs: this.clock.nowNs(),
      relayId: this.options.relayId,
    };
    // An entry above this relay's own position is ahead of anything it applied (written by no
    // relay of this exchange, or a relay far ahead): replaced, so that it cannot hold the bucket.
    this.deps.store.write(this.snapshotKey, record, () => epoch === this.epoch && this.deps.busKnown(), this.tip).then(
      (result: StoreResult) =>
        this.guard(() => {
          this.writing = false;
          if (result.outcome === 'written') this.snapshotWrites++;
          if (this.snapshotSequence === null || result.sequence > this.snapshotSequence) this.snapshotSequence = result.sequence;
          if (epoch !== this.epoch) return this.align();
          this.updatesSinceSnapshot = this.tip > result.sequence ? Number(this.tip - result.sequence) : 0;
          // Positions at or below the entry's S can no longer serve: a snapshot must beat it.
          for (const k of this.positions.keys()) {
            if (k > result.sequence) break;
            this.positions.delete(k);
          }
          this.align();
        }),
      (error: unknown) =>
        this.guard(() => {
          this.writing = false;
          // The same snapshot again later, unless a newer one came meanwhile (it stays aligned) or its epoch ended.
          if (epoch === this.epoch && this.pending === undefined) this.pending = p;
          // Given up for a NATS drop: held back until the bus is checked (busChecked aligns it).
          if (error instanceof SnapshotWriteSuperseded) return this.align();
          this.deps.report(new ExchangeReplicaError('ERR_BUS', `writing the snapshot of ${this.key} (S=${loaded.sequence}) failed: ${(error as Error)?.message ?? String(error)}`, { stream: this.key }, { cause: error }));
          this.retryAlign();
        }),
    );
  }

  // ---- status ----------------------------------------------------------------

  private setStatus(status: RelayStreamStatus): void {
    if (status === this.statusValue) return;
    this.statusValue = status;
    this.deps.onStatus(status);
  }

  /** Runs a step; an unexpected exception is reported instead of escaping into RxJS or a timer. */
  private guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.deps.report(error);
    }
  }
}
