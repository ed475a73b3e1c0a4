/**
 * The bus as a replica source: what `ReplicaRelay`s publish on NATS JetStream, read back as
 * the `ReplicaSource` of the library's replicas, so that the same `StreamSync` (alignment,
 * statuses, resync policy) and the same reducers run on it as on the exchange.
 *
 * One stream key, one JetStream consumer (`BusFeed`): every replica of the key in this source
 * (`account()` and `fills()` both read the fills stream) is a reader of the same feed; one
 * that joins a running feed gets `subscribed` and the updates since the feed's anchor entry,
 * read again from JetStream by a catch-up consumer of its own (its first snapshot request is
 * answered once it caught up, so its replica folds them onto the anchor).
 *
 * One stream (`subscribe(channel, scope, sink)`) starts when NATS is connected, a relay
 * heartbeat lists it as `live` or `resyncing` and its KV entry exists: a push consumer on its
 * subject from the entry's `jsStartSeq`, read and answered as FeedRunner.ts describes.
 *
 * A relay publishes only updates its own replica validated and applied, contiguously within
 * an epoch; each message is validated again here (a malformed one is never applied).
 */
import type { NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node';
import { Observable } from 'rxjs';
import type { Clock, Timer } from '../clock';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { LoadedSnapshot, ReplicaSource, SnapshotQuery, SourceEvent, SourceSink } from '../replicas';
import { BusFeed, type FeedReader } from './BusFeed';
import { BusStoreReader } from './BusStoreReader';
import { resolveBusSourceOptions, type BusSourceOptions, type ResolvedBusSourceOptions } from './busSourceOptions';
import { FeedRunner } from './FeedRunner';
import { hasCredentials } from './natsAuth';
import { connectNats, NatsRefusals, natsFailure } from './natsConnection';
import { loadNats, type NatsModules } from './natsModules';
import { RelayHeartbeats, type CarriedStream } from './RelayHeartbeats';
import type { BusNames, MarketsMeta } from './wire';

export type { BusSourceOptions } from './busSourceOptions';
export type { CarriedStream } from './RelayHeartbeats';

/**
 * @example
 * const source = new BusSource({ natsUrl: 'nats://127.0.0.1:4222' });
 * const client = new ExchangeClient({ restUrl, source });
 */
export class BusSource implements ReplicaSource {
  readonly names: BusNames;
  private readonly resolved: ResolvedBusSourceOptions;
  private readonly clock: Clock;
  /** One feed (one JetStream consumer) per stream key, shared by every replica of that key. */
  private readonly feeds = new Map<string, BusFeed>();
  private readonly heartbeats: RelayHeartbeats;
  private readonly runner: FeedRunner;
  private opening?: Promise<void>;
  private nc?: NatsConnection;
  private store?: BusStoreReader;
  private hb?: NatsSubscription;
  private connected = false;
  private closed = false;
  private ticker?: Timer;
  /** NATS's refusals (`ERR_BUS_PERMISSION` reported once per subject). */
  private readonly refusals: NatsRefusals;

  /** @throws InvalidParameterError for a bad option. */
  constructor(private readonly options: BusSourceOptions) {
    const o = resolveBusSourceOptions(options);
    this.resolved = o;
    this.names = o.names;
    this.clock = o.clock;
    this.refusals = new NatsRefusals(o.servers, hasCredentials(options.natsAuth, options.natsOptions));
    this.heartbeats = new RelayHeartbeats(o.clock, o.missed, o.maxHeartbeatMs, (e) => this.report(e));
    this.runner = new FeedRunner({
      options: o,
      heartbeats: this.heartbeats,
      closed: () => this.closed,
      connected: () => this.connected,
      nats: () => this.nc!,
      store: () => this.store!,
      report: (e) => this.report(e),
    });
  }

  /**
   * Connects to NATS (once; also done by the first subscription). Until the server answers,
   * it keeps trying (unless `natsOptions.waitOnFirstConnect` is false).
   * @throws ExchangeReplicaError `ERR_BUS_AUTH` when the server refused the connection (no
   *   credentials, or refused ones), `ERR_BUS` when the NATS packages are missing or the TLS
   *   handshake failed; InvalidParameterError for a `natsAuth` file that cannot be read
   */
  open(): Promise<void> {
    this.opening ??= this.connect();
    return this.opening;
  }

  /** Whether the NATS connection is up. */
  get isConnected(): boolean {
    return this.connected;
  }

  /** The streams the relays listed in their heartbeats within `missedHeartbeats` intervals. */
  carried(): CarriedStream[] {
    return this.heartbeats.carried();
  }

  /** The exchange metadata the relays wrote (markets, tokens), undefined when none did. */
  async marketsMeta(): Promise<MarketsMeta | undefined> {
    await this.open();
    return this.store!.marketsMeta();
  }

  /** The stream as an observable (what `subscribe` reads). */
  private events(channel: ChannelName, scope: Scope): Observable<SourceEvent> {
    return new Observable<SourceEvent>((subscriber) => {
      const key = streamKey(channel, scope);
      let found = this.feeds.get(key);
      if (found === undefined) {
        found = new BusFeed(channel, scope, this.names);
        this.feeds.set(key, found);
      }
      const feed = found;
      const reader: FeedReader = { subscriber, up: false, awaitingFirst: false };
      feed.readers.add(reader);
      this.open().then(
        () => this.runner.admit(feed, reader),
        (e: unknown) => subscriber.error(e),
      );
      return () => {
        feed.readers.delete(reader);
        feed.stopCatchUp(reader);
        if (feed.readers.size > 0) return;
        feed.phase = 'closed';
        feed.token++;
        this.runner.stopConsumer(feed);
        if (this.feeds.get(key) === feed) this.feeds.delete(key);
      };
    });
  }

  /** Subscribes `sink` to the bus stream of `channel` and `scope` (see the module comment). */
  subscribe(channel: ChannelName, scope: Scope, sink: SourceSink): () => void {
    const subscription = this.events(channel, scope).subscribe(sink);
    return () => subscription.unsubscribe();
  }

  /** The snapshot of a running bus stream: the relay's KV entry as it stored it (an event stream's newest page, its history marked not exhausted). */
  async snapshot(query: SnapshotQuery): Promise<LoadedSnapshot> {
    return this.runner.answer(this.feeds.get(streamKey(query.channel, query.scope)), query);
  }

  /** Stops every stream and closes the NATS connection when it is the source's own. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ticker?.cancel();
    for (const feed of this.feeds.values()) {
      feed.phase = 'closed';
      feed.token++;
      this.runner.stopConsumer(feed);
      for (const r of feed.readers) {
        feed.stopCatchUp(r);
        r.subscriber.complete();
      }
    }
    this.feeds.clear();
    this.hb?.unsubscribe();
    await this.opening?.catch(() => undefined);
    if (this.options.nats === undefined && this.nc !== undefined && !this.nc.isClosed()) await this.nc.close().catch(() => undefined);
  }

  // ---- connection, heartbeats, checks ---------------------------------------

  private async connect(): Promise<void> {
    const mods: NatsModules = await loadNats();
    const nc =
      this.options.nats ??
      (await connectNats(mods, {
        servers: this.resolved.servers,
        auth: this.options.natsAuth,
        options: { waitOnFirstConnect: true, ...this.options.natsOptions },
        retry: { clock: this.clock, stopped: () => this.closed, onFirstFailure: (e) => this.report(e) },
      }));
    if (this.closed) {
      if (this.options.nats === undefined) await nc.close();
      return;
    }
    this.nc = nc;
    this.store = new BusStoreReader(mods.jetstream.jetstream(nc), this.names);
    this.connected = !nc.isClosed();
    void this.watchStatus(nc);
    this.hb = nc.subscribe(this.names.heartbeatSubjects, { callback: (err, msg) => (err ? this.report(err) : this.onHeartbeat(msg.string())) });
    const checkMs = this.resolved.checkMs;
    let lastTickMs = this.clock.nowMs();
    const tick = (): void => {
      if (this.closed) return;
      this.ticker = this.clock.setTimer(tick, checkMs, { unref: true });
      // A tick that comes late means this process stalled: heartbeats that arrived meanwhile
      // are read after the timers, so missing ones are not judged on this tick.
      const now = this.clock.nowMs();
      const stalled = now - lastTickMs > 2 * checkMs;
      lastTickMs = now;
      for (const feed of this.feeds.values()) this.runner.check(feed, !stalled);
    };
    tick();
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'error') this.onNatsError(s.error);
      if (s.type === 'disconnect') {
        this.connected = false;
        this.heartbeats.clear();
        for (const feed of this.feeds.values()) this.runner.stop(feed, 'NATS disconnected');
      } else if (s.type === 'reconnect') {
        this.connected = true;
      } else if (s.type === 'close') {
        this.connected = false;
        for (const feed of this.feeds.values()) this.runner.stop(feed, 'NATS connection closed');
      }
    }
  }

  /** A refusal of the server: reported with its code (permissions once per subject). */
  private onNatsError(error: Error): void {
    const refusal = this.refusals.read(error);
    if (refusal?.report === true) this.report(refusal.error);
  }

  /** A relay's heartbeat: waiting feeds may start. */
  private onHeartbeat(text: string): void {
    if (this.heartbeats.read(text)) for (const feed of this.feeds.values()) if (feed.phase === 'waiting') this.runner.check(feed);
  }

  /** Reports a failure survived, as the library's error (what NATS threw as its `cause`). */
  private report(error: unknown): void {
    try {
      this.options.onError?.(natsFailure(error, 'reading the bus'));
    } catch {
      // A failing hook must not take the source down.
    }
  }
}
