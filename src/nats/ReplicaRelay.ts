/**
 * ReplicaRelay: one exchange connection (one `ExchangeClient`) republished on NATS JetStream,
 * so that consumers in other processes follow the same streams without connecting to the
 * exchange. For each stream it carries, it publishes every update its own replica applied to
 * the stream's subject (message id `<streamKey>#<first>-<last>`: JetStream stores each batch once,
 * whichever relay publishes it first), keeps an aligned snapshot in the KV bucket (written on
 * every (re)sync and refreshed every `snapshotRefreshMs` / `snapshotRefreshUpdates`), and
 * sends a heartbeat with every stream's status. See wire/ for the wire and
 * StreamRelay.ts for the guarantees.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { Subject, type Observable, type Subscription } from 'rxjs';
import { ExchangeClient } from '../client';
import { Backoff, type Clock, type Timer } from '../clock';
import { ExchangeReplicaError } from '../errors';
import { channelReducer } from '../replicas/channelReducers';
import { StreamSync, type LoadedSnapshot, type StreamSyncOptions } from '../replicas';
import { ResyncLimiter } from '../replicas/ResyncLimiter';
import { loadThroughPolicy } from '../replicas/SnapshotLoader';
import type { AppliedHook } from '../replicas/AppliedChange';
import { streamKey } from '../protocol';
import { BUS_FORMAT_VERSION, encodeHeartbeat, heartbeatSubject, isResetMessage, readBatchHead, sameUpdates, UPDATE_HEADERS, type Heartbeat, type HeartbeatStream, type RelayStreamStatus } from './wire';
import { loadNats, type NatsModules } from './natsModules';
import { hasCredentials, permissionError } from './natsAuth';
import { connectNats, NatsRefusals, natsFailure } from './natsConnection';
import { OrderedPublisher } from './OrderedPublisher';
import { resolveRelayOptions, type RelayStream, type ReplicaRelayOptions, type ResolvedRelayOptions } from './relayOptions';
import { defaultStreams } from './relayStreams';
import { SnapshotStore } from './SnapshotStore';
import { ensureBucket, ensureStream, jetstreamManager, writeMarketsMeta } from './busSetup';
import { StreamRelay, type BreakReason, type StreamRelayStats } from './StreamRelay';

/** A stream's budget of refresh snapshots: as a replica's (`resyncBurst`, `resyncRefillMs` defaults). */
const REFRESH_BURST = 5;
const REFRESH_REFILL_MS = 1000;

/** Bound of the final heartbeat and flush on close. */
const CLOSE_FLUSH_MS = 2000;

/** A status change of one stream. */
export interface RelayStatusChange {
  readonly streamKey: string;
  readonly status: RelayStreamStatus;
}

/**
 * @example
 * const relay = await ReplicaRelay.start({ exchange: { restUrl: 'http://127.0.0.1:8080' }, natsUrl: 'nats://127.0.0.1:4222' });
 * relay.status$.subscribe(({ streamKey, status }) => console.log(streamKey, status));
 * // later
 * await relay.close();
 */
export class ReplicaRelay {
  /**
   * Errors the relay survived (snapshot fetches, publishes, KV writes, the exchange's errors),
   * each an `ExchangeReplicaError`: what NATS threw is the `cause` of an `ERR_BUS` (or
   * `ERR_BUS_PERMISSION`), anything else unexpected that of an `ERR_INTERNAL`.
   */
  readonly errors$: Observable<ExchangeReplicaError>;
  /** Every status change of a stream. */
  readonly status$: Observable<RelayStatusChange>;

  private readonly errorSubject = new Subject<ExchangeReplicaError>();
  private readonly statusSubject = new Subject<RelayStatusChange>();
  private readonly relays: StreamRelay[] = [];
  private readonly subscriptions: Subscription[] = [];
  private readonly publisher: OrderedPublisher;
  private readonly store: SnapshotStore;
  /** The options of every stream's replica: the relay's clock, bounds and error sink. */
  private readonly replicaOptions: StreamSyncOptions;
  private heartbeatTimer?: Timer;
  private busCheckTimer?: Timer;
  /** NATS's refusals (`ERR_BUS_PERMISSION` reported once per subject since the last connect). */
  private readonly refusals: NatsRefusals;
  /** False from a NATS disconnect until {@link ReplicaRelay.checkBus} has seen the updates stream. */
  private busKnown = true;
  private readonly busCheckBackoff: Backoff;
  private closing?: Promise<void>;

  private constructor(
    private readonly options: ResolvedRelayOptions,
    private readonly mods: NatsModules,
    /** The exchange client (the relay's own unless one was given). */
    readonly client: ExchangeClient,
    private readonly ownsClient: boolean,
    /** The NATS connection (the relay's own unless one was given). */
    readonly nats: NatsConnection,
    private readonly ownsNats: boolean,
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    private readonly kv: KV,
    /** The updates stream's creation time when the relay started (see {@link ReplicaRelay.checkBus}). */
    private streamCreated: string,
  ) {
    this.refusals = new NatsRefusals(options.natsUrl ?? [], hasCredentials(options.natsAuth, options.natsOptions));
    this.busCheckBackoff = new Backoff({ ...options.retry, retries: Number.POSITIVE_INFINITY });
    this.errors$ = this.errorSubject.asObservable();
    this.status$ = this.statusSubject.asObservable();
    // One header set for every message: the relay's id, and the message id set per publish.
    const headers = mods.transport.headers();
    headers.set(UPDATE_HEADERS.relay, options.relayId);
    this.publisher = new OrderedPublisher(nats, {
      maxInFlight: options.maxInFlight,
      maxQueued: options.maxQueued,
      timeoutMs: options.publishTimeoutMs,
      noLeaderWaitMs: options.noLeaderWaitMs,
      inbox: mods.transport.createInbox(options.natsOptions.inboxPrefix),
      headers,
      clock: options.clock,
    });
    this.store = new SnapshotStore(kv);
    this.replicaOptions = {
      clock: options.clock,
      snapshotAheadMs: options.snapshotAheadMs,
      maxBufferedUpdates: options.maxBufferedUpdates,
      retryAfterMs: options.retry.maxDelayMs,
      onError: (e) => this.report(e),
    };
  }

  /**
   * Connects to NATS, creates the updates stream and the snapshot bucket when they are
   * missing, and starts carrying the streams (by default what `view` shows).
   * @throws InvalidParameterError for a bad option (a `natsAuth` file that cannot be read, a
   *   seed that is not one); ExchangeReplicaError `ERR_BUS_AUTH` when NATS refused the
   *   connection (no credentials, or refused ones), `ERR_BUS_PERMISSION` when these
   *   credentials may not set up or use the bus (a consumer's), `ERR_BUS` when NATS cannot be
   *   reached, has no JetStream, or the NATS packages are missing; the REST client's error
   *   when the default streams cannot be listed.
   */
  static async start(options: ReplicaRelayOptions): Promise<ReplicaRelay> {
    const o = resolveRelayOptions(options);
    const mods = await loadNats();
    const client = o.client ?? new ExchangeClient(o.exchange!);
    const ownsClient = o.client === undefined;
    let nats: NatsConnection | undefined;
    const ownsNats = o.nats === undefined;
    try {
      nats = o.nats ?? (await connectNats(mods, { servers: o.natsUrl!, auth: o.natsAuth, options: o.natsOptions }));
      const js = mods.jetstream.jetstream(nats);
      const jsm = await jetstreamManager(mods, nats);
      const created = await ensureStream(mods, jsm, o);
      const kv = await ensureBucket(mods, js, o);
      const streams = o.streams ?? (await defaultStreams(client));
      await writeMarketsMeta(client, kv, o.relayId).catch(() => undefined); // labels for consumers only: never fatal
      const relay = new ReplicaRelay(o, mods, client, ownsClient, nats, ownsNats, jsm, js, kv, created);
      relay.run(streams);
      return relay;
    } catch (error) {
      if (ownsNats && nats !== undefined) await nats.close().catch(() => undefined);
      if (ownsClient) await client.close();
      throw permissionError(error, 'setting up the bus (the JetStream API, the updates stream, the snapshot bucket)') ?? natsFailure(error, 'setting up the bus');
    }
  }

  /** This relay's id (heartbeats, the `Er-Relay` header, KV entries). */
  get relayId(): string {
    return this.options.relayId;
  }

  /** The streams carried. */
  get streams(): RelayStream[] {
    return this.relays.map((r) => ({ channel: r.channel, scope: r.scope }));
  }

  /** Every stream with its status and counters (what the heartbeat carries). */
  describe(): HeartbeatStream[] {
    return this.relays.map((r) => r.describe());
  }

  /** Per stream key: snapshots written and time since the last acknowledged publish (for metrics, see relayMetrics.ts). */
  stats(): Record<string, StreamRelayStats> {
    return Object.fromEntries(this.relays.map((r) => [r.key, r.stats()]));
  }

  /** Epochs ended per stream key, by reason (resyncs of the relay's replicas). */
  breakCounts(): Record<string, Readonly<Record<BreakReason, number>>> {
    return Object.fromEntries(this.relays.map((r) => [r.key, r.breakCounts]));
  }

  /** The heartbeat payload now. */
  heartbeat(state: Heartbeat['state'] = 'running'): Heartbeat {
    return {
      v: BUS_FORMAT_VERSION,
      relayId: this.options.relayId,
      state,
      atNs: this.options.clock.nowNs(),
      intervalMs: this.options.heartbeatMs,
      snapshotRefreshMs: this.options.snapshotRefreshMs,
      feed: this.client.connection.state,
      jsStream: this.options.names.stream,
      bucket: this.options.names.bucket,
      streams: this.describe(),
    };
  }

  /**
   * Stops carrying: a last heartbeat (`closing`), the streams released, publishes not yet
   * sent dropped, then the NATS connection and the exchange client closed when the relay
   * opened them. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.heartbeatTimer?.cancel();
      this.heartbeatTimer = undefined;
      this.busCheckTimer?.cancel();
      this.busCheckTimer = undefined;
      for (const s of this.subscriptions) s.unsubscribe();
      for (const r of this.relays) r.close();
      this.publisher.close();
      if (!this.nats.isClosed()) {
        try {
          this.nats.publish(heartbeatSubject(this.options.names, this.options.relayId), encodeHeartbeat(this.heartbeat('closing')));
          await this.nats.flush().catch(() => undefined);
        } catch {
          // NATS is gone: nothing to tell.
        }
      }
      if (this.ownsNats) await withTimeout(this.nats.drain(), CLOSE_FLUSH_MS, this.options.clock).catch(() => this.nats.close());
      if (this.ownsClient) await this.client.close();
      this.errorSubject.complete();
      this.statusSubject.complete();
    })();
    return this.closing;
  }

  private run(streams: readonly RelayStream[]): void {
    const names = this.options.names;
    for (const { channel, scope } of streams) {
      const reducer = channelReducer(channel);
      // The replicas' own seam and loader policy: the client's source (REST paging inside), in a
      // slot of the client's shared bound, within this stream's budget, retried like a replica's.
      const { source, scheduler } = this.client.replicaDeps;
      const limiter = new ResyncLimiter(REFRESH_BURST, REFRESH_REFILL_MS, this.options.clock);
      const load = (signal: AbortSignal): Promise<LoadedSnapshot> => loadThroughPolicy((s) => source.snapshot({ channel, scope, signal: s }), signal, scheduler, limiter, this.options.clock);
      const replica = (onApplied: AppliedHook<unknown>): StreamSync<unknown> =>
        new StreamSync<unknown>({ channel, scope, reducer, ...this.client.replicaDeps, onApplied }, this.replicaOptions);
      const relay: StreamRelay = new StreamRelay(
        channel,
        scope,
        reducer,
        {
          replica,
          load,
          publisher: this.publisher,
          store: this.store,
          startAfterLast: (subject, sequence) => this.startAfterLast(subject, sequence, streamKey(channel, scope)),
          storedEquals: (subject, payload, seq) => this.storedEquals(subject, payload, seq),
          busKnown: () => this.busKnown,
          report: (e) => this.report(e),
          onStatus: (status) => this.statusSubject.next({ streamKey: relay.key, status }),
        },
        this.options,
      );
      this.relays.push(relay);
    }
    this.subscriptions.push(this.client.errors$.subscribe((e) => this.report(e)));
    for (const r of this.relays) r.start();
    void this.watchNats();
    const beat = (): void => {
      this.heartbeatTimer = this.options.clock.setTimer(beat, this.options.heartbeatMs, { unref: true });
      if (this.nats.isClosed()) return;
      try {
        this.nats.publish(heartbeatSubject(names, this.options.relayId), encodeHeartbeat(this.heartbeat()));
      } catch (e) {
        this.report(e);
      }
    };
    beat();
  }

  /**
   * A NATS disconnect loses the acknowledgements on their way: the publishes awaiting them are
   * sent again after the reconnect on a replicated stream (`noLeaderWaitMs`), else fail at
   * once (their streams resync; OrderedPublisher.disconnected). A reconnect may find the bus reset (see
   * {@link ReplicaRelay.checkBus}). A publish the server refused to these credentials fails
   * at once too (`ERR_BUS_PERMISSION`, reported once per subject until a reconnect).
   */
  private async watchNats(): Promise<void> {
    for await (const s of this.nats.status()) {
      if (this.closing) return;
      if (s.type === 'disconnect') {
        this.busKnown = false;
        this.publisher.disconnected();
      } else if (s.type === 'reconnect') {
        this.refusals.clear();
        this.publisher.reconnected();
        void this.checkBus();
      } else if (s.type === 'error') this.onNatsError(s.error);
    }
  }

  private onNatsError(error: Error): void {
    const refusal = this.refusals.read(error);
    if (refusal === undefined) return;
    if (refusal.publishSubject !== undefined) this.publisher.refused(refusal.publishSubject, refusal.error);
    if (refusal.report) this.report(refusal.error);
  }

  /**
   * Whether the message JetStream stores at `seq` of the updates stream is `payload` on
   * `subject` but for the exchange's timestamps: two relays' copies of a batch hold the same
   * updates (seq and data, in the protocol's compact form), each stamped with the time the
   * exchange sent it on that relay's socket.
   */
  private async storedEquals(subject: string, payload: string, seq: number): Promise<boolean> {
    const stored = await this.jsm.streams.getMessage(this.options.names.stream, { seq });
    return stored !== null && stored.subject === subject && sameUpdates(stored.string(), payload);
  }

  /**
   * After a reconnect: the updates stream and the bucket exist again (a nats-server restart
   * loses a `memory` stream and bucket; another relay may have created them first), and when
   * the updates stream is not the one the streams published to (its creation time differs),
   * every stream starts a new epoch so that its snapshot and updates are on the new one.
   * Until then no snapshot is written (`busKnown`): its JetStream position could be one of the
   * lost stream. Retried with the relay's backoff while NATS answers with errors.
   */
  private async checkBus(): Promise<void> {
    this.busCheckTimer?.cancel();
    this.busCheckTimer = undefined;
    if (this.closing || this.nats.isClosed()) return;
    try {
      const created = await ensureStream(this.mods, this.jsm, this.options);
      await ensureBucket(this.mods, this.js, this.options);
      this.busCheckBackoff.reset();
      const recreated = created !== this.streamCreated;
      this.streamCreated = created;
      this.busKnown = true;
      for (const r of this.relays) r.busChecked(recreated);
      if (recreated) await writeMarketsMeta(this.client, this.kv, this.options.relayId).catch(() => undefined);
    } catch (error) {
      this.report(permissionError(error, 'checking the bus (the updates stream, the snapshot bucket)') ?? error);
      // Until NATS answers (the next reconnect checks again in any case). This backoff retries
      // forever, so `next()` always has a delay; the cap only satisfies its type.
      const waitMs = this.busCheckBackoff.next() ?? this.options.retry.maxDelayMs;
      if (!this.closing) this.busCheckTimer = this.options.clock.setTimer(() => void this.checkBus(), waitMs, { unref: true });
    }
  }

  /**
   * Where a consumer can start reading `subject` when it holds no update above `sequence`:
   * just after its last message (read after the stream's last sequence, so that anything
   * stored later is after the answer); undefined when the subject already holds one above.
   */
  private async startAfterLast(subject: string, sequence: bigint, key: string): Promise<number | undefined> {
    const info = await this.jsm.streams.info(this.options.names.stream);
    const last = await this.jsm.streams.getMessage(this.options.names.stream, { last_by_subj: subject });
    if (last === null) return info.state.last_seq + 1;
    const text = last.string();
    // A reset or a message no reader can use holds no update: a reader starts after it.
    if (isResetMessage(text)) return last.seq + 1;
    let seq: bigint;
    try {
      seq = readBatchHead(text, key).last;
    } catch {
      return last.seq + 1;
    }
    return seq <= sequence ? last.seq + 1 : undefined;
  }

  /** Reports a failure survived, as the library's error (see {@link ReplicaRelay.errors$}). */
  private report(error: unknown): void {
    if (this.closing) return;
    const coded = natsFailure(error, 'carrying the streams');
    try {
      this.options.onError?.(coded);
    } catch {
      // A failing hook must not take the relay down.
    }
    this.errorSubject.next(coded);
  }
}

/** `p`, or a rejection (`ERR_TIMEOUT`) once `ms` passed on `clock`. */
function withTimeout<T>(p: Promise<T>, ms: number, clock: Clock): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = clock.setTimer(() => reject(new ExchangeReplicaError('ERR_TIMEOUT', `timed out after ${ms} ms`)), ms);
    p.then(
      (v) => (t.cancel(), resolve(v)),
      (e: unknown) => (t.cancel(), reject(e)),
    );
  });
}
