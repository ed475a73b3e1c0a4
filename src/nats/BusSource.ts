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
 * One stream (`subscribe(channel, scope, sink)`):
 * - it starts when NATS is connected, a relay heartbeat lists the stream as `live` or
 *   `resyncing` (within `missedHeartbeats` of that relay's interval) and the stream's KV
 *   entry exists; until then nothing is emitted (the replica stays `syncing`);
 * - start: a push consumer on the stream's subject read by one core NATS subscription
 *   (PushConsumer.ts: no acks, one filter subject, deliver from the entry's `jsStartSeq`:
 *   nats-server 2.9 compatible), then `subscribed` (a new generation);
 *   each message is a batch of updates (wire/updateBatch.ts, read and validated by
 *   `readSourceUpdates`): the ones above the last seq delivered in this generation are
 *   `update`s (`receivedAtNs` from the clock, one reading per batch), the others (a batch
 *   overlapping what another relay's batch already delivered) are dropped unread; an
 *   unreadable one is reported and sends `resync_required`;
 * - `snapshot()` answers a reader's first request after its `subscribed` with the anchor entry (the
 *   relay's stored snapshot: data, sequence, time); a later request (the replica
 *   resyncs: a gap, a `seq` it refused, the liveness window) reads the KV entry again:
 *   - the stream resumed after a hole at seq J and the entry is still below J - 1: a
 *     retryable `SnapshotError` (the replica backs off and asks again: every relay writes
 *     a new entry when it resyncs);
 *   - the entry covers every seq delivered in this generation: it is the answer (the
 *     consumer keeps reading; the replica drops seq <= S);
 *   - the entry is below what was delivered: every reader of the feed gets `subscribed` and
 *     the updates delivered above the anchor (the consumer keeps reading; each reader
 *     catches up from the entry's `jsStartSeq`);
 * - `disconnected` when NATS drops: the consumer is deleted, and a new one starts (a new
 *   generation, from the KV entry of that time) when NATS and a relay heartbeat are back;
 * - `disconnected` when no relay heartbeat listed the stream `live` or `resyncing` for
 *   `missedHeartbeats` intervals (relays gone, or every relay's exchange feed down: relay
 *   status `stale`): the consumer keeps reading (a status, not a teardown), and the readers
 *   join again (the anchor and a catch-up) at the first heartbeat that carries the stream.
 *   A check timer that fires late (this process stalled) does not judge missing heartbeats:
 *   the ones that arrived meanwhile are read first;
 * - a consumer that sent nothing, not even its idle heartbeat, for two `consumerHeartbeatMs`
 *   (gone on the server) is replaced: `disconnected`, then a new generation from the KV entry.
 *
 * A relay publishes only updates its own replica validated and applied, contiguously within
 * an epoch; each message is validated again here (a malformed one is never applied).
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { BusFeed, entryId, type CatchUpPlan, type FeedReader } from './BusFeed';
import type { KV } from '@nats-io/kv';
import type { ConnectionOptions, Msg, NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node';
import { Observable } from 'rxjs';
import { systemClock, type Clock, type Timer } from '../clock';
import { AbortedError, ExchangeReplicaError, InvalidParameterError } from '../errors';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { LoadedSnapshot, ReplicaSource, SnapshotQuery, SourceEvent, SourceSink } from '../replicas';
import { SnapshotError } from '../replicas/SnapshotError';
import { busNames, decodeHeartbeat, DEFAULT_HEARTBEAT_MS, HEARTBEAT_INTERVAL_MS, isResetMessage, MARKETS_META_KEY, decodeMarketsMeta, type MarketsMeta, decodeSnapshotRecord, DEFAULT_BUS_PREFIX, readBatchHead, readSourceUpdates, type BusNames, type RelayStreamStatus, type SnapshotRecord } from './wire';
import { checkNatsAuth, checkNatsUrls, hasCredentials, permissionError, type NatsAuth } from './natsAuth';
import { connectNats, NatsRefusals } from './natsConnection';
import { loadNats, type NatsModules } from './natsModules';
import { PushConsumer, streamSeqOf } from './PushConsumer';

export interface BusSourceOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. Required unless `nats` is given. */
  readonly natsUrl?: string | readonly string[];
  /** A NATS connection to use (not closed by the source). @default one of its own, from `natsUrl` */
  readonly nats?: NatsConnection;
  /** Options of its own NATS connection. @default { maxReconnectAttempts: -1, waitOnFirstConnect: true } */
  readonly natsOptions?: Partial<ConnectionOptions>;
  /**
   * Credentials and TLS of its own NATS connection (user and password, token, NKey seed or
   * `.creds` file; a CA file): on a bus with roles (examples/nats/roles.conf), a consumer's.
   * A server that refuses them fails the source's streams with `ERR_BUS_AUTH`. Never printed.
   * @default none (anonymous, TLS only for a `tls://` URL)
   */
  readonly natsAuth?: NatsAuth;
  /**
   * The longest heartbeat interval a relay is believed to announce, ms (a relay's `heartbeatMs`
   * is 10 to 60000). A heartbeat announcing an interval outside 10..this is judged at the
   * default interval (1000 ms): no message can keep a stream live long after its relays
   * stopped. @default 60000
   */
  readonly maxHeartbeatIntervalMs?: number;
  /** Prefix of the bus's names (as the relays'). @default 'er' */
  readonly prefix?: string;
  /** A stream is stale when no relay heartbeat listed it `live` (or `resyncing`) for this many of the relay's heartbeat intervals. @default 3 */
  readonly missedHeartbeats?: number;
  /** How often the streams' conditions are checked (waiting for a KV entry, heartbeats missed), ms. @default 250 */
  readonly checkMs?: number;
  /**
   * How often a running stream's KV entry is compared with what was delivered, ms: an entry
   * above the last seq delivered at two checks in a row (the relay resynced past updates it
   * never published, and the stream is quiet since) sends `resync_required`. @default 1000
   */
  readonly aheadCheckMs?: number;
  /**
   * Idle heartbeat of a stream's JetStream consumer, ms: the server sends one when it has
   * nothing to deliver, and a consumer silent for two intervals (deleted on the server, lost
   * in a restart the connection did not see) is replaced by a new one from the KV entry.
   * @default 5000
   */
  readonly consumerHeartbeatMs?: number;
  /** @default the system clock */
  readonly clock?: Clock;
  /** Something went wrong and was survived (an unreadable message or KV entry, a consumer that failed to start). */
  readonly onError?: (error: unknown) => void;
}

/** One stream relays carry, from their heartbeats. */
export interface CarriedStream {
  readonly streamKey: string;
  readonly channel: ChannelName;
  readonly scope: Scope;
  /** Each relay listing it, with the status it gives. */
  readonly relays: readonly { readonly relayId: string; readonly status: RelayStreamStatus }[];
}

interface RelayView {
  readonly intervalMs: number;
  /** The interval it announced was not believed (reported when it started being so). */
  readonly intervalRefused: boolean;
  atMs: number;
  readonly streams: Map<string, RelayStreamView>;
}

/** One stream in a relay's heartbeat. */
interface RelayStreamView {
  readonly channel: ChannelName;
  readonly scope: Scope;
  readonly status: RelayStreamStatus;
  /** The highest seq the relay says it wrote to the KV bucket (or found there) or published: it vouches for entries up to it. */
  readonly vouched: bigint | undefined;
}

/**
 * Relay statuses that carry a stream: `live`, and `resyncing` (the relay is connected to the
 * exchange and realigning: what it published is what the exchange had; the next epoch shows
 * as a gap and heals from the KV). `syncing`, `stale` and `failed` do not.
 */
const CARRYING: ReadonlySet<RelayStreamStatus> = new Set(['live', 'resyncing']);

/**
 * How long the server keeps a consumer no process reads (ms): a feed deletes its consumer
 * when it stops; this removes the consumers of a process that died.
 */
const CONSUMER_INACTIVE_MS = 30_000;

/** Payloads are UTF-8 (one decoder: the client's `Msg.string()` would read `Msg.data`, a view made per call, again). */
const UTF8 = new TextDecoder();

/** Cursor prefix of the (empty) older history pages of event channels: the bus holds the newest page only. */
/**
 * @example
 * const source = new BusSource({ natsUrl: 'nats://127.0.0.1:4222' });
 * const client = new ExchangeClient({ restUrl, source });
 */
export class BusSource implements ReplicaSource {
  readonly names: BusNames;
  private readonly clock: Clock;
  private readonly missed: number;
  private readonly checkMs: number;
  private readonly heartbeatMs: number;
  /** One feed (one JetStream consumer) per stream key, shared by every replica of that key. */
  private readonly feeds = new Map<string, BusFeed>();
  private readonly relays = new Map<string, RelayView>();
  /** Until when (clock ms) a stream counts as carried live, per stream key. */
  private readonly liveUntil = new Map<string, number>();
  private opening?: Promise<void>;
  private nc?: NatsConnection;
  private js?: JetStreamClient;
  private jsm?: Promise<JetStreamManager>;
  private kv?: KV;
  private hb?: NatsSubscription;
  private connected = false;
  private closed = false;
  private ticker?: Timer;
  private generation = 0;
  private readonly maxHeartbeatMs: number;
  /** NATS's refusals (`ERR_BUS_PERMISSION` reported once per subject). */
  private readonly refusals: NatsRefusals;

  /** @throws InvalidParameterError for a bad option. */
  constructor(private readonly options: BusSourceOptions) {
    if (options.nats === undefined && (options.natsUrl === undefined || (typeof options.natsUrl !== 'string' && options.natsUrl.length === 0))) {
      throw new InvalidParameterError("missing option 'natsUrl': expected a NATS URL such as nats://127.0.0.1:4222", { param: 'natsUrl' });
    }
    if (options.natsUrl !== undefined) checkNatsUrls(options.natsUrl);
    checkNatsAuth(options.natsAuth);
    this.refusals = new NatsRefusals(options.natsUrl === undefined ? [] : checkNatsUrls(options.natsUrl), hasCredentials(options.natsAuth, options.natsOptions));
    this.maxHeartbeatMs = options.maxHeartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS.max;
    if (!(this.maxHeartbeatMs >= HEARTBEAT_INTERVAL_MS.min)) throw new InvalidParameterError(`invalid option 'maxHeartbeatIntervalMs': expected a number of ms >= ${HEARTBEAT_INTERVAL_MS.min}`, { param: 'maxHeartbeatIntervalMs' });
    try {
      this.names = busNames(options.prefix ?? DEFAULT_BUS_PREFIX);
    } catch (e) {
      throw new InvalidParameterError(`invalid option 'prefix': ${(e as Error).message}`, { param: 'prefix' });
    }
    this.missed = options.missedHeartbeats ?? 3;
    if (!(this.missed >= 1)) throw new InvalidParameterError("invalid option 'missedHeartbeats': expected a number >= 1", { param: 'missedHeartbeats' });
    this.checkMs = options.checkMs ?? 250;
    if (!(this.checkMs >= 1)) throw new InvalidParameterError("invalid option 'checkMs': expected a number of ms >= 1", { param: 'checkMs' });
    this.clock = options.clock ?? systemClock;
    this.heartbeatMs = options.consumerHeartbeatMs ?? 5000;
    if (!(this.heartbeatMs >= 100)) throw new InvalidParameterError("invalid option 'consumerHeartbeatMs': expected a number of ms >= 100", { param: 'consumerHeartbeatMs' });
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
    const now = this.clock.nowMs();
    const out = new Map<string, { channel: ChannelName; scope: Scope; relays: { relayId: string; status: RelayStreamStatus }[] }>();
    for (const [relayId, r] of this.relays) {
      if (now - r.atMs > this.missed * r.intervalMs) continue;
      for (const [key, s] of r.streams) {
        const e = out.get(key) ?? { channel: s.channel, scope: s.scope, relays: [] };
        e.relays.push({ relayId, status: s.status });
        out.set(key, e);
      }
    }
    return [...out.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => ({ streamKey: k, ...v }));
  }

  /** The exchange metadata the relays wrote (markets, tokens), undefined when none did. */
  async marketsMeta(): Promise<MarketsMeta | undefined> {
    await this.open();
    const kv = await this.bucket();
    const e = await kv.get(MARKETS_META_KEY);
    if (e === null || e.operation !== 'PUT') return undefined;
    return decodeMarketsMeta(e.string());
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
        () => this.admit(feed, reader),
        (e: unknown) => subscriber.error(e),
      );
      return () => {
        feed.readers.delete(reader);
        feed.stopCatchUp(reader);
        if (feed.readers.size > 0) return;
        feed.phase = 'closed';
        feed.token++;
        this.stopConsumer(feed);
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
    const { signal } = query;
    const feed = this.feeds.get(streamKey(query.channel, query.scope));
    if (feed === undefined || feed.anchor === undefined || feed.phase !== 'running') {
      throw new SnapshotError(`no bus stream is running for ${streamKey(query.channel, query.scope)}`, { channel: query.channel, stream: streamKey(query.channel, query.scope) });
    }
    const token = feed.token;
    // A reader's first request after its `subscribed`: the anchor, whose updates above S it was given (once caught up).
    if (feed.awaitingFirst) {
      await feed.caughtUp();
      if (signal.aborted || token !== feed.token || feed.phase !== 'running' || feed.anchor === undefined) throw new AbortedError('the snapshot request was aborted', { stream: feed.key });
      feed.answeredFirst();
      return loadedOf(feed.anchor);
    }
    const fresh = await this.readEntry(feed);
    if (signal.aborted || token !== feed.token || feed.phase !== 'running') throw new AbortedError('the snapshot request was aborted', { stream: feed.key });
    if (fresh === undefined) throw new SnapshotError(`the KV entry of ${feed.key} is missing or unreadable`, { stream: feed.key });
    if (feed.gapTo !== undefined && fresh.sequence < feed.gapTo - 1n) {
      throw new SnapshotError(`the KV entry of ${feed.key} is at ${fresh.sequence}, the stream resumed at ${feed.gapTo}: waiting for a newer snapshot`, { stream: feed.key });
    }
    if (fresh.sequence > (feed.lastSeq ?? feed.anchor.sequence)) return this.aheadAnswer(feed, fresh, token, signal);
    feed.reanchor(fresh);
    // At or above everything delivered: every update it lacks is still to come.
    if (feed.lastSeq === undefined || fresh.sequence >= feed.lastSeq) return loadedOf(fresh);
    // Below what was delivered: every reader starts again from the anchor, catching up from
    // JetStream (the updates it lacks were delivered before this request). Not awaited: this request ends now.
    this.rejoinAll(feed);
    throw new AbortedError(`${feed.key}: restarted from snapshot ${feed.anchor.sequence}`, { stream: feed.key });
  }

  /**
   * The answer when the KV entry is ahead of what the feed delivered: believed when a relay
   * could have written it ({@link believable}); otherwise refused, and the readers start
   * again from the feed's anchor and the stream's history (when updates above the anchor were
   * delivered), or wait for the next write.
   */
  private async aheadAnswer(feed: BusFeed, fresh: SnapshotRecord, token: number, signal: AbortSignal): Promise<LoadedSnapshot> {
    const verdict = feed.usable(fresh) ? await this.believable(feed, fresh) : { believed: false, held: false, top: undefined };
    if (signal.aborted || token !== feed.token || feed.phase !== 'running' || feed.anchor === undefined) throw new AbortedError('the snapshot request was aborted', { stream: feed.key });
    if (verdict.believed) {
      if (verdict.held) feed.reanchor(fresh);
      return loadedOf(fresh);
    }
    this.refuse(feed, fresh, verdict.top);
    const a = feed.anchor;
    if (feed.lastSeq !== undefined && a.sequence <= feed.lastSeq && feed.usable(a)) {
      this.rejoinAll(feed);
      throw new AbortedError(`${feed.key}: the KV entry is ahead of the stream; restarted from snapshot ${a.sequence} and the stream's history`, { stream: feed.key });
    }
    throw new SnapshotError(`the KV entry of ${feed.key} is at ${fresh.sequence}, ahead of the stream (at ${verdict.top ?? 'no update'}) and of every relay: waiting for the next write`, { stream: feed.key });
  }

  /**
   * Whether a relay could have written `entry`: the subject holds its seq (`held`: a relay
   * writes an entry once S + 1, or the batch ending at S, is stored), or a relay's heartbeat
   * vouches for it (a relay that resynced past updates it never published writes an entry
   * ahead of the subject, and says so in its next heartbeat: its snapshot sequence).
   */
  private async believable(feed: BusFeed, entry: SnapshotRecord): Promise<{ believed: boolean; held: boolean; top: bigint | undefined }> {
    const top = await this.subjectTop(feed).catch((e: unknown) => (this.report(permissionError(e, `reading the last message of ${feed.subject}`) ?? e), undefined));
    const held = top !== undefined && top >= entry.sequence;
    const vouched = this.vouchedFor(feed.key);
    return { believed: held || (vouched !== undefined && vouched >= entry.sequence), held, top };
  }

  /** The highest seq the relays' recent heartbeats vouch for on a stream (see {@link RelayStreamView}). */
  private vouchedFor(key: string): bigint | undefined {
    const now = this.clock.nowMs();
    let best: bigint | undefined;
    for (const r of this.relays.values()) {
      if (now - r.atMs > this.missed * r.intervalMs) continue;
      const v = r.streams.get(key)?.vouched;
      if (v !== undefined && (best === undefined || v > best)) best = v;
    }
    return best;
  }

  /** An entry not started from: reported once per entry. */
  private reportUnbelieved(feed: BusFeed, entry: SnapshotRecord, top: bigint | undefined): void {
    const id = entryId(entry);
    if (feed.unbelieved === id) return;
    feed.unbelieved = id;
    this.report(new ExchangeReplicaError('ERR_BUS', `the KV entry of ${feed.key} (S=${entry.sequence}) is ahead of the stream (at ${top ?? 'no update'}) and no relay heartbeat vouches for it: waiting for one, or for the next write`, { stream: feed.key }));
  }

  /** Marks `entry` refused for this feed (reported once per entry). */
  private refuse(feed: BusFeed, entry: SnapshotRecord, top: bigint | undefined): void {
    const id = entryId(entry);
    if (feed.refused === id || !feed.usable(entry)) return;
    feed.refused = id;
    this.report(new ExchangeReplicaError('ERR_BUS', `the KV entry of ${feed.key} (S=${entry.sequence}, written as relay ${JSON.stringify(entry.relayId.slice(0, 128))}) is ahead of the stream, which keeps moving below it (the subject holds up to ${top ?? 'no update'}): no relay could have written it; not used`, { stream: feed.key }));
  }

  /** The last exchange seq the subject holds (its last message's batch), undefined when it holds none or its last is no batch. */
  private async subjectTop(feed: BusFeed): Promise<bigint | undefined> {
    const last = await (await this.manager()).streams.getMessage(this.names.stream, { last_by_subj: feed.subject });
    if (last === null) return undefined;
    try {
      return readBatchHead(last.string(), feed.key).last;
    } catch {
      return undefined;
    }
  }

  /** Stops every stream and closes the NATS connection when it is the source's own. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ticker?.cancel();
    for (const feed of this.feeds.values()) {
      feed.phase = 'closed';
      feed.token++;
      this.stopConsumer(feed);
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
        servers: checkNatsUrls(this.options.natsUrl ?? []),
        auth: this.options.natsAuth,
        options: { waitOnFirstConnect: true, ...this.options.natsOptions },
        retry: { clock: this.clock, stopped: () => this.closed, onFirstFailure: (e) => this.report(e) },
      }));
    if (this.closed) {
      if (this.options.nats === undefined) await nc.close();
      return;
    }
    this.nc = nc;
    this.js = mods.jetstream.jetstream(nc);
    this.connected = !nc.isClosed();
    void this.watchStatus(nc);
    this.hb = nc.subscribe(this.names.heartbeatSubjects, { callback: (err, msg) => (err ? this.report(err) : this.onHeartbeat(msg.string())) });
    let lastTickMs = this.clock.nowMs();
    const tick = (): void => {
      if (this.closed) return;
      this.ticker = this.clock.setTimer(tick, this.checkMs, { unref: true });
      // A tick that comes late means this process stalled: heartbeats that arrived meanwhile
      // are read after the timers, so missing ones are not judged on this tick.
      const now = this.clock.nowMs();
      const stalled = now - lastTickMs > 2 * this.checkMs;
      lastTickMs = now;
      for (const feed of this.feeds.values()) this.check(feed, !stalled);
    };
    tick();
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'error') this.onNatsError(s.error);
      if (s.type === 'disconnect') {
        this.connected = false;
        this.liveUntil.clear();
        this.relays.clear();
        for (const feed of this.feeds.values()) this.stop(feed, 'NATS disconnected');
      } else if (s.type === 'reconnect') {
        this.connected = true;
      } else if (s.type === 'close') {
        this.connected = false;
        for (const feed of this.feeds.values()) this.stop(feed, 'NATS connection closed');
      }
    }
  }

  /** A refusal of the server: reported with its code (permissions once per subject). */
  private onNatsError(error: Error): void {
    const refusal = this.refusals.read(error);
    if (refusal?.report === true) this.report(refusal.error);
  }

  private onHeartbeat(text: string): void {
    let hb;
    try {
      hb = decodeHeartbeat(text);
    } catch (e) {
      return this.report(e);
    }
    if (hb.state === 'closing') {
      this.relays.delete(hb.relayId);
      return;
    }
    const now = this.clock.nowMs();
    const intervalRefused = !(hb.intervalMs >= HEARTBEAT_INTERVAL_MS.min && hb.intervalMs <= this.maxHeartbeatMs);
    // Judged at the default interval, and reported when a relay id starts announcing such an interval.
    const intervalMs = intervalRefused ? DEFAULT_HEARTBEAT_MS : hb.intervalMs;
    if (intervalRefused && this.relays.get(hb.relayId)?.intervalRefused !== true) {
      this.report(new ExchangeReplicaError('ERR_BUS', `a heartbeat of relay ${JSON.stringify(hb.relayId.slice(0, 128))} announces an interval of ${hb.intervalMs} ms, outside what a relay may announce (${HEARTBEAT_INTERVAL_MS.min} to ${this.maxHeartbeatMs} ms): judged at ${DEFAULT_HEARTBEAT_MS} ms`));
    }
    const streams = new Map<string, RelayStreamView>();
    for (const s of hb.streams) {
      const vouched = s.snapshotSequence === null ? s.publishedSeq : s.publishedSeq === null || s.snapshotSequence > s.publishedSeq ? s.snapshotSequence : s.publishedSeq;
      streams.set(s.streamKey, { channel: s.channel, scope: s.scope, status: s.status, vouched: vouched ?? undefined });
      if (CARRYING.has(s.status)) this.liveUntil.set(s.streamKey, Math.max(this.liveUntil.get(s.streamKey) ?? 0, now + this.missed * intervalMs));
    }
    this.relays.set(hb.relayId, { intervalMs, intervalRefused, atMs: now, streams });
    for (const feed of this.feeds.values()) if (feed.phase === 'waiting') this.check(feed);
  }

  /** Whether NATS is up and a relay heartbeat listed the stream as carried within `missedHeartbeats` intervals. */
  private carriedNow(feed: BusFeed): boolean {
    return this.connected && (this.liveUntil.get(feed.key) ?? 0) >= this.clock.nowMs();
  }

  /**
   * Starts a waiting feed whose conditions hold. A running feed whose stream no relay
   * heartbeat carries any more (judged only when `judgeMissing`) keeps its consumer: its
   * readers go `stale`, and join again (the anchor and a catch-up: the feed's consumer
   * stays, no KV read) as soon as a heartbeat carries the stream again.
   */
  private check(feed: BusFeed, judgeMissing = true): void {
    if (this.closed || feed.phase === 'closed') return;
    const carried = this.carriedNow(feed);
    if (feed.phase === 'waiting') {
      if (carried) void this.start(feed);
      return;
    }
    if (feed.phase !== 'running') return;
    const now = this.clock.nowMs();
    // The stream keeps moving below the anchor, nothing above it: the anchor is an entry no relay wrote.
    if (feed.lastSeq === undefined && feed.belowAnchor > 0 && feed.anchor !== undefined) {
      const mark = feed.belowMark;
      if (mark === undefined) feed.belowMark = { count: feed.belowAnchor, atMs: now };
      else if (feed.belowAnchor > mark.count && now - mark.atMs >= (this.options.aheadCheckMs ?? 1000)) {
        this.refuse(feed, feed.anchor, undefined);
        return this.restart(feed, `the KV entry of ${feed.key} is ahead of the stream, which keeps moving below it`);
      }
    }
    // A catch-up silent past its idle heartbeats is gone: its reader goes on (a hole shows as a gap).
    if (judgeMissing) for (const r of feed.readers) if (r.catchUp?.consumer?.stalled(this.clock.nowMs())) r.catchUp.end();
    // Silent past its idle heartbeats: the consumer is gone on the server; read from the KV entry again.
    if (judgeMissing && feed.consumer?.stalled(this.clock.nowMs())) {
      this.stop(feed, `the JetStream consumer of ${feed.key} sent nothing for ${2 * this.heartbeatMs} ms: restarting it from the KV entry`);
      if (carried) void this.start(feed);
      return;
    }
    if (!carried) {
      if (judgeMissing) feed.disconnect(`no relay heartbeat carrying ${feed.key} for ${this.missed} intervals`);
      return;
    }
    this.rejoinWaiting(feed);
    if (this.clock.nowMs() - feed.kvCheckedMs >= (this.options.aheadCheckMs ?? 1000)) {
      feed.kvCheckedMs = this.clock.nowMs();
      void this.checkAhead(feed);
    }
  }

  /** A reader subscribed: it joins a running feed that is carried, or waits for the feed to start or be carried again. */
  private admit(feed: BusFeed, reader: FeedReader): void {
    if (this.closed || feed.phase === 'closed' || !feed.readers.has(reader) || reader.up) return;
    if (feed.phase === 'waiting') return this.check(feed);
    if (feed.phase === 'running' && this.carriedNow(feed)) this.rejoinWaiting(feed);
    // starting: joined when it runs; not carried: joined when a heartbeat carries it again.
  }

  /** Readers of a running feed that are not up join it: the anchor, then a catch-up from JetStream (no new feed consumer). */
  private rejoinWaiting(feed: BusFeed): void {
    let generation: number | undefined;
    for (const r of feed.readers) {
      if (r.up) continue;
      generation ??= ++this.generation;
      this.join(feed, r, generation);
    }
  }

  /** Every reader starts again from the anchor (and catches up), without touching the consumer. */
  private rejoinAll(feed: BusFeed): void {
    const generation = ++this.generation;
    for (const r of feed.readers) this.join(feed, r, generation);
  }

  private join(feed: BusFeed, reader: FeedReader, generation: number): void {
    const plan = feed.join(reader, this.subscriptionId(feed), generation);
    if (plan !== undefined) void this.catchUp(feed, reader, plan);
  }

  /**
   * Gives a joiner the updates above the anchor that the feed delivered before it joined: a
   * consumer of its own reads the subject from the anchor's `jsStartSeq` until it passes the
   * last seq delivered at the join (or has nothing more: its idle heartbeat; or stalls), then
   * the reader's queued live updates follow (FeedReader, BusFeed.endCatchUp).
   */
  private async catchUp(feed: BusFeed, reader: FeedReader, plan: CatchUpPlan): Promise<void> {
    const token = feed.token;
    const joins = reader.joins;
    const current = (): boolean => token === feed.token && joins === reader.joins && reader.queue !== undefined && feed.readers.has(reader);
    let after = plan.after;
    let done = false;
    const end = (): void => {
      if (done) return;
      done = true;
      if (current()) feed.endCatchUp(reader, after);
    };
    const onData = (_m: Msg, data: Uint8Array): void => {
      if (done || !current()) return;
      let batch: ReturnType<typeof readSourceUpdates>;
      try {
        batch = readSourceUpdates(UTF8.decode(data), feed.key, feed.channel, after, this.clock.nowNs());
      } catch {
        // Skipped, as the feed skipped it (it reported it when it came).
        return;
      }
      for (const u of batch.updates) {
        reader.subscriber.next(u);
        after = u.seq;
      }
      if (after >= plan.until) end();
    };
    const handle: { consumer?: PushConsumer; readonly end: () => void } = { end };
    reader.catchUp = handle;
    let consumer: PushConsumer;
    try {
      const mods = await loadNats();
      const spec = { stream: this.names.stream, subject: feed.subject, startSeq: plan.from, inactiveMs: CONSUMER_INACTIVE_MS, heartbeatMs: this.heartbeatMs };
      consumer = await PushConsumer.start(mods, this.nc!, await this.manager(), spec, this.clock.nowMs(), onData, end);
    } catch (e) {
      this.report(e);
      return end();
    }
    if (done || !current()) return void consumer.stop();
    handle.consumer = consumer;
  }

  private subscriptionId(feed: BusFeed): string {
    return `${feed.subject}@${feed.anchor?.jsStartSeq ?? 0}`;
  }

  /**
   * Compares a running feed's KV entry with what was delivered: a newer entry at or below it
   * moves the anchor (a joiner's catch-up stays short); one above the last seq delivered at two checks in
   * a row (the relay resynced past updates it never published, and the stream is quiet since)
   * sends `resync_required`.
   */
  private async checkAhead(feed: BusFeed): Promise<void> {
    const token = feed.token;
    const entry = await this.readEntry(feed).catch((e: unknown) => (this.report(e), undefined));
    if (entry === undefined || token !== feed.token || feed.phase !== 'running') return;
    const at = feed.lastSeq ?? feed.anchor?.sequence ?? 0n;
    if (entry.sequence <= at) {
      feed.aheadMark = undefined;
      if (feed.gapTo === undefined || entry.sequence >= feed.gapTo - 1n) feed.reanchor(entry);
      return;
    }
    const mark = String(at);
    if (feed.aheadMark !== mark) {
      feed.aheadMark = mark;
      return;
    }
    feed.aheadMark = undefined;
    const reason = `the snapshot of ${feed.key} is at ${entry.sequence}, the subject stopped at ${at}`;
    for (const r of feed.readers) if (r.up) r.subscriber.next({ kind: 'resync_required', reason });
  }

  private async start(feed: BusFeed): Promise<void> {
    feed.phase = 'starting';
    const token = ++feed.token;
    const entry = await this.readEntry(feed).catch((e: unknown) => (this.report(e), undefined));
    if (token !== feed.token || feed.phase !== 'starting') return;
    // None yet, or one refused, or one from before a reset read on the subject: the next write.
    if (entry === undefined || !feed.usable(entry)) {
      feed.phase = 'waiting';
      return;
    }
    // One no relay could have written (see `believable`) is not started from: a relay that
    // wrote it vouches for it in its next heartbeat, or the next write replaces it.
    const verdict = await this.believable(feed, entry);
    if (token !== feed.token || feed.phase !== 'starting') return;
    if (!verdict.believed) {
      this.reportUnbelieved(feed, entry, verdict.top);
      feed.phase = 'waiting';
      return;
    }
    // Starting again (a lost JetStream consumer, a NATS reconnect): from the anchor the feed
    // had when the entry read now is of the same bus (at or above it, in seq and position), so
    // the readers go on from what they were given; a newer entry alone could leave an event
    // stream's readers a gap (its page may not reach back to what they had).
    const had = feed.anchor;
    // (Not an anchor refused since, or one from before a reset read on the subject: see BusFeed.usable.)
    const same = had !== undefined && feed.usable(had) && entry.jsStream === had.jsStream && entry.sequence >= had.sequence && entry.jsStartSeq >= had.jsStartSeq;
    await this.startConsumer(feed, same ? had : entry);
  }

  /** A new generation: a push consumer from the entry's `jsStartSeq` (PushConsumer.ts), then `subscribed` to every reader. */
  private async startConsumer(feed: BusFeed, entry: SnapshotRecord): Promise<void> {
    this.stopConsumer(feed);
    const token = ++feed.token;
    feed.phase = 'starting';
    let consumer: PushConsumer;
    // The server may deliver before it answers the creation: those messages wait for the readers' `subscribed`.
    let early: [Msg, Uint8Array][] | undefined = [];
    const onData = (m: Msg, data: Uint8Array): void => void (early !== undefined ? early.push([m, data]) : this.onMessage(feed, token, m, data));
    try {
      const mods = await loadNats();
      const spec = { stream: this.names.stream, subject: feed.subject, startSeq: entry.jsStartSeq, inactiveMs: CONSUMER_INACTIVE_MS, heartbeatMs: this.heartbeatMs };
      consumer = await PushConsumer.start(mods, this.nc!, await this.manager(), spec, this.clock.nowMs(), onData);
    } catch (e) {
      if (token === feed.token && feed.phase === 'starting') feed.phase = 'waiting';
      this.report(e);
      return;
    }
    if (token !== feed.token) return void consumer.stop();
    feed.consumer = consumer;
    feed.phase = 'running';
    feed.begin(entry);
    this.rejoinAll(feed);
    const pending = early;
    early = undefined;
    for (const [m, data] of pending) this.onMessage(feed, token, m, data);
  }

  /** One batch: its updates above the last one delivered, each to every reader (see wire/updateBatch.ts). */
  private onMessage(feed: BusFeed, token: number, m: Msg, data: Uint8Array): void {
    if (token !== feed.token) return;
    let batch: ReturnType<typeof readSourceUpdates>;
    try {
      // Above what was delivered, or above the anchor's S at first (its readers start from that snapshot).
      batch = readSourceUpdates(UTF8.decode(data), feed.key, feed.channel, feed.lastSeq ?? feed.anchor?.sequence, this.clock.nowNs());
    } catch (e) {
      const at = streamSeqOf(m);
      if (at !== undefined && isResetMessage(UTF8.decode(data))) return this.onReset(feed, Number(at));
      this.report(e);
      const reason = `unreadable message ${at ?? '?'} on ${feed.subject}: ${(e as Error).message}`;
      for (const r of feed.readers) if (r.up) r.subscriber.next({ kind: 'resync_required', reason });
      return;
    }
    if (batch.updates.length > 0) feed.deliver(batch.updates);
    else if (feed.lastSeq === undefined && feed.anchor !== undefined && batch.head.last < feed.anchor.sequence) feed.belowAnchor++;
  }

  /**
   * A reset at stream sequence `at` (wire/resetMessage.ts): what the feed delivered before it may
   * hold a message no relay applied. The feed starts again from a KV entry past the reset
   * (its relay writes one in its new epoch); its readers resync meanwhile.
   */
  private onReset(feed: BusFeed, at: number): void {
    if (!Number.isSafeInteger(at) || (feed.resetAt !== undefined && at <= feed.resetAt)) return;
    feed.resetAt = at;
    const reason = `a relay reset ${feed.key} at stream sequence ${at} (a message stored under one of its batch ids was not its batch): starting again from a snapshot written after it`;
    this.report(new ExchangeReplicaError('ERR_BUS', reason, { stream: feed.key }));
    this.restart(feed, reason);
  }

  /** The feed's consumer stops; its readers resync; it starts again (a new generation) from the next usable KV entry. */
  private restart(feed: BusFeed, reason: string): void {
    if (feed.phase === 'closed') return;
    feed.token++;
    this.stopConsumer(feed);
    feed.phase = 'waiting';
    for (const r of feed.readers) {
      feed.stopCatchUp(r);
      if (r.up) r.subscriber.next({ kind: 'resync_required', reason });
    }
  }

  private stop(feed: BusFeed, reason: string): void {
    if (feed.phase === 'closed') return;
    feed.token++;
    this.stopConsumer(feed);
    feed.phase = 'waiting';
    feed.disconnect(reason);
  }

  /** Stops reading and deletes the JetStream consumer (its `inactive_threshold` removes it when the server cannot be told). */
  private stopConsumer(feed: BusFeed): void {
    const consumer = feed.consumer;
    feed.consumer = undefined;
    void consumer?.stop();
  }

  /** The JetStream manager (consumers are created and deleted through it), made once. */
  private manager(): Promise<JetStreamManager> {
    if (this.jsm === undefined) {
      const made = this.js!.jetstreamManager(false);
      this.jsm = made;
      made.catch(() => this.jsm === made && (this.jsm = undefined));
    }
    return this.jsm;
  }

  private async bucket(): Promise<KV> {
    if (this.kv === undefined) {
      const mods = await loadNats();
      this.kv = await new mods.kv.Kvm(this.js!).open(this.names.bucket);
    }
    return this.kv;
  }

  private async readEntry(feed: BusFeed): Promise<SnapshotRecord | undefined> {
    const e = await (await this.bucket()).get(feed.kvKey);
    if (e === null || e.operation !== 'PUT') return undefined;
    // The same revision written at the same time is the same entry: not parsed again (a relay
    // rewrites it every few seconds, the checks read it every second). The revision alone is
    // not enough: a bucket recreated (a memory bucket after a nats-server restart) counts again from 1.
    const cached = feed.entryCache;
    const createdMs = e.created.getTime();
    if (cached !== undefined && cached.revision === e.revision && cached.createdMs === createdMs) return cached.record;
    const record = decodeSnapshotRecord(e.string());
    if (record.streamKey !== feed.key) throw new Error(`KV entry ${feed.kvKey} holds stream ${record.streamKey}, expected ${feed.key}`);
    feed.entryCache = { revision: e.revision, createdMs, record };
    return record;
  }

  /** The feed a snapshot request is for (each channel has its own snapshot operation). */


  private report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // A failing hook must not take the source down.
    }
  }
}

function loadedOf(entry: SnapshotRecord): LoadedSnapshot {
  return { data: entry.data, sequence: entry.sequence, timestampNs: entry.timestampNs };
}
