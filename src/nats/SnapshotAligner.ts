/**
 * The snapshots of one carried stream to the KV bucket (see StreamRelay.ts for the epochs):
 * written on every (re)sync and refreshed every `snapshotRefreshMs` / `snapshotRefreshUpdates`.
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
import type { Clock, Timer } from '../clock';
import { ExchangeReplicaError } from '../errors';
import { CHANNELS, type ChannelName, type Scope } from '../protocol';
import type { LoadedSnapshot, Reducer } from '../replicas';
import type { ResolvedRelayOptions } from './relayOptions';
import { SnapshotWriteSuperseded, type StoreResult } from './SnapshotStore';
import type { EpochHooks, StreamEpoch } from './StreamEpoch';
import type { StreamRelayDeps } from './StreamRelay';
import { BUS_FORMAT_VERSION, type SnapshotRecord } from './wire';

interface PendingSnapshot {
  readonly loaded: LoadedSnapshot;
  readonly epoch: number;
  readonly sinceMs: number;
}

export class SnapshotAligner {
  private pending?: PendingSnapshot;
  private writing = false;
  private loading?: AbortController;
  private refreshTimer?: Timer;
  private alignTimer?: Timer;
  private updatesSinceSnapshot = 0;
  private readonly clock: Clock;
  /** The exchange sequence S of the newest snapshot this relay wrote or found in the KV bucket, null before the first. */
  snapshotSequence: bigint | null = null;
  /** Snapshots written to the KV bucket (for metrics). */
  snapshotWrites = 0;

  constructor(
    private readonly key: string,
    private readonly channel: ChannelName,
    private readonly scope: Scope,
    private readonly subject: string,
    private readonly snapshotKey: string,
    private readonly reducer: Reducer<unknown>,
    private readonly state: StreamEpoch,
    private readonly deps: StreamRelayDeps,
    private readonly options: ResolvedRelayOptions,
    private readonly hooks: EpochHooks,
  ) {
    this.clock = options.clock;
  }

  /** An epoch starts: its updates are counted from 0 (the folded ones first). */
  restartCount(): void {
    this.updatesSinceSnapshot = 0;
  }

  /** The epoch's snapshot, its folded updates published: written once aligned; refreshes scheduled. */
  startEpoch(snapshot: LoadedSnapshot): void {
    this.pending = { loaded: snapshot, epoch: this.state.epoch, sinceMs: this.clock.nowMs() };
    this.align();
    this.scheduleRefresh();
  }

  /** One more update published: a fresh snapshot every `snapshotRefreshUpdates`. */
  counted(): void {
    this.updatesSinceSnapshot++;
    if (this.updatesSinceSnapshot >= this.options.snapshotRefreshUpdates) this.requestRefresh();
  }

  /** The epoch ended: no pending snapshot, no refresh. */
  endEpoch(): void {
    this.pending = undefined;
    this.loading?.abort();
    this.loading = undefined;
    this.refreshTimer?.cancel();
    this.refreshTimer = undefined;
    this.alignTimer?.cancel();
    this.alignTimer = undefined;
  }

  private scheduleRefresh(): void {
    this.refreshTimer?.cancel();
    this.refreshTimer = undefined;
    if (!this.state.live) return;
    this.refreshTimer = this.clock.setTimer(
      () =>
        this.hooks.guard(() => {
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
    if (!this.state.live || this.loading !== undefined || this.writing) return;
    if (this.pending !== undefined) {
      // One is waiting for the replica to reach it (or for its PubAck): not forever, a fresh one replaces it.
      if (this.clock.nowMs() - this.pending.sinceMs < this.options.snapshotAheadMs) return;
      const behind = this.state.tip < this.pending.loaded.sequence;
      this.pending = undefined;
      if (behind) return this.hooks.breakEpoch('snapshot_ahead');
    }
    this.fetchRefresh();
  }


  private fetchRefresh(): void {
    const controller = new AbortController();
    this.loading = controller;
    const epoch = this.state.epoch;
    this.deps.load(controller.signal).then(
      (loaded) =>
        this.hooks.guard(() => {
          if (this.loading !== controller) return;
          this.loading = undefined;
          if (epoch === this.state.epoch) this.onRefreshSnapshot(loaded);
        }),
      (error: unknown) =>
        this.hooks.guard(() => {
          if (this.loading !== controller) return;
          this.loading = undefined;
          if (epoch !== this.state.epoch) return;
          this.deps.report(error);
          this.scheduleRefresh();
        }),
    );
  }


  private onRefreshSnapshot(loaded: LoadedSnapshot): void {
    if (!this.state.live) return;
    if (this.snapshotSequence !== null && loaded.sequence <= this.snapshotSequence) return;
    try {
      // The same check a client makes of a snapshot before it shows it.
      this.reducer.fromSnapshot(loaded.data, this.scope, undefined);
    } catch (error) {
      this.deps.report(error);
      return;
    }
    this.pending = { loaded, epoch: this.state.epoch, sinceMs: this.clock.nowMs() };
    this.align();
  }


  /** Writes the pending snapshot once its `jsStartSeq` is known (see the module comment). */
  align(): void {
    const p = this.pending;
    if (p === undefined || this.writing || this.state.resetPending || p.epoch !== this.state.epoch || !this.state.live || !this.deps.busKnown()) return;
    const S = p.loaded.sequence;
    if (S < this.state.epochStart) {
      this.pending = undefined;
      return;
    }
    const next = this.state.positions.get(S + 1n);
    if (next !== undefined) return this.write(p, next);
    if (this.state.tip !== S) return; // S + 1 awaits its PubAck, or the replica is still below S
    const at = this.state.positions.get(S);
    if (at !== undefined) return this.write(p, at);
    if (S !== this.state.epochStart) return; // S awaits its PubAck
    // Nothing published in this epoch: ask JetStream where the subject stands.
    this.writing = true;
    const epoch = this.state.epoch;
    this.deps.startAfterLast(this.subject, S).then(
      (start) =>
        this.hooks.guard(() => {
          this.writing = false;
          if (epoch !== this.state.epoch || this.pending !== p) return this.align();
          const exact = this.state.positions.get(S + 1n);
          if (exact !== undefined) return this.write(p, exact);
          // Past this relay's last reset: a reader that met it waits for an entry past it.
          if (start !== undefined && this.state.tip === S) return this.write(p, Math.max(start, this.state.resetSeq + 1));
          // The subject already holds updates above S (another relay is ahead): our own
          // publish of S + 1 will tell where it is.
        }),
      (error: unknown) =>
        this.hooks.guard(() => {
          this.writing = false;
          this.deps.report(error);
          this.retryAlign();
        }),
    );
  }


  /** After a failed look-up or write (NATS down?): try the pending snapshot again later. */
  private retryAlign(): void {
    if (this.alignTimer !== undefined || !this.state.live) return;
    this.alignTimer = this.clock.setTimer(
      () =>
        this.hooks.guard(() => {
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
    const epoch = this.state.epoch;
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
    this.deps.store.write(this.snapshotKey, record, () => epoch === this.state.epoch && this.deps.busKnown(), this.state.tip).then(
      (result: StoreResult) =>
        this.hooks.guard(() => {
          this.writing = false;
          if (result.outcome === 'written') this.snapshotWrites++;
          if (this.snapshotSequence === null || result.sequence > this.snapshotSequence) this.snapshotSequence = result.sequence;
          if (epoch !== this.state.epoch) return this.align();
          this.updatesSinceSnapshot = this.state.tip > result.sequence ? Number(this.state.tip - result.sequence) : 0;
          // Positions at or below the entry's S can no longer serve: a snapshot must beat it.
          for (const k of this.state.positions.keys()) {
            if (k > result.sequence) break;
            this.state.positions.delete(k);
          }
          this.align();
        }),
      (error: unknown) =>
        this.hooks.guard(() => {
          this.writing = false;
          // The same snapshot again later, unless a newer one came meanwhile (it stays aligned) or its epoch ended.
          if (epoch === this.state.epoch && this.pending === undefined) this.pending = p;
          // Given up for a NATS drop: held back until the bus is checked (busChecked aligns it).
          if (error instanceof SnapshotWriteSuperseded) return this.align();
          this.deps.report(new ExchangeReplicaError('ERR_BUS', `writing the snapshot of ${this.key} (S=${loaded.sequence}) failed: ${(error as Error)?.message ?? String(error)}`, { stream: this.key }, { cause: error }));
          this.retryAlign();
        }),
    );
  }

}
