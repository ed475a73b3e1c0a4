/**
 * The sync algorithm of streaming-protocol.md section 5, written once for every reducer and
 * every source (`ReplicaSource`): on `subscribed`, buffer updates; request a snapshot with
 * its sequence S; drop buffered updates with `seq <= S`; the next must be S + 1 (else fetch
 * again); build a NEW state from the snapshot, fold the buffered updates into it, and only
 * then show it (status `live`). While live, each update must be the previous `seq` + 1:
 * anything else (a jump, a repeat, a regression such as a numbering that restarted) resyncs;
 * nothing is dropped silently.
 *
 * A snapshot AHEAD of the stream (its sequence above every update received: REST answered
 * before the socket delivered, or a server whose REST and feed disagree) is held, not shown
 * as live, until the stream reaches it; if it does not within `snapshotAheadMs`, it is
 * reported (`ERR_SNAPSHOT_AHEAD`) and fetched again with backoff.
 *
 * Resync triggers (each counted, each a transition code): `resync_required` from the source,
 * a `seq` jump or regression seen here, a snapshot the stream never caught up with,
 * `disconnected` (status `stale` until the next `subscribed`), a reducer integrity error,
 * and the liveness window (no update for `livenessMs` while subscribed). Snapshot requests
 * are rate-limited per stream (`resyncBurst`, `resyncRefillMs`).
 *
 * One state variable: the `ReplicaStateMachine`; the public status is derived
 * from it. Each state owns at most one timer (`timer`: the catch-up bound, or the
 * resubscribe delay), the liveness window runs in `live`, and the snapshot request
 * (`SnapshotLoader`) in `syncing`/`resyncing`: `stopWork()` ends all of them.
 */
import type { Observable, Unsubscribable } from 'rxjs';
import { Backoff, type Clock, type Timer } from '../clock';
import { AbortedError, BufferOverflowError, ExchangeReplicaError, RequestTimeoutError } from '../errors';
import { asExchangeReplicaError } from '../errors/asExchangeReplicaError';
import { messageOf } from '../errors/messageOf';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { AppliedChange, AppliedHook } from './AppliedChange';
import { buildFromSnapshot, foldUpdates, type BuiltState } from './buildState';
import { LivenessWatch } from './LivenessWatch';
import type { Reducer } from './Reducer';
import type { ReplicaSource, SourceEvent, SourceSink, SourceUpdate } from './ReplicaSource';
import { ReplicaEmission } from './ReplicaEmission';
import type { EmissionCause, ReplicaState } from './ReplicaState';
import { ResyncLimiter } from './ResyncLimiter';
import { ResyncScheduler } from './ResyncScheduler';
import type { LoadedSnapshot } from './SnapshotFetcher';
import { SnapshotAheadError } from './SnapshotError';
import { isPermanentSnapshotFailure, SnapshotLoader } from './SnapshotLoader';
import { ReplicaStateMachine, type SyncState } from './ReplicaStateMachine';
import type { ReplicaStatus, StatusChange } from './ReplicaStatus';
import type { ReplicaTransitionCode } from './statusCodes';
import { emptyResyncCounts, resolveStreamSyncOptions, type ResolvedStreamSyncOptions, type ResyncTrigger, type StreamSyncConfig, type StreamSyncOptions, type UpdateTimer } from './streamSyncOptions';
import { UpdateBuffer } from './UpdateBuffer';
import { Multicast } from '../util/Multicast';

export { RESYNC_TRIGGERS, DEFAULT_LIVENESS_MS, type ResyncTrigger, type StreamSyncConfig, type StreamSyncOptions, type UpdateTimer } from './streamSyncOptions';

/** First wait (ms) before refetching a snapshot that stayed ahead of the stream; doubles per consecutive time, up to `retryAfterMs`. */
const AHEAD_BACKOFF_BASE_MS = 250;

/**
 * @example
 * const sync = new StreamSync({ channel: 'bbo', scope, reducer: bboReducer, source, scheduler }).start();
 * sync.states$.subscribe(({ status, state }) => render(status, state));
 * sync.status$.subscribe(({ to, code }) => log(to, code));
 */
export class StreamSync<S> {
  /** Canonical stream key (`streamKey(channel, scope)`). */
  readonly key: string;
  /** Latest emission, replayed to late subscribers (conflated: only the latest is held). Completes on `close()`. */
  readonly states$: Observable<ReplicaState<S>>;
  /** Every status transition, with its code. Completes on `close()`. */
  readonly status$: Observable<StatusChange>;

  private readonly channel: ChannelName;
  private readonly scope: Scope;
  private readonly reducer: Reducer<S>;
  private readonly source: ReplicaSource;
  /** What this replica is to its source: one object for its whole life (no closure per event). */
  private readonly listener: SourceSink;
  private readonly loader: SnapshotLoader<BuiltState<S>>;
  private readonly options: ResolvedStreamSyncOptions;
  private readonly clock: Clock;
  private readonly liveness: LivenessWatch;
  /** Waits before refetching a snapshot that stayed ahead (reset when a state is shown). */
  private readonly aheadBackoff: Backoff;
  /** Told what each emission applied (internal: the NATS relay); undefined costs nothing. */
  private readonly onApplied?: AppliedHook<S>;
  private readonly updateTimer?: UpdateTimer;

  private readonly machine = new ReplicaStateMachine('idle');
  /** The emissions, the latest one replayed to a new subscriber. */
  private readonly emissions = new Multicast<ReplicaState<S>>(true);
  private readonly buffer: UpdateBuffer<SourceUpdate>;
  private readonly counts = emptyResyncCounts();
  private subscription?: Unsubscribable;
  /** The timer of the current state: the catch-up bound (`*_ahead`) or the resubscribe delay. */
  private timer?: Timer;
  private closed = false;
  private hasState = false;
  private state!: S;
  private seq = 0n;
  /** The seq of the last update the stream delivered since it was (re)subscribed; undefined when none. */
  private streamSeq?: bigint;
  /** The id of the last `subscribed` (the source is told which of its readers asks for a snapshot). */
  private subscriptionId?: string;
  private timestampNs = 0n;
  private receivedAtNs = 0n;
  private snapshotId = 0;
  /** The state built from a snapshot ahead of the stream, while catching up (`*_ahead`). */
  private held?: BuiltState<S>;
  private heldNewestSeq = 0n;
  /** The snapshot the state shown was built from (for the applied hook). */
  private shownSnapshot?: LoadedSnapshot;

  /** @throws InvalidParameterError for an invalid option (see resolveStreamSyncOptions). */
  constructor(config: StreamSyncConfig<S>, options: StreamSyncOptions = {}) {
    this.channel = config.channel;
    this.scope = config.scope;
    this.reducer = config.reducer;
    this.onApplied = config.onApplied;
    this.updateTimer = config.timer;
    this.key = streamKey(config.channel, config.scope);
    this.options = resolveStreamSyncOptions(config.channel, options);
    const source = config.source;
    this.source = source;
    this.listener = {
      // Inline rather than `guard`: no closure per event on the hot path.
      next: (event) => {
        try {
          this.onEvent(event);
        } catch (error) {
          this.report(error);
        }
      },
      error: (error) => this.guard(() => this.onStreamError(error)),
      complete: () => this.guard(() => this.onComplete()),
    };
    this.clock = this.options.clock;
    this.buffer = new UpdateBuffer<SourceUpdate>(this.options.maxBufferedUpdates, this.options.maxBufferedBytes);
    const limiter = new ResyncLimiter(this.options.resyncBurst, this.options.resyncRefillMs, this.clock);
    this.loader = new SnapshotLoader(
      {
        attempt: (signal) => this.loadAndBuild(signal),
        onResult: (built) => this.guard(() => this.commit(built)),
        onFailure: (error) => this.guard(() => this.onSnapshotFailed(error)),
      },
      config.scheduler ?? new ResyncScheduler(),
      limiter,
      this.clock,
      this.options.random,
    );
    const maxAheadMs = this.options.retryAfterMs;
    this.aheadBackoff = new Backoff({ initialDelayMs: Math.min(AHEAD_BACKOFF_BASE_MS, maxAheadMs), maxDelayMs: maxAheadMs, factor: 2, jitter: 0, retries: Number.POSITIVE_INFINITY });
    this.liveness = new LivenessWatch(this.options.livenessMs, this.clock, (idle) =>
      this.guard(() => {
        if (this.isLive()) this.startResync('liveness', `no update for ${idle} ms`);
      }),
    );
    this.states$ = this.emissions.observable;
    this.status$ = this.machine.changes$;
  }

  get status(): ReplicaStatus {
    return this.machine.status;
  }

  /** The latest emission, undefined before the first snapshot. */
  get latest(): ReplicaState<S> | undefined {
    return this.emissions.latest;
  }

  /** Resyncs started, by trigger (for soak reports). */
  get resyncCounts(): Readonly<Record<ResyncTrigger, number>> {
    return { ...this.counts };
  }

  /** Subscribes to the source's stream. Idempotent. */
  start(): this {
    if (this.subscription || this.closed) return this;
    this.subscribeStream();
    return this;
  }

  /** Rebuilds the replica from a fresh snapshot (counted as `manual`). No effect unless live or catching up. */
  resync(reason = 'requested by the caller'): void {
    if (!this.closed && (this.isLive() || this.isAhead())) this.startResync('manual', reason);
  }

  /** Unsubscribes from the source, cancels any snapshot request and timer, completes the observables. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.subscription?.unsubscribe();
    this.stopWork();
    this.machine.complete();
    this.emissions.complete();
  }

  private subscribeStream(): void {
    const subscription = { unsubscribe: noop };
    this.subscription = subscription;
    // Set before the call: a source may deliver (and even end the stream) synchronously.
    subscription.unsubscribe = this.source.subscribe(this.channel, this.scope, this.listener);
  }

  private isLive(): boolean {
    const s = this.machine.state;
    return s === 'live' || s === 'live_unconfirmed';
  }

  private isAhead(): boolean {
    const s = this.machine.state;
    return s === 'syncing_ahead' || s === 'resyncing_ahead';
  }

  /** Where a (re)sync goes: `resyncing` when a state is shown, else `syncing`. */
  private loading(): SyncState {
    return this.hasState ? 'resyncing' : 'syncing';
  }

  private onEvent(event: SourceEvent): void {
    if (this.closed || this.machine.state === 'failed') return;
    switch (event.kind) {
      case 'subscribed':
        return this.onSubscribed(event.subscriptionId, event.generation);
      case 'update':
        return this.onUpdate(event);
      case 'resync_required':
        // While a snapshot is on its way too: it may have been taken before the skipped
        // updates, and on a quiet stream no later update would show it.
        if (this.machine.state !== 'idle' && this.machine.state !== 'stale') this.startResync('resync_required', `the source skipped updates (${event.reason})`);
        return;
      case 'disconnected':
        return this.onDisconnected(event.reason);
    }
  }

  private onSubscribed(subscriptionId: string, generation: number): void {
    this.subscriptionId = subscriptionId;
    const resubscribed = this.isLive();
    if (resubscribed) this.counts.resubscribed++;
    this.stopWork();
    this.buffer.clear();
    this.streamSeq = undefined;
    this.toState(this.loading(), resubscribed ? 'resubscribed' : 'subscribed', `subscribed (subscription ${subscriptionId}, generation ${generation})`);
    this.requestSnapshot();
  }

  private onUpdate(update: SourceUpdate): void {
    this.liveness.touch();
    this.updateTimer?.record(update.timestampNs, update.receivedAtNs);
    const onLatency = this.options.onLatency;
    if (onLatency) this.guard(() => onLatency(this.key, update.receivedAtNs - update.timestampNs));
    const previous = this.streamSeq;
    this.streamSeq = update.seq;
    switch (this.machine.state) {
      case 'live':
        return this.onLiveUpdate(update);
      case 'syncing':
      case 'resyncing':
        return this.onLoadingUpdate(update, previous);
      case 'live_unconfirmed':
        if (previous !== undefined && update.seq <= previous) return this.onStreamRegressed(update, previous);
        return this.onUnconfirmedUpdate(update);
      case 'syncing_ahead':
      case 'resyncing_ahead':
        if (previous !== undefined && update.seq <= previous) return this.onStreamRegressed(update, previous);
        return this.onCatchUpUpdate(update);
      default:
        return; // not subscribed
    }
  }

  /**
   * A snapshot is on its way: the update is held for it. The held updates must run one
   * numbering without a hole, or the fold could take an update of another numbering as
   * S + 1: a regression (a repeat, or a numbering that restarted) makes every held update
   * and the request on its way worthless (either may be in the old numbering), so the sync
   * starts again from this update; a jump makes the held updates below it useless (any
   * snapshot that can follow the jump includes them), and the fold refuses a snapshot below it.
   */
  private onLoadingUpdate(update: SourceUpdate, previous: bigint | undefined): void {
    if (previous !== undefined && update.seq <= previous) return this.onStreamRegressed(update, previous);
    if (previous !== undefined && update.seq !== previous + 1n) this.buffer.clear();
    this.pushBuffered(update);
  }

  /** Holds an update for the snapshot on its way; the first one dropped for room is reported (the alignment check copes with the loss). */
  private pushBuffered(update: SourceUpdate): void {
    if (!this.buffer.push(update)) return;
    const { capacity, maxBytes } = this.buffer;
    this.report(new BufferOverflowError(`${this.key}: updates held while the snapshot is on its way passed ${capacity} updates or ${maxBytes} bytes (maxBufferedUpdates, maxBufferedBytes): the oldest were dropped, a snapshot that reaches the oldest kept is needed`, this.errorContext()));
  }

  /** The stream went back (a repeat, or a numbering that restarted): nothing held or on its way can be trusted; resync from this update on. */
  private onStreamRegressed(update: SourceUpdate, previous: bigint): void {
    this.startResync('seq_regression', `seq went back from ${previous} to ${update.seq} (a repeat, or a numbering that restarted)`);
    this.pushBuffered(update);
  }

  /** While live, only `seq + 1` applies; anything else resyncs (the update is kept for the new snapshot). */
  private onLiveUpdate(update: SourceUpdate): void {
    if (update.seq === this.seq + 1n) return this.applyLive(update);
    if (update.seq <= this.seq) {
      this.startResync('seq_regression', `seq went back from ${this.seq} to ${update.seq} (a repeat, or a numbering that restarted)`);
    } else {
      this.startResync('seq_jump', `seq jumped from ${this.seq} to ${update.seq}`);
    }
    this.pushBuffered(update);
  }

  /**
   * Live from a snapshot no update reached yet: the stream's copy of the snapshot's last
   * update confirms it. An update below it is ambiguous: the stream may be behind the
   * snapshot, or its numbering may have restarted (the snapshot then belongs to the old
   * one); waiting for the stream to reach the snapshot would show an old-numbering state as
   * live in the second case, so a new snapshot is fetched, in the stream's numbering now.
   */
  private onUnconfirmedUpdate(update: SourceUpdate): void {
    if (update.seq === this.seq + 1n) return this.applyLive(update);
    if (update.seq === this.seq) {
      this.toState('live', 'caught_up', `the stream reached snapshot ${this.seq}`);
      return;
    }
    if (update.seq < this.seq) {
      this.startResync('snapshot_ahead', `the stream (at seq ${update.seq}) is below snapshot ${this.seq} shown: behind it, or a numbering that restarted`);
    } else {
      this.startResync('seq_jump', `seq jumped from ${this.seq} to ${update.seq}`);
    }
    this.pushBuffered(update);
  }

  private applyLive(update: SourceUpdate): void {
    let next: S;
    try {
      next = this.reducer.apply(this.state, update.data, update.seq);
    } catch (error) {
      this.report(error);
      this.startResync('integrity', `update ${update.seq} rejected: ${messageOf(error)}`);
      // The fresh snapshot may predate this update: keep it to fold in after the snapshot.
      this.pushBuffered(update);
      return;
    }
    this.state = next;
    this.seq = update.seq;
    this.timestampNs = update.timestampNs;
    this.receivedAtNs = update.receivedAtNs;
    if (this.machine.state !== 'live') this.toState('live', 'caught_up', `the stream reached snapshot ${update.seq - 1n}`);
    this.emit('update', update);
  }

  /** A built state waits for the stream to reach its sequence; updates it already includes are skipped. */
  private onCatchUpUpdate(update: SourceUpdate): void {
    const held = this.held!;
    if (update.seq < held.seq) {
      if (update.seq > this.heldNewestSeq) this.heldNewestSeq = update.seq;
      return;
    }
    if (update.seq === held.seq) return this.show(held, 'caught_up', `the stream caught up with snapshot ${held.snapshotSequence}`);
    if (update.seq !== held.seq + 1n) {
      this.startResync('seq_jump', `seq jumped from ${held.seq} to ${update.seq} while catching up with snapshot ${held.snapshotSequence}`);
      this.pushBuffered(update);
      return;
    }
    let ready: BuiltState<S>;
    try {
      ready = foldUpdates(this.reducer, held, [update], this.errorContext());
    } catch (error) {
      this.report(error);
      this.startResync('integrity', `update ${update.seq} rejected: ${messageOf(error)}`);
      this.pushBuffered(update);
      return;
    }
    this.show(ready, 'caught_up', `the stream caught up with snapshot ${held.snapshotSequence}`);
  }

  private holdUntilCaughtUp(held: BuiltState<S>, newestSeq: bigint, code: ReplicaTransitionCode, reason: string): void {
    this.cancelTimer();
    this.toState(this.hasState ? 'resyncing_ahead' : 'syncing_ahead', code, reason);
    this.held = held;
    this.heldNewestSeq = newestSeq;
    this.timer = this.clock.setTimer(() => this.guard(() => this.onSnapshotStayedAhead()), this.options.snapshotAheadMs, { unref: true });
  }

  private onSnapshotStayedAhead(): void {
    this.timer = undefined;
    const held = this.held;
    if (!this.isAhead() || held === undefined) return;
    this.report(new SnapshotAheadError(held.snapshotSequence, this.heldNewestSeq, this.options.snapshotAheadMs, this.errorContext()));
    const backoffMs = this.aheadBackoff.next() ?? this.options.retryAfterMs;
    this.startResync('snapshot_ahead', `snapshot ${held.snapshotSequence} stayed ahead of the stream (newest seq ${this.heldNewestSeq}) for ${this.options.snapshotAheadMs} ms`, backoffMs > 0 ? backoffMs : undefined);
  }

  private onDisconnected(reason: string): void {
    this.stopWork();
    this.buffer.clear();
    this.streamSeq = undefined;
    if (this.machine.state !== 'stale') this.counts.disconnected++;
    this.toState('stale', 'disconnected', `disconnected: ${reason}`);
  }

  private onComplete(): void {
    if (this.machine.state === 'failed') return;
    this.stopWork();
    this.buffer.clear();
    this.toState('stale', 'stream_ended', 'the stream ended');
  }

  /**
   * The source's stream ended with an error. A subscribe that got no answer in time (a
   * stalled or overloaded connection) is transient: the replica goes stale (when it has a
   * state) and subscribes again after `retryAfterMs`. Anything else (refused scope, feed
   * unavailable, client closed) is final.
   */
  private onStreamError(error: unknown): void {
    if (!(error instanceof RequestTimeoutError)) {
      this.fail('failed_subscription', `subscription failed: ${messageOf(error)}`, error);
      return;
    }
    this.report(error);
    this.stopWork();
    this.buffer.clear();
    this.subscription = undefined;
    const next = this.hasState || this.machine.state === 'stale' ? 'stale' : 'idle';
    this.toState(next, 'subscribe_timeout', `subscribe timed out, retrying in ${this.options.retryAfterMs} ms: ${messageOf(error)}`);
    this.timer = this.clock.setTimer(
      () =>
        this.guard(() => {
          this.timer = undefined;
          if (!this.closed && this.subscription === undefined && this.machine.state !== 'failed') this.subscribeStream();
        }),
      this.options.retryAfterMs,
      { unref: true },
    );
  }

  private startResync(trigger: ResyncTrigger, reason: string, delayMs?: number): void {
    this.counts[trigger]++;
    this.stopWork();
    this.buffer.clear();
    this.toState(this.loading(), trigger, reason);
    this.requestSnapshot(delayMs);
  }

  /** Asks for a snapshot (after `delayMs` on a timer when given), within the stream's budget (see SnapshotLoader). */
  private requestSnapshot(delayMs?: number): void {
    if (!this.closed) this.loader.start(delayMs);
  }

  /**
   * One attempt of the snapshot request: load the snapshot and build a new state from it
   * with the buffered updates. Throws (and is retried) when the snapshot is behind the
   * buffer or the reducer finds it inconsistent. Never touches the shown state; reads the
   * buffer only (another attempt may bring an older snapshot that needs what this one covers).
   */
  private async loadAndBuild(signal: AbortSignal): Promise<BuiltState<S>> {
    const previous = this.hasState ? this.state : undefined;
    const since = previous !== undefined ? this.reducer.snapshotSince?.(previous) : undefined;
    const loaded: LoadedSnapshot = await this.source.snapshot({ channel: this.channel, scope: this.scope, since, subscriptionId: this.subscriptionId, signal });
    const receivedAtNs = this.clock.nowNs();
    if (signal.aborted) throw new AbortedError('the snapshot request was aborted', { stream: this.key });
    return buildFromSnapshot(this.reducer, loaded, this.scope, previous, this.buffer.toArray(), receivedAtNs, this.errorContext(), this.onApplied !== undefined);
  }

  /** A built state arrived: the only place a snapshot becomes visible (through `show`). */
  private commit(built: BuiltState<S>): void {
    const s = this.machine.state;
    if ((s !== 'syncing' && s !== 'resyncing') || this.closed) return;
    const buffered = this.buffer.toArray();
    let ready: BuiltState<S>;
    try {
      // Updates that arrived after the attempt was built.
      ready = foldUpdates(this.reducer, built, buffered, this.errorContext());
    } catch (error) {
      this.report(error);
      this.requestSnapshot();
      return;
    }
    this.buffer.clear();
    const newest = newestSeq(buffered);
    // The stream is seen behind the snapshot: hold it until the stream reaches it.
    if (newest !== undefined && newest < ready.seq) {
      return this.holdUntilCaughtUp(ready, newest, 'snapshot_applied', `snapshot ${ready.snapshotSequence} is ahead of the stream (at seq ${newest}): waiting for it to catch up`);
    }
    // No update seen at all (a quiet stream): shown at once, as the contract allows; watched until one arrives.
    this.show(ready, 'snapshot_applied', `snapshot ${ready.snapshotSequence} applied`, newest !== undefined);
  }

  /** Shows a state that follows the stream: the only place a status becomes `live`. */
  private show(ready: BuiltState<S>, code: ReplicaTransitionCode, reason: string, confirmed = true): void {
    this.cancelTimer();
    this.held = undefined;
    this.aheadBackoff.reset();
    if (!this.hasState || ready.state !== this.state) this.snapshotId++;
    this.state = ready.state;
    this.shownSnapshot = this.onApplied !== undefined ? ready.snapshot : undefined; // kept only for the hook (no data retained otherwise)
    this.hasState = true;
    this.seq = ready.seq;
    this.timestampNs = ready.timestampNs;
    this.receivedAtNs = ready.receivedAtNs;
    this.machine.moveTo(confirmed ? 'live' : 'live_unconfirmed', code, `${reason} (snapshot #${this.snapshotId}, now at seq ${ready.seq})`);
    // Armed before the emission: a subscriber or the applied hook may resync at once (which stops it).
    this.liveness.arm();
    this.emit('snapshot', undefined, ready);
  }

  private onSnapshotFailed(error: unknown): void {
    const s = this.machine.state;
    if ((s !== 'syncing' && s !== 'resyncing') || this.closed) return;
    if (isPermanentSnapshotFailure(error)) {
      this.fail('failed_snapshot', `the snapshot cannot be had: ${messageOf(error)}`, error);
      return;
    }
    this.report(error);
    // A 429/503 that said how long to wait is honoured, up to maxRetryAfterMs.
    const asked = Math.min((error instanceof ExchangeReplicaError ? error.context.retryAfterMs : undefined) ?? 0, this.options.maxRetryAfterMs);
    this.requestSnapshot(Math.max(this.options.retryAfterMs, asked));
  }

  /**
   * Terminal: emits the `failed` status (on `states$` when a state was shown), then errors
   * `states$` with the cause, so that a subscriber learns of it even before any snapshot
   * (e.g. a feed that answered FEED_UNAVAILABLE) and no observable waits forever.
   */
  private fail(code: ReplicaTransitionCode, reason: string, error: unknown): void {
    if (this.machine.state === 'failed') return;
    this.report(error);
    this.stopWork();
    this.buffer.clear();
    this.subscription?.unsubscribe();
    this.toState('failed', code, reason);
    this.emissions.error(asExchangeReplicaError(error, `${this.key}: ${reason}`, this.errorContext()));
  }

  /** Ends the work of the current state: the snapshot request, the state's timer, the liveness window, a held state. */
  private stopWork(): void {
    this.liveness.stop();
    this.loader.cancel();
    this.cancelTimer();
    this.held = undefined;
  }

  private cancelTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private errorContext() {
    return { stream: this.key, channel: this.channel };
  }

  /** Moves the machine; a public status change is also emitted on `states$` (cause `status`). */
  private toState(next: SyncState, code: ReplicaTransitionCode, reason: string): void {
    if (this.machine.moveTo(next, code, reason)) this.emit('status');
  }

  /** `update` / `built`: what was applied, for the applied hook (an update while live; a state built from a snapshot). */
  private emit(cause: EmissionCause, update?: SourceUpdate, built?: BuiltState<S>): void {
    if (!this.hasState) return;
    const emission: ReplicaState<S> = new ReplicaEmission(this.machine.status, this.machine.code, this.state, this.seq, this.timestampNs, this.receivedAtNs, this.snapshotId, cause);
    this.emissions.next(emission);
    const onApplied = this.onApplied;
    if (onApplied !== undefined) this.tellApplied(onApplied, emission, update, built);
  }

  /** Tells the applied hook what the emission applied; what it throws is reported. */
  private tellApplied(onApplied: AppliedHook<S>, emission: ReplicaState<S>, update: SourceUpdate | undefined, built: BuiltState<S> | undefined): void {
    let applied: AppliedChange;
    if (update !== undefined) applied = { cause: 'update', update };
    else if (built?.snapshot !== undefined) applied = { cause: 'snapshot', snapshot: built.snapshot, folded: built.folded ?? [] };
    else applied = { cause: 'status' };
    try {
      onApplied(emission, applied);
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    const onError = this.options.onError;
    if (!onError || error instanceof AbortedError) return;
    try {
      onError(error);
    } catch {
      // A failing error hook must not take the replica down.
    }
  }

  /** Runs a step; an unexpected exception is reported instead of escaping into RxJS or a timer. */
  private guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.report(error);
    }
  }
}

function noop(): void {}

function newestSeq(updates: readonly SourceUpdate[]): bigint | undefined {
  let newest: bigint | undefined;
  for (const u of updates) if (newest === undefined || u.seq > newest) newest = u.seq;
  return newest;
}
