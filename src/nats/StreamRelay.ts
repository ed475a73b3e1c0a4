/**
 * One stream carried by a relay: it follows the exchange stream exactly as a client replica
 * does (the channel's own reducer over a REST snapshot and the validated updates), publishes
 * every update it applied to the stream's subject, and writes snapshots aligned with what it
 * published to the KV bucket.
 *
 * Publishing. The relay keeps its own replica of the stream (the library's reducer). An
 * update is published only when that replica applied it: it passed the channel's schema
 * (the router), its `seq` is the previous one + 1, and the reducer accepted it. A jump, a
 * repeat, an update the reducer rejects, a feed reconnect, a failed publish or a full
 * publish queue ends the current run of contiguous updates (an "epoch"): the relay drops its
 * state and resyncs from a fresh snapshot (like `ExchangeClient` replicas), and publishes
 * again from that snapshot's S + 1. Within an epoch the messages of the subject are therefore
 * contiguous, in `seq` order; between two epochs there may be a hole, which a consumer sees
 * as a gap and heals from the KV entry.
 *
 * Alignment (the KV entry: data at S, and `jsStartSeq`). `jsStartSeq` must be a JetStream
 * sequence from which the subject holds S + 1 first among the updates above S. The relay
 * knows where each of its own publishes was stored (the PubAck's sequence; for a message
 * JetStream already held, the sequence of the stored copy). So:
 * - S + 1 published in this epoch: `jsStartSeq` = its PubAck sequence (exact);
 * - the relay is at S and S is the last it published: `jsStartSeq` = where S was stored
 *   (the consumer drops S; S + 1, published later, is stored after it);
 * - the relay is at S and published nothing yet in this epoch (a quiet stream just synced):
 *   it looks up the subject's last message; when none or its `seq <= S`, `jsStartSeq` = just
 *   after the stream's last sequence read before that look-up (anything above S is stored
 *   later), else it waits for its own publish of S + 1;
 * - S + 1 sent but not acknowledged yet, or the relay still below S (REST ahead of the
 *   feed): it waits (bounded by `snapshotAheadMs`, then resyncs);
 * - S below the epoch's snapshot: the snapshot is dropped (older than what the epoch can prove).
 * The KV entry only moves forward (SnapshotStore): each write compares and sets on the
 * entry's revision and never replaces a snapshot with a higher S.
 */
import type { Observable, Subscription } from 'rxjs';
import { Backoff, type Clock, type Timer } from '../clock';
import { ExchangeReplicaError, RequestTimeoutError } from '../errors';
import { CHANNELS, streamKey, type ChannelName, type Scope } from '../protocol';
import type { LoadedSnapshot, Reducer } from '../replicas';
import type { UpdateEvent } from '../router';
import { BUS_FORMAT_VERSION, encodeUpdateMessage, messageId, snapshotKey, updateMessagePrefix, updateSubject, type HeartbeatStream, type PublishAck, type RelayStreamStatus, type SnapshotRecord } from './busProtocol';
import type { OrderedPublisher } from './OrderedPublisher';
import type { ResolvedRelayOptions } from './relayOptions';
import type { SnapshotStore, StoreResult } from './SnapshotStore';

/** What a stream relay runs on (given by `ReplicaRelay`). */
export interface StreamRelayDeps {
  /** The validated updates of the stream (subscribing subscribes on the exchange). */
  readonly updates: Observable<UpdateEvent>;
  /** A first-sync snapshot of the stream (the reducer's load, `previous` undefined), one attempt. */
  readonly load: (signal: AbortSignal) => Promise<LoadedSnapshot>;
  readonly publisher: OrderedPublisher;
  readonly store: SnapshotStore;
  /**
   * A JetStream sequence from which every message of `subject` with `seq > S` is stored,
   * when the subject holds nothing above S yet; undefined when it does.
   */
  readonly startAfterLast: (subject: string, sequence: bigint) => Promise<number | undefined>;
  /** Whether the exchange feed connection is open. */
  readonly feedOpen: () => boolean;
  /** Something went wrong and was survived. */
  readonly report: (error: unknown) => void;
  /** The stream's status changed. */
  readonly onStatus: (status: RelayStreamStatus) => void;
}

/** Why an epoch ended. */
export type BreakReason = 'seq_jump' | 'seq_regression' | 'integrity' | 'resubscribed' | 'publish_failed' | 'backpressure' | 'snapshot_ahead' | 'encode';

interface PendingSnapshot {
  readonly loaded: LoadedSnapshot;
  readonly epoch: number;
  readonly sinceMs: number;
}

type Phase = 'syncing' | 'live' | 'failed' | 'closed';

/** Exchange seq -> JetStream seq entries kept per stream (the newest; older ones cannot align a snapshot the KV does not already beat). */
const MAX_POSITIONS = 200_000;

export class StreamRelay {
  readonly key: string;
  readonly subject: string;
  readonly snapshotKey: string;
  /** The constant head of this stream's update messages. */
  private readonly messagePrefix: string;
  private readonly clock: Clock;
  private readonly backoff: Backoff;

  private phase: Phase = 'syncing';
  private statusValue: RelayStreamStatus = 'syncing';
  private subscription?: Subscription;
  /** Subscribed to the exchange stream (false after it errored or ended). */
  private subscribed = false;
  private resubscribeTimer?: Timer;
  /** The pending fetch timer gives way to the first update (a quiet wait, not a backoff). */
  private fetchOnUpdate = false;
  private epoch = 0;
  private hadState = false;
  /** Updates received while syncing (arrival order). */
  private buffer: UpdateEvent[] = [];
  private state: unknown;
  /** The seq the relay's replica is at (the snapshot's S or the last update applied). */
  private tip = 0n;
  /** An update above the epoch's snapshot was seen (the stream reached it). */
  private confirmed = false;
  /** While not confirmed, an update at or below the snapshot was seen (the stream is behind it). */
  private behindSeen = false;
  private epochStart = 0n;
  private readonly positions = new Map<bigint, number>();
  private pending?: PendingSnapshot;
  private writing = false;
  private loading?: { readonly kind: 'sync' | 'refresh'; readonly controller: AbortController };
  private fetchTimer?: Timer;
  private refreshTimer?: Timer;
  private aheadTimer?: Timer;
  private alignTimer?: Timer;
  private updatesSinceSnapshot = 0;

  // counters for heartbeats
  private publishedSeq: bigint | null = null;
  private snapshotSequence: bigint | null = null;
  private published = 0;
  private duplicates = 0;
  private syncs = 0;
  private readonly breaks: Record<BreakReason, number> = { seq_jump: 0, seq_regression: 0, integrity: 0, resubscribed: 0, publish_failed: 0, backpressure: 0, snapshot_ahead: 0, encode: 0 };

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
    this.backoff = new Backoff(options.retry);
  }

  get status(): RelayStreamStatus {
    return this.statusValue;
  }

  /** Epochs ended, by reason (for tests and soak reports). */
  get breakCounts(): Readonly<Record<BreakReason, number>> {
    return { ...this.breaks };
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
      syncs: this.syncs,
    };
  }

  /** Subscribes to the exchange stream; the first snapshot is fetched on the first update (or after `quietMs`). */
  start(): this {
    if (this.subscribed || this.phase === 'closed') return this;
    this.subscribe();
    this.scheduleFetch(this.options.quietMs, true);
    return this;
  }

  /**
   * The feed connection opened (`reopened`: again, after a drop) or dropped. A reopen
   * resyncs: updates may have been missed meanwhile and a quiet stream would not show it.
   */
  onFeed(reopened: boolean): void {
    if (this.phase === 'closed' || this.phase === 'failed') return;
    if (reopened) {
      if (this.phase === 'live') return this.breakEpoch('resubscribed');
      this.resetEpoch();
      this.scheduleFetch(this.options.quietMs, true);
    }
    this.refreshStatus();
  }

  close(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.epoch++;
    this.subscribed = false;
    this.subscription?.unsubscribe();
    this.stopWork();
    this.buffer = [];
    this.state = undefined;
  }

  // ---- the exchange stream ---------------------------------------------------

  private subscribe(): void {
    this.subscribed = true;
    this.subscription = this.deps.updates.subscribe({
      next: (u) => this.guard(() => this.onUpdate(u)),
      error: (e: unknown) => this.guard(() => this.onStreamError(e)),
      complete: () => this.guard(() => this.onStreamEnd()),
    });
  }

  private onStreamError(error: unknown): void {
    this.subscribed = false;
    this.subscription = undefined;
    if (this.phase === 'closed') return;
    this.deps.report(error);
    this.resetEpoch();
    if (!(error instanceof RequestTimeoutError)) {
      this.phase = 'failed';
      return this.setStatus('failed');
    }
    // A subscribe that got no answer in time is transient: subscribe again later, from a fresh snapshot.
    this.refreshStatus();
    this.resubscribeTimer?.cancel();
    this.resubscribeTimer = this.clock.setTimer(
      () =>
        this.guard(() => {
          this.resubscribeTimer = undefined;
          if (this.phase !== 'syncing' || this.subscribed) return;
          this.subscribe();
          this.scheduleFetch(this.options.quietMs, true);
          this.refreshStatus();
        }),
      this.backoff.next() ?? this.options.retry.maxDelayMs,
      { unref: true },
    );
  }

  private onStreamEnd(): void {
    this.subscribed = false;
    this.subscription = undefined;
    if (this.phase === 'closed') return;
    this.resetEpoch();
    this.refreshStatus();
  }

  private onUpdate(u: UpdateEvent): void {
    switch (this.phase) {
      case 'syncing':
        this.bufferUpdate(u);
        if (this.loading === undefined && (this.fetchTimer === undefined || this.fetchOnUpdate)) this.startFetch('sync');
        return;
      case 'live':
        return this.onLiveUpdate(u);
      default:
        return;
    }
  }

  private bufferUpdate(u: UpdateEvent): void {
    this.buffer.push(u);
    // The oldest go first: a snapshot above them does not need them.
    if (this.buffer.length > this.options.maxBufferedUpdates) this.buffer.splice(0, this.buffer.length - this.options.maxBufferedUpdates);
  }

  private onLiveUpdate(u: UpdateEvent): void {
    if (u.seq === this.tip + 1n) {
      if (!this.apply(u)) return;
      if (!this.confirmed) this.confirm();
      this.publish(u);
      return;
    }
    if (u.seq <= this.tip) {
      if (!this.confirmed) {
        // The stream is behind the snapshot: wait for it (bounded by the ahead timer).
        this.behindSeen = true;
        if (u.seq === this.tip) this.confirm();
        return;
      }
      return this.breakEpoch('seq_regression', u);
    }
    return this.breakEpoch('seq_jump', u);
  }

  private confirm(): void {
    this.confirmed = true;
    this.backoff.reset();
    this.aheadTimer?.cancel();
    this.aheadTimer = undefined;
  }

  /** Folds one update into the relay's replica; false (and a resync) when the reducer rejects it. */
  private apply(u: UpdateEvent): boolean {
    try {
      this.state = this.reducer.apply(this.state, u.data, u.seq);
      this.tip = u.seq;
      return true;
    } catch (error) {
      this.deps.report(error);
      this.breakEpoch('integrity', u);
      return false;
    }
  }

  // ---- publishing ------------------------------------------------------------

  private publish(u: UpdateEvent): void {
    let payload: string;
    try {
      payload = encodeUpdateMessage(this.messagePrefix, this.channel, u.seq, u.timestampNs, u.data);
    } catch (error) {
      this.deps.report(new ExchangeReplicaError('ERR_BUS', `update ${u.seq} of ${this.key} cannot be carried exactly: ${(error as Error).message}`, { stream: this.key }, { cause: error }));
      return this.breakEpoch('encode');
    }
    const epoch = this.epoch;
    const seq = u.seq;
    const accepted = this.deps.publisher.submit({
      subject: this.subject,
      payload,
      msgID: messageId(this.key, seq),
      wanted: () => this.epoch === epoch,
      onAck: (ack) => this.guard(() => this.onAck(epoch, seq, ack)),
      onError: (error) => this.guard(() => this.onPublishError(epoch, seq, error)),
    });
    if (!accepted) return this.breakEpoch('backpressure');
    this.updatesSinceSnapshot++;
    if (this.updatesSinceSnapshot >= this.options.snapshotRefreshUpdates) this.requestRefresh();
  }

  private onAck(epoch: number, seq: bigint, ack: PublishAck): void {
    this.published++;
    if (ack.duplicate) this.duplicates++;
    if (this.publishedSeq === null || seq > this.publishedSeq) this.publishedSeq = seq;
    if (epoch !== this.epoch) return;
    this.positions.set(seq, ack.seq);
    if (this.positions.size > MAX_POSITIONS) {
      for (const k of this.positions.keys()) {
        this.positions.delete(k);
        if (this.positions.size <= MAX_POSITIONS) break;
      }
    }
    this.align();
  }

  private onPublishError(epoch: number, seq: bigint, error: unknown): void {
    if (epoch !== this.epoch || this.phase !== 'live') return;
    this.deps.report(new ExchangeReplicaError('ERR_BUS', `publishing update ${seq} of ${this.key} failed: ${(error as Error)?.message ?? String(error)}`, { stream: this.key }, { cause: error }));
    this.breakEpoch('publish_failed');
  }

  // ---- epochs ----------------------------------------------------------------

  /**
   * Ends the epoch: the replica is dropped and rebuilt from a fresh snapshot; `u` (the update
   * that broke it, when one did) is kept for the fold. Publishes of the old epoch not yet sent
   * are dropped by the publisher.
   */
  private breakEpoch(reason: BreakReason, u?: UpdateEvent): void {
    if (this.phase !== 'live' && this.phase !== 'syncing') return;
    this.breaks[reason]++;
    this.resetEpoch();
    if (u !== undefined) this.buffer.push(u);
    this.refreshStatus();
    // A broken publish or a full queue: wait before trying again (NATS may be down). Otherwise
    // fetch on the next update (after a resubscribe the subscription may not be active yet).
    const wait = this.backoff.next() ?? this.options.retry.maxDelayMs;
    if (reason === 'publish_failed' || reason === 'backpressure') return this.scheduleFetch(Math.max(wait, this.options.retry.initialDelayMs), false);
    const delay = this.backoff.attempts > 1 ? wait : 0;
    if (u !== undefined) return this.scheduleFetch(delay, false);
    this.scheduleFetch(Math.max(this.options.quietMs, delay), delay === 0);
  }

  /** Back to syncing with nothing: no state, no buffer, no pending snapshot, no timers. */
  private resetEpoch(): void {
    this.epoch++;
    if (this.phase === 'live') this.phase = 'syncing';
    this.stopWork();
    this.buffer = [];
    this.state = undefined;
    this.confirmed = false;
    this.behindSeen = false;
    this.positions.clear();
    this.pending = undefined;
  }

  private stopWork(): void {
    this.loading?.controller.abort();
    this.loading = undefined;
    this.fetchTimer?.cancel();
    this.fetchTimer = undefined;
    this.resubscribeTimer?.cancel();
    this.resubscribeTimer = undefined;
    this.refreshTimer?.cancel();
    this.refreshTimer = undefined;
    this.aheadTimer?.cancel();
    this.aheadTimer = undefined;
    this.alignTimer?.cancel();
    this.alignTimer = undefined;
  }

  /**
   * Fetches the sync snapshot after `delayMs`; with `onUpdate`, at once when an update arrives
   * first (the subscription is active then, so the snapshot is not older than the stream).
   */
  private scheduleFetch(delayMs: number, onUpdate: boolean): void {
    this.fetchTimer?.cancel();
    this.fetchTimer = undefined;
    this.fetchOnUpdate = false;
    if (this.phase !== 'syncing') return;
    if (delayMs <= 0) return this.startFetch('sync');
    this.fetchOnUpdate = onUpdate;
    this.fetchTimer = this.clock.setTimer(
      () =>
        this.guard(() => {
          this.fetchTimer = undefined;
          this.fetchOnUpdate = false;
          if (this.phase === 'syncing' && this.loading === undefined && this.subscribed) this.startFetch('sync');
        }),
      delayMs,
      { unref: true },
    );
  }

  private startFetch(kind: 'sync' | 'refresh'): void {
    if (this.loading !== undefined) {
      if (this.loading.kind === kind) return;
      this.loading.controller.abort();
    }
    this.fetchTimer?.cancel();
    this.fetchTimer = undefined;
    this.fetchOnUpdate = false;
    const controller = new AbortController();
    const loading = { kind, controller };
    this.loading = loading;
    const epoch = this.epoch;
    this.deps.load(controller.signal).then(
      (loaded) =>
        this.guard(() => {
          if (this.loading !== loading) return;
          this.loading = undefined;
          if (epoch !== this.epoch || controller.signal.aborted) return;
          if (kind === 'sync') this.onSyncSnapshot(loaded);
          else this.onRefreshSnapshot(loaded);
        }),
      (error: unknown) =>
        this.guard(() => {
          if (this.loading !== loading) return;
          this.loading = undefined;
          if (epoch !== this.epoch || controller.signal.aborted) return;
          this.deps.report(error);
          if (kind === 'sync') this.retrySync();
          else this.scheduleRefresh();
        }),
    );
  }

  private retrySync(delayMs?: number): void {
    this.scheduleFetch(delayMs ?? this.backoff.next() ?? this.options.retry.maxDelayMs, false);
  }

  /**
   * The sync snapshot arrived: build the replica from it, fold the buffered updates above S
   * (each exactly the next seq, each accepted by the reducer), then go live and publish them.
   */
  private onSyncSnapshot(loaded: LoadedSnapshot): void {
    if (this.phase !== 'syncing') return;
    const S = loaded.sequence;
    let state: unknown;
    try {
      state = this.reducer.fromSnapshot(loaded.data, this.scope, undefined);
    } catch (error) {
      this.deps.report(error);
      return this.retrySync();
    }
    const folded: UpdateEvent[] = [];
    let seq = S;
    let newest: bigint | undefined;
    for (let i = 0; i < this.buffer.length; i++) {
      const u = this.buffer[i]!;
      if (newest === undefined || u.seq > newest) newest = u.seq;
      if (u.seq <= seq) continue;
      if (u.seq !== seq + 1n) {
        // A hole: the snapshot is behind the buffered stream (or the stream jumped while
        // syncing). Only what follows the hole can serve the next snapshot.
        this.buffer = this.buffer.slice(i);
        return this.retrySync();
      }
      try {
        state = this.reducer.apply(state, u.data, u.seq);
      } catch (error) {
        this.deps.report(error);
        this.buffer = this.buffer.slice(i);
        return this.retrySync();
      }
      folded.push(u);
      seq = u.seq;
    }
    this.buffer = [];
    this.state = state;
    this.tip = seq;
    this.epochStart = S;
    this.phase = 'live';
    this.hadState = true;
    this.syncs++;
    this.confirmed = newest !== undefined && newest >= S;
    this.behindSeen = newest !== undefined && newest < S;
    if (this.confirmed) this.backoff.reset();
    this.refreshStatus();
    for (const u of folded) {
      if (this.phase !== 'live') return;
      this.publish(u);
    }
    if (this.phase !== 'live') return;
    if (!this.confirmed) this.armAheadTimer();
    this.pending = { loaded, epoch: this.epoch, sinceMs: this.clock.nowMs() };
    this.updatesSinceSnapshot = folded.length;
    this.align();
    this.scheduleRefresh();
  }

  /** A snapshot no update reached yet: when the stream shows it is behind it for `snapshotAheadMs`, resync. */
  private armAheadTimer(): void {
    this.aheadTimer?.cancel();
    this.aheadTimer = this.clock.setTimer(
      () =>
        this.guard(() => {
          this.aheadTimer = undefined;
          if (this.phase === 'live' && !this.confirmed && this.behindSeen) this.breakEpoch('snapshot_ahead');
        }),
      this.options.snapshotAheadMs,
      { unref: true },
    );
  }

  // ---- snapshots to the KV bucket --------------------------------------------

  private scheduleRefresh(): void {
    this.refreshTimer?.cancel();
    this.refreshTimer = undefined;
    if (this.phase !== 'live') return;
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
    if (this.phase !== 'live' || this.loading !== undefined || this.writing) return;
    if (this.pending !== undefined) {
      // One is waiting for the stream to reach it: not forever.
      if (this.clock.nowMs() - this.pending.sinceMs < this.options.snapshotAheadMs) return;
      if (this.tip < this.pending.loaded.sequence) return this.breakEpoch('snapshot_ahead');
      this.pending = undefined;
    }
    this.startFetch('refresh');
  }

  private onRefreshSnapshot(loaded: LoadedSnapshot): void {
    if (this.phase !== 'live') return;
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
    if (p === undefined || this.writing || p.epoch !== this.epoch || this.phase !== 'live') return;
    const S = p.loaded.sequence;
    if (S < this.epochStart) {
      this.pending = undefined;
      return;
    }
    const next = this.positions.get(S + 1n);
    if (next !== undefined) return this.write(p, next);
    if (this.tip !== S) return; // S + 1 awaits its PubAck, or the stream is still below S
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
          if (start !== undefined && this.tip === S) return this.write(p, start);
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
    if (this.alignTimer !== undefined || this.phase !== 'live') return;
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
    this.deps.store.write(this.snapshotKey, record).then(
      (result: StoreResult) =>
        this.guard(() => {
          this.writing = false;
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
          this.deps.report(new ExchangeReplicaError('ERR_BUS', `writing the snapshot of ${this.key} (S=${loaded.sequence}) failed: ${(error as Error)?.message ?? String(error)}`, { stream: this.key }, { cause: error }));
          // The same snapshot again later, unless a newer one came meanwhile (it stays aligned).
          if (epoch === this.epoch && this.pending === undefined) this.pending = p;
          this.retryAlign();
        }),
    );
  }

  // ---- status ----------------------------------------------------------------

  private refreshStatus(): void {
    if (this.phase === 'closed') return;
    if (this.phase === 'failed') return this.setStatus('failed');
    if (!this.deps.feedOpen() || !this.subscribed) return this.setStatus(this.hadState || this.statusValue === 'stale' ? 'stale' : 'syncing');
    if (this.phase === 'live') return this.setStatus('live');
    this.setStatus(this.hadState ? 'resyncing' : 'syncing');
  }

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
