/**
 * The sync algorithm of streaming-protocol.md section 5, written once for every reducer:
 * on `subscribed`, buffer updates; fetch the REST snapshot (through the resync scheduler)
 * with its sequence S; drop buffered updates with `seq <= S`; the next must be S + 1 (else
 * fetch again); build a NEW state from the snapshot, fold the buffered updates into it, and
 * only then show it (status `live`). While live, each update must be the previous `seq` + 1:
 * anything else (a jump, a repeat, a regression such as a numbering that restarted) resyncs;
 * nothing is dropped silently.
 *
 * A snapshot AHEAD of the stream (its sequence above every update received: REST answered
 * before the socket delivered, or a server whose REST and feed disagree) is held, not shown
 * as live, until the stream reaches it; if it does not within `snapshotAheadMs`, it is
 * reported (`ERR_SNAPSHOT_AHEAD`) and fetched again with backoff.
 *
 * Resync triggers (each counted): `resync_required` from the server, a `seq` jump or
 * regression seen here, a snapshot the stream never caught up with, `disconnected` (status
 * `stale` until the next `subscribed`), a reducer integrity error, and the liveness window
 * (no update for `livenessMs` while subscribed). Snapshot requests are rate-limited per
 * stream (`resyncBurst`, `resyncRefillMs`).
 */
import { ReplaySubject, type Observable, type Subscription } from 'rxjs';
import { AbortedError, ExchangeReplicaError, RequestTimeoutError } from '../errors';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { RouterEvent } from '../router/RouterEvent';
import { buildFromSnapshot, foldUpdates, type BuiltState } from './buildState';
import { LivenessWatch } from './LivenessWatch';
import type { Reducer } from './Reducer';
import type { EmissionCause, ReplicaState } from './ReplicaState';
import { isPermanentSnapshotFailure } from './resyncScheduler';
import type { LoadedSnapshot, SnapshotFetcher } from './SnapshotFetcher';
import { SnapshotRequester } from './SnapshotRequester';
import { loadSinglePage } from './snapshotLoaders';
import { ResyncLimiter } from './ResyncLimiter';
import { SnapshotAheadError } from './SnapshotError';
import { ReplicaStatusMachine, type ReplicaStatus, type StatusChange } from './status';
import { emptyResyncCounts, resolveStreamSyncOptions, type ResolvedStreamSyncOptions, type ResyncTrigger, type StreamSyncConfig, type StreamSyncOptions } from './streamSyncOptions';
import { UpdateBuffer } from './UpdateBuffer';

export { RESYNC_TRIGGERS, DEFAULT_LIVENESS_MS, type ResyncTrigger, type StreamSyncConfig, type StreamSyncOptions } from './streamSyncOptions';

/** idle: not subscribed; buffering: a snapshot is on its way; catching_up: a built state waits for the stream to reach its sequence; live. */
type Phase = 'idle' | 'buffering' | 'catching_up' | 'live';

/** Longest wait (ms) before refetching a snapshot that stayed ahead of the stream, doubling from 250 ms per consecutive time. */
const AHEAD_BACKOFF_BASE_MS = 250;
type UpdateEvent = Extract<RouterEvent, { kind: 'update' }>;

let instances = 0;

/**
 * @example
 * const sync = new StreamSync({ channel: 'bbo', scope, reducer: bboReducer, events: router.stream('bbo', scope), fetch, scheduler }).start();
 * sync.states$.subscribe(({ status, state }) => render(status, state));
 */
export class StreamSync<S> {
  /** Canonical stream key (`streamKey(channel, scope)`). */
  readonly key: string;
  /** Latest emission, replayed to late subscribers (conflated: only the latest is held). Completes on `close()`. */
  readonly states$: Observable<ReplicaState<S>>;
  /** Every status transition. Completes on `close()`. */
  readonly status$: Observable<StatusChange>;

  private readonly channel: ChannelName;
  private readonly scope: Scope;
  private readonly reducer: Reducer<S>;
  private readonly events: Observable<RouterEvent>;
  private readonly fetch: SnapshotFetcher;
  private readonly snapshots: SnapshotRequester<BuiltState<S>>;
  private readonly options: ResolvedStreamSyncOptions;
  private readonly liveness: LivenessWatch;
  private readonly limiter: ResyncLimiter;

  private readonly machine = new ReplicaStatusMachine('syncing');
  private readonly subject = new ReplaySubject<ReplicaState<S>>(1);
  private readonly buffer: UpdateBuffer<UpdateEvent>;
  private readonly counts = emptyResyncCounts();
  private phase: Phase = 'idle';
  private subscription?: Subscription;
  private closed = false;
  private hasState = false;
  private state!: S;
  private seq = 0n;
  private timestampNs = 0n;
  private receivedAtNs = 0n;
  private snapshotId = 0;
  private latestEmission?: ReplicaState<S>;
  /** False after a snapshot was shown while no update at or above its sequence had been seen: the stream may still be behind it. */
  private streamReachedSnapshot = true;
  /** The state built from a snapshot ahead of the stream, while catching up. */
  private held?: BuiltState<S>;
  private heldNewestSeq = 0n;
  private aheadTimer?: ReturnType<typeof setTimeout>;
  /** Consecutive snapshots that stayed ahead of the stream (the refetch backs off). */
  private aheadCount = 0;

  /** @throws InvalidParameterError for an invalid option (see resolveStreamSyncOptions). */
  constructor(config: StreamSyncConfig<S>, options: StreamSyncOptions = {}) {
    this.channel = config.channel;
    this.scope = config.scope;
    this.reducer = config.reducer;
    this.events = config.events;
    this.fetch = config.fetch;
    this.key = streamKey(config.channel, config.scope);
    // One scheduler key per instance: a snapshot load may depend on this replica's own past (event watermarks).
    this.snapshots = new SnapshotRequester(config.scheduler, `${this.key}#${++instances}`, {
      job: (signal) => this.loadAndBuild(signal),
      onResult: (built) => this.guard(() => this.commit(built)),
      onFailure: (error) => this.guard(() => this.onSnapshotFailed(error)),
    });
    this.options = resolveStreamSyncOptions(config.channel, options);
    this.buffer = new UpdateBuffer<UpdateEvent>(this.options.maxBufferedUpdates);
    this.limiter = new ResyncLimiter(this.options.resyncBurst, this.options.resyncRefillMs, this.options.nowMs);
    this.liveness = new LivenessWatch(this.options.livenessMs, this.options.nowMs, (idle) =>
      this.guard(() => {
        if (this.phase === 'live') this.startResync('liveness', `no update for ${idle} ms`);
      }),
    );
    this.states$ = this.subject.asObservable();
    this.status$ = this.machine.changes$;
  }

  get status(): ReplicaStatus {
    return this.machine.status;
  }

  /** The latest emission, undefined before the first snapshot. */
  get latest(): ReplicaState<S> | undefined {
    return this.latestEmission;
  }

  /** Resyncs started, by trigger (for soak reports). */
  get resyncCounts(): Readonly<Record<ResyncTrigger, number>> {
    return { ...this.counts };
  }

  /** Updates dropped because the buffer was full while waiting for a snapshot. */
  get droppedBufferedUpdates(): number {
    return this.buffer.dropped;
  }

  /** Subscribes to the router stream. Idempotent. */
  start(): this {
    if (this.subscription || this.closed) return this;
    this.subscribeStream();
    return this;
  }

  private subscribeStream(): void {
    this.subscription = this.events.subscribe({
      next: (event) => this.guard(() => this.onEvent(event)),
      error: (error) => this.guard(() => this.onStreamError(error)),
      complete: () => this.guard(() => this.onComplete()),
    });
  }

  /**
   * The router stream ended with an error. A subscribe that got no answer in time (a stalled
   * or overloaded connection) is transient: the replica goes stale and subscribes again after
   * `retryAfterMs`. Anything else (refused scope, feed unavailable, client closed) is final.
   */
  private onStreamError(error: unknown): void {
    if (!(error instanceof RequestTimeoutError)) {
      this.fail(`subscription failed: ${errorMessage(error)}`, error);
      return;
    }
    this.report(error);
    this.stopWork();
    this.buffer.clear();
    this.phase = 'idle';
    this.subscription = undefined;
    if (this.hasState) this.toStatus('stale', `subscribe timed out, retrying in ${this.options.retryAfterMs} ms: ${errorMessage(error)}`);
    this.snapshots.retryAfter(this.options.retryAfterMs, () =>
      this.guard(() => {
        if (!this.closed && this.subscription === undefined && this.machine.status !== 'failed') this.subscribeStream();
      }),
    );
  }

  /** Rebuilds the replica from a fresh snapshot (counted as `manual`). No effect unless live. */
  resync(reason = 'requested by the caller'): void {
    if (this.phase === 'live' || this.phase === 'catching_up') this.startResync('manual', reason);
  }

  /** Unsubscribes from the router stream, cancels any snapshot fetch, completes the observables. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.subscription?.unsubscribe();
    this.stopWork();
    this.phase = 'idle';
    this.machine.complete();
    this.subject.complete();
  }

  private onEvent(event: RouterEvent): void {
    if (this.closed || this.machine.status === 'failed') return;
    switch (event.kind) {
      case 'subscribed':
        return this.onSubscribed(event.subscriptionId, event.generation);
      case 'update':
        return this.onUpdate(event);
      case 'resync_required':
        if (this.phase === 'live' || this.phase === 'catching_up') this.startResync('resync_required', `the server skipped updates (${event.reason})`);
        return;
      case 'disconnected':
        return this.onDisconnected(event.reason);
    }
  }

  private onSubscribed(subscriptionId: string, generation: number): void {
    if (this.phase === 'live') this.counts.resubscribed++;
    this.stopWork();
    this.buffer.clear();
    this.phase = 'buffering';
    this.toStatus(this.hasState ? 'resyncing' : 'syncing', `subscribed (subscription ${subscriptionId}, generation ${generation})`);
    this.requestSnapshot();
  }

  private onUpdate(update: UpdateEvent): void {
    this.liveness.touch();
    const onLatency = this.options.onLatency;
    if (onLatency) this.guard(() => onLatency(this.key, update.receivedAtNs - update.timestampNs));
    switch (this.phase) {
      case 'buffering':
        return this.buffer.push(update);
      case 'live':
        return this.onLiveUpdate(update);
      case 'catching_up':
        return this.onCatchUpUpdate(update);
      case 'idle':
        return; // not subscribed
    }
  }

  /** While live, only `seq + 1` applies; anything else resyncs (the update is kept for the new snapshot). */
  private onLiveUpdate(update: UpdateEvent): void {
    if (update.seq === this.seq + 1n) return this.applyLive(update);
    if (update.seq <= this.seq && !this.streamReachedSnapshot) return this.onStreamBehindSnapshot(update);
    if (update.seq <= this.seq) {
      this.startResync('seq_regression', `seq went back from ${this.seq} to ${update.seq} (a repeat, or a numbering that restarted)`);
    } else {
      this.startResync('seq_jump', `seq jumped from ${this.seq} to ${update.seq}`);
    }
    this.buffer.push(update);
  }

  private applyLive(update: UpdateEvent): void {
    let next: S;
    try {
      next = this.reducer.apply(this.state, update.data, update.seq);
    } catch (error) {
      this.report(error);
      this.startResync('integrity', `update ${update.seq} rejected: ${errorMessage(error)}`);
      // The fresh snapshot may predate this update: keep it to fold in after the snapshot.
      this.buffer.push(update);
      return;
    }
    this.state = next;
    this.seq = update.seq;
    this.timestampNs = update.timestampNs;
    this.receivedAtNs = update.receivedAtNs;
    this.streamReachedSnapshot = true;
    this.emit('update');
  }

  /**
   * A snapshot was shown before any update reached its sequence, and now the stream shows it
   * is behind: the state is not known to follow the stream until it catches up.
   */
  private onStreamBehindSnapshot(update: UpdateEvent): void {
    if (update.seq === this.seq) {
      this.streamReachedSnapshot = true; // the stream's copy of the snapshot's last update
      return;
    }
    this.counts.snapshot_ahead++;
    const held: BuiltState<S> = { state: this.state, snapshotSequence: this.seq, seq: this.seq, timestampNs: this.timestampNs, receivedAtNs: this.receivedAtNs };
    this.liveness.stop();
    this.toStatus('resyncing', `snapshot ${this.seq} is ahead of the stream (at seq ${update.seq}): waiting for it to catch up`);
    this.holdUntilCaughtUp(held, update.seq);
  }

  /** A built state waits for the stream to reach its sequence; updates it already includes are skipped. */
  private onCatchUpUpdate(update: UpdateEvent): void {
    const held = this.held!;
    if (update.seq < held.seq) {
      this.heldNewestSeq = update.seq > this.heldNewestSeq ? update.seq : this.heldNewestSeq;
      return;
    }
    if (update.seq === held.seq) return this.show(held, `the stream caught up with snapshot ${held.snapshotSequence}`);
    if (update.seq !== held.seq + 1n) {
      this.startResync('seq_jump', `seq jumped from ${held.seq} to ${update.seq} while catching up with snapshot ${held.snapshotSequence}`);
      this.buffer.push(update);
      return;
    }
    let ready: BuiltState<S>;
    try {
      ready = foldUpdates(this.reducer, held, [update], this.errorContext());
    } catch (error) {
      this.report(error);
      this.startResync('integrity', `update ${update.seq} rejected: ${errorMessage(error)}`);
      this.buffer.push(update);
      return;
    }
    this.show(ready, `the stream caught up with snapshot ${held.snapshotSequence} (now at seq ${ready.seq})`);
  }

  private holdUntilCaughtUp(held: BuiltState<S>, newestSeq: bigint): void {
    this.phase = 'catching_up';
    this.held = held;
    this.heldNewestSeq = newestSeq;
    this.clearAheadTimer();
    this.aheadTimer = setTimeout(() => this.guard(() => this.onSnapshotStayedAhead()), this.options.snapshotAheadMs);
    this.aheadTimer.unref?.();
  }

  private onSnapshotStayedAhead(): void {
    this.aheadTimer = undefined;
    const held = this.held;
    if (this.phase !== 'catching_up' || held === undefined) return;
    this.report(new SnapshotAheadError(held.snapshotSequence, this.heldNewestSeq, this.options.snapshotAheadMs, this.errorContext()));
    this.aheadCount++;
    const backoffMs = Math.min(this.options.retryAfterMs, AHEAD_BACKOFF_BASE_MS * 2 ** (this.aheadCount - 1));
    this.startResync('snapshot_ahead', `snapshot ${held.snapshotSequence} stayed ahead of the stream (newest seq ${this.heldNewestSeq}) for ${this.options.snapshotAheadMs} ms`, backoffMs);
  }

  private clearAheadTimer(): void {
    if (this.aheadTimer !== undefined) clearTimeout(this.aheadTimer);
    this.aheadTimer = undefined;
  }

  private onDisconnected(reason: string): void {
    this.stopWork();
    this.buffer.clear();
    this.phase = 'idle';
    if (this.machine.status !== 'stale') this.counts.disconnected++;
    this.toStatus('stale', `disconnected: ${reason}`);
  }

  private onComplete(): void {
    this.stopWork();
    this.buffer.clear();
    this.phase = 'idle';
    if (this.machine.status !== 'failed') this.toStatus('stale', 'the stream ended');
  }

  private startResync(trigger: ResyncTrigger, reason: string, delayMs = 0): void {
    this.counts[trigger]++;
    this.stopWork();
    this.buffer.clear();
    this.phase = 'buffering';
    this.toStatus(this.hasState ? 'resyncing' : 'syncing', `${trigger}: ${reason}`);
    this.requestSnapshot(delayMs);
  }

  /**
   * Asks for a snapshot unless one is already on its way (a new trigger joins it), after
   * `delayMs`, and within the stream's budget (else when the budget allows).
   */
  private requestSnapshot(delayMs = 0): void {
    if (this.closed || this.snapshots.pending) return;
    const wait = delayMs > 0 ? delayMs : this.limiter.take();
    if (wait === 0) return this.snapshots.request();
    this.snapshots.retryAfter(wait, () =>
      this.guard(() => {
        if (this.phase === 'buffering') this.requestSnapshot();
      }),
    );
  }

  /**
   * One attempt, run by the scheduler: load the snapshot and build a new state from it with
   * the buffered updates. Throws (and is retried) when the snapshot is behind the buffer or
   * the reducer finds it inconsistent. Never touches the shown state; reads the buffer only
   * (another attempt may bring an older snapshot that needs what this one covers).
   */
  private async loadAndBuild(signal: AbortSignal): Promise<BuiltState<S>> {
    const previous = this.hasState ? this.state : undefined;
    const request = { channel: this.channel, scope: this.scope, fetch: this.fetch, signal, previous };
    const loaded: LoadedSnapshot = await (this.reducer.loadSnapshot ? this.reducer.loadSnapshot(request) : loadSinglePage(request));
    if (signal.aborted) throw new AbortedError('the snapshot request was aborted', { stream: this.key });
    return buildFromSnapshot(this.reducer, loaded, this.scope, previous, this.buffer.toArray(), this.options.nowNs(), this.errorContext());
  }

  /** Shows a built state: the only place a snapshot becomes visible. */
  private commit(built: BuiltState<S>): void {
    if (this.phase !== 'buffering' || this.closed) return;
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
    if (newest !== undefined && newest < ready.seq) return this.holdUntilCaughtUp(ready, newest);
    // No update seen at all (a quiet stream): shown at once, as the contract allows; watched until one arrives.
    this.show(ready, `snapshot ${ready.snapshotSequence} applied`, newest !== undefined);
  }

  /** Shows a state that follows the stream: the only place a status becomes `live`. */
  private show(ready: BuiltState<S>, reason: string, streamReachedSnapshot = true): void {
    this.clearAheadTimer();
    this.held = undefined;
    this.aheadCount = 0;
    if (!this.hasState || ready.state !== this.state) this.snapshotId++;
    this.state = ready.state;
    this.hasState = true;
    this.seq = ready.seq;
    this.timestampNs = ready.timestampNs;
    this.receivedAtNs = ready.receivedAtNs;
    this.streamReachedSnapshot = streamReachedSnapshot;
    this.phase = 'live';
    this.machine.setState('live', `${reason} (snapshot #${this.snapshotId}, now at seq ${ready.seq})`);
    this.emit('snapshot');
    this.liveness.arm();
  }

  private onSnapshotFailed(error: unknown): void {
    if (this.phase !== 'buffering' || this.closed) return;
    if (isPermanentSnapshotFailure(error)) {
      this.fail(`the snapshot cannot be had: ${errorMessage(error)}`, error);
      return;
    }
    this.report(error);
    this.snapshots.retryAfter(this.options.retryAfterMs, () =>
      this.guard(() => {
        if (this.phase === 'buffering') this.requestSnapshot();
      }),
    );
  }

  /**
   * Terminal: emits the `failed` status (when a state was shown), then errors `states$` with
   * the cause, so that a subscriber learns of it even before any snapshot (e.g. a feed that
   * answered FEED_UNAVAILABLE) and no observable waits forever.
   */
  private fail(reason: string, error: unknown): void {
    if (this.machine.status === 'failed') return;
    this.report(error);
    this.stopWork();
    this.buffer.clear();
    this.phase = 'idle';
    this.subscription?.unsubscribe();
    this.toStatus('failed', reason);
    this.subject.error(error instanceof ExchangeReplicaError ? error : new ExchangeReplicaError('ERR_INTERNAL', `${this.key}: ${reason}`, this.errorContext(), { cause: error }));
  }

  /** Cancels the snapshot request and every timer. */
  private stopWork(): void {
    this.liveness.stop();
    this.snapshots.cancel();
    this.clearAheadTimer();
    this.held = undefined;
  }

  private errorContext() {
    return { stream: this.key, channel: this.channel };
  }

  private toStatus(next: ReplicaStatus, reason: string): void {
    if (this.machine.setState(next, reason)) this.emit('status');
  }

  private emit(cause: EmissionCause): void {
    if (!this.hasState) return;
    const emission: ReplicaState<S> = {
      status: this.machine.status,
      state: this.state,
      seq: this.seq,
      timestampNs: this.timestampNs,
      receivedAtNs: this.receivedAtNs,
      snapshotId: this.snapshotId,
      cause,
    };
    this.latestEmission = emission;
    this.subject.next(emission);
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

function newestSeq(updates: readonly UpdateEvent[]): bigint | undefined {
  let newest: bigint | undefined;
  for (const u of updates) if (newest === undefined || u.seq > newest) newest = u.seq;
  return newest;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
