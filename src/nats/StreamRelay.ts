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
 * Its publisher (StreamPublisher.ts) publishes the updates in batches and records where
 * each was stored; its aligner (SnapshotAligner.ts) writes the snapshots aligned with them.
 * The epoch ends when the replica stops being live (a resync, a disconnect: StreamSync's
 * triggers) or when the relay cannot carry an update (a failed publish, a full publish queue,
 * an update it cannot encode exactly: the replica is then resynced). Within an epoch the
 * messages of the subject are contiguous, in `seq` order; between two epochs there may be a
 * hole, which a consumer sees as a gap and heals from the KV entry.
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../clock';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { LoadedSnapshot, Reducer, ReplicaState, ResyncTrigger, StatusChange, StreamSync } from '../replicas';
import type { AppliedChange, AppliedHook } from '../replicas/AppliedChange';
import { RESYNC_TRIGGERS } from '../replicas/streamSyncOptions';
import type { BufferedUpdate } from '../replicas/UpdateBuffer';
import { recordOf } from '../util/recordOf';
import type { OrderedPublisher } from './OrderedPublisher';
import type { ResolvedRelayOptions } from './relayOptions';
import { SnapshotAligner } from './SnapshotAligner';
import type { SnapshotStore } from './SnapshotStore';
import { StreamEpoch, type CarryFailure } from './StreamEpoch';
import { StreamPublisher } from './StreamPublisher';
import { snapshotKey, updateSubject, type HeartbeatStream, type RelayStreamStatus } from './wire';

export type { CarryFailure } from './StreamEpoch';

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

/** Why an epoch ended: the replica's resync triggers (but `manual`: the relay's own requests, counted by their reason) and the relay's carry failures. */
export type BreakReason = Exclude<ResyncTrigger, 'manual'> | CarryFailure;

/** A stream's counters beyond its heartbeat's (for metrics). */
export interface StreamRelayStats {
  /** Snapshots this relay wrote to the KV bucket (not those it found already beaten). */
  readonly snapshotWrites: number;
  /** Milliseconds since this relay's last publish was acknowledged, null before the first. */
  readonly msSinceLastPublish: number | null;
}

/** The replica's resync triggers counted as breaks (`manual` is the relay's own request, counted by its reason). */
const REPLICA_BREAKS = RESYNC_TRIGGERS.filter((t): t is Exclude<ResyncTrigger, 'manual'> => t !== 'manual');

export class StreamRelay {
  readonly key: string;
  readonly subject: string;
  readonly snapshotKey: string;
  private readonly clock: Clock;
  private readonly sync: StreamSync<unknown>;
  private statusSubscription?: Subscription;

  private statusValue: RelayStreamStatus = 'syncing';
  /** The epoch, shared with the publisher and the aligner. */
  private readonly state = new StreamEpoch();
  private readonly publisher: StreamPublisher;
  private readonly aligner: SnapshotAligner;
  // counters for heartbeats (the publisher's and the aligner's besides)
  private syncs = 0;
  private readonly carryFailures: Record<CarryFailure, number> = { publish_failed: 0, backpressure: 0, encode: 0, snapshot_ahead: 0, bus_reset: 0, duplicate_conflict: 0 };

  constructor(
    readonly channel: ChannelName,
    readonly scope: Scope,
    reducer: Reducer<unknown>,
    private readonly deps: StreamRelayDeps,
    options: ResolvedRelayOptions,
  ) {
    this.key = streamKey(channel, scope);
    this.subject = updateSubject(options.names, channel, scope);
    this.snapshotKey = snapshotKey(channel, scope);
    this.clock = options.clock;
    const hooks = { breakEpoch: (reason: CarryFailure) => this.breakEpoch(reason), guard: (step: () => void) => this.guard(step) };
    this.aligner = new SnapshotAligner(this.key, channel, scope, this.subject, this.snapshotKey, reducer, this.state, deps, options, hooks);
    this.publisher = new StreamPublisher(this.key, channel, this.subject, this.state, deps, options, {
      ...hooks,
      countFailure: (reason) => this.carryFailures[reason]++,
      align: () => this.aligner.align(),
    });
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
    const p = this.publisher;
    return {
      streamKey: this.key,
      channel: this.channel,
      scope: this.scope,
      subject: this.subject,
      snapshotKey: this.snapshotKey,
      status: this.statusValue,
      publishedSeq: p.publishedSeq,
      snapshotSequence: this.aligner.snapshotSequence,
      published: p.published,
      duplicates: p.duplicates,
      messages: p.messages,
      syncs: this.syncs,
    };
  }

  /** What the metrics add to {@link describe}: snapshots written to the KV bucket, ms since the last PubAck (null before the first). */
  stats(): StreamRelayStats {
    const lastAckMs = this.publisher.lastAckMs;
    return { snapshotWrites: this.aligner.snapshotWrites, msSinceLastPublish: lastAckMs === null ? null : Math.max(0, this.clock.nowMs() - lastAckMs) };
  }

  /** Starts the replica (it subscribes to the exchange stream and fetches its snapshot). */
  start(): this {
    if (this.state.closed || this.statusSubscription !== undefined) return this;
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
    if (this.state.closed) return;
    if (!recreated) return this.guard(() => this.aligner.align());
    // Nothing this relay wrote is on the new bucket: the next snapshot must be written, whatever its S.
    this.aligner.snapshotSequence = null;
    this.breakEpoch('bus_reset');
  }

  close(): void {
    if (this.state.closed) return;
    this.state.closed = true;
    this.endEpoch();
    this.publisher.close();
    this.statusSubscription?.unsubscribe();
    this.sync.close();
  }

  // ---- what the replica applied ----------------------------------------------

  private onReplicaStatus(change: StatusChange): void {
    if (this.state.closed) return;
    // Leaving live ends the epoch (a resync, a disconnect); a new one starts with the next state built from a snapshot.
    if (change.to !== 'live') this.endEpoch();
    this.setStatus(change.to);
  }

  private onApplied(emission: ReplicaState<unknown>, applied: AppliedChange): void {
    if (this.state.closed) return;
    switch (applied.cause) {
      case 'snapshot':
        return this.startEpoch(applied.snapshot, applied.folded, emission.seq);
      case 'update':
        if (!this.state.live) return; // the epoch was given up (a carry failure): the replica resyncs
        this.state.tip = applied.update.seq;
        return this.publish(applied.update);
      default:
        return;
    }
  }

  /** The replica showed a state built from `snapshot` with `folded` on it: publish them, and write the snapshot once aligned. */
  private startEpoch(snapshot: LoadedSnapshot, folded: readonly BufferedUpdate[], seq: bigint): void {
    this.endEpoch();
    const state = this.state;
    state.live = true;
    state.epochStart = snapshot.sequence;
    state.tip = seq;
    this.syncs++;
    this.aligner.restartCount();
    for (const u of folded) {
      if (!state.live) return;
      this.publish(u);
    }
    if (!state.live) return;
    this.aligner.startEpoch(snapshot);
  }

  /** Adds an update to this turn's batch; counted for the snapshot refreshes. */
  private publish(u: BufferedUpdate): void {
    if (this.publisher.add(u)) this.aligner.counted();
  }

  /** No epoch: no pending snapshot, no positions, no refresh; publishes of the old epoch not yet sent are dropped by the publisher. */
  private endEpoch(): void {
    this.state.epoch++;
    this.state.live = false;
    // Updates of the ended epoch not handed to the publisher yet are dropped with it.
    this.publisher.dropBatch();
    this.state.positions.clear();
    this.aligner.endEpoch();
  }

  /** The relay cannot carry what the replica applied: the epoch ends and the replica is rebuilt from a fresh snapshot. */
  private breakEpoch(reason: CarryFailure): void {
    if (!this.state.live) return;
    this.carryFailures[reason]++;
    this.endEpoch();
    this.sync.resync(`the relay could not carry an update (${reason})`);
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
