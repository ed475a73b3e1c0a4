/**
 * The sync algorithm of streaming-protocol.md section 5, written once for every reducer:
 * on `subscribed`, buffer updates; fetch the REST snapshot (through the resync scheduler)
 * with its sequence S; drop buffered updates with `seq <= S`; the next must be S + 1 (else
 * fetch again); build a NEW state from the snapshot, fold the buffered updates into it, and
 * only then show it (status `live`). While live, each update must be the previous `seq` + 1.
 *
 * Resync triggers (each counted): `resync_required` from the server, a `seq` jump seen here,
 * `disconnected` (status `stale` until the next `subscribed`), a reducer integrity error,
 * and the liveness window (no update for `livenessMs` while subscribed).
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
import { ReplicaStatusMachine, type ReplicaStatus, type StatusChange } from './status';
import { emptyResyncCounts, resolveStreamSyncOptions, type ResolvedStreamSyncOptions, type ResyncTrigger, type StreamSyncConfig, type StreamSyncOptions } from './streamSyncOptions';
import { UpdateBuffer } from './UpdateBuffer';

export { RESYNC_TRIGGERS, DEFAULT_LIVENESS_MS, type ResyncTrigger, type StreamSyncConfig, type StreamSyncOptions } from './streamSyncOptions';

type Phase = 'idle' | 'buffering' | 'live';
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
    if (this.phase === 'live') this.startResync('manual', reason);
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
        if (this.phase === 'live') this.startResync('resync_required', `the server skipped updates (${event.reason})`);
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
    if (this.phase === 'buffering') {
      this.buffer.push(update);
      return;
    }
    if (this.phase !== 'live' || update.seq <= this.seq) return; // not subscribed, or already included
    if (update.seq !== this.seq + 1n) {
      this.startResync('seq_jump', `seq jumped from ${this.seq} to ${update.seq}`);
      this.buffer.push(update);
      return;
    }
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
    this.emit('update');
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

  private startResync(trigger: ResyncTrigger, reason: string): void {
    this.counts[trigger]++;
    this.liveness.stop();
    this.buffer.clear();
    this.phase = 'buffering';
    this.toStatus(this.hasState ? 'resyncing' : 'syncing', `${trigger}: ${reason}`);
    this.requestSnapshot();
  }

  /** Asks for a snapshot unless one is already on its way (a new trigger joins it). */
  private requestSnapshot(): void {
    if (!this.closed) this.snapshots.request();
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
    let ready: BuiltState<S>;
    try {
      // Updates that arrived after the attempt was built.
      ready = foldUpdates(this.reducer, built, this.buffer.toArray(), this.errorContext());
    } catch (error) {
      this.report(error);
      this.requestSnapshot();
      return;
    }
    this.buffer.clear();
    this.state = ready.state;
    this.hasState = true;
    this.seq = ready.seq;
    this.timestampNs = ready.timestampNs;
    this.receivedAtNs = ready.receivedAtNs;
    this.snapshotId++;
    this.phase = 'live';
    this.machine.setState('live', `snapshot ${ready.snapshotSequence} applied (snapshot #${this.snapshotId}, now at seq ${ready.seq})`);
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

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
