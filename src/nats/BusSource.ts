/**
 * The bus as a replica source: what `ReplicaRelay`s publish on NATS JetStream, read back as
 * the `ReplicaSource` of the library's replicas, so that the same `StreamSync` (alignment,
 * statuses, resync policy) and the same reducers run on it as on the exchange.
 *
 * One stream (`events(channel, scope)`):
 * - it starts when NATS is connected, a relay heartbeat lists the stream as `live` or
 *   `resyncing` (within `missedHeartbeats` of that relay's interval) and the stream's KV
 *   entry exists; until then nothing is emitted (the replica stays `syncing`);
 * - start: an ordered consumer on the stream's subject (one filter subject, deliver from the
 *   entry's `jsStartSeq`: nats-server 2.9 compatible), then `subscribed` (a new generation);
 *   each message is an `update` (the exchange's update frame, read and validated by
 *   `decodeUpdateMessage`; `receivedAtNs` from the clock); an unreadable one is reported and
 *   sends `resync_required`;
 * - `snapshot()` answers the replica's first request of a generation with that KV entry (the
 *   page its loader asks for: data, sequence, timestamp_ns); a later request (the replica
 *   resyncs: a gap, a `seq` it refused, the liveness window) reads the KV entry again:
 *   - the stream resumed after a hole at seq J and the entry is still below J - 1: a
 *     retryable `SnapshotError` (the replica backs off and asks again: every relay writes
 *     a new entry when it resyncs);
 *   - the entry covers every seq delivered in this generation: it is the answer (the
 *     consumer keeps reading; the replica drops seq <= S);
 *   - the entry is below what was delivered: the consumer restarts from that entry's
 *     `jsStartSeq` and emits `subscribed` (the replica clears and rebuilds from it);
 * - `disconnected` when NATS drops, or when no relay heartbeat listed the stream `live` or
 *   `resyncing` for `missedHeartbeats` intervals (relays gone, or every relay's exchange feed
 *   down: relay status `stale`); it
 *   starts again (a new generation, from the KV entry of that time) when both are back.
 *
 * A relay publishes only updates its own replica validated and applied, contiguously within
 * an epoch; each message is validated again here (a malformed one is never applied).
 */
import type { ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { ConnectionOptions, NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node';
import { Observable, type Subscriber } from 'rxjs';
import { systemClock, type Clock, type Timer } from '../clock';
import { AbortedError, InvalidParameterError } from '../errors';
import { CHANNELS, streamKey, type ChannelName, type ParamValues, type Scope, type SnapshotOperationName } from '../protocol';
import type { ReplicaSource, SnapshotPage, SourceEvent } from '../replicas';
import { SnapshotError } from '../replicas/SnapshotError';
import { BUS_FORMAT_VERSION, busNames, decodeHeartbeat, MARKETS_META_KEY, type MarketsMeta, decodeSnapshotRecord, DEFAULT_BUS_PREFIX, decodeUpdateMessage, snapshotKey, updateSubject, type BusNames, type RelayStreamStatus, type SnapshotRecord } from './busProtocol';
import { loadNats, type NatsModules } from './natsModules';

export interface BusSourceOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. Required unless `nats` is given. */
  readonly natsUrl?: string | readonly string[];
  /** A NATS connection to use (not closed by the source). @default one of its own, from `natsUrl` */
  readonly nats?: NatsConnection;
  /** Options of its own NATS connection. @default { maxReconnectAttempts: -1, waitOnFirstConnect: true } */
  readonly natsOptions?: Partial<ConnectionOptions>;
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
  atMs: number;
  readonly streams: Map<string, { channel: ChannelName; scope: Scope; status: RelayStreamStatus }>;
}

/**
 * Relay statuses that carry a stream: `live`, and `resyncing` (the relay is connected to the
 * exchange and realigning: what it published is what the exchange had; the next epoch shows
 * as a gap and heals from the KV). `syncing`, `stale` and `failed` do not.
 */
const CARRYING: ReadonlySet<RelayStreamStatus> = new Set(['live', 'resyncing']);

/**
 * Messages one pull of a stream's consumer asks for (the client pulls again when a quarter
 * is delivered). The library's default (100) caps a stream at about 100 messages per round
 * trip to the server: a few thousand per second on a busy machine.
 */
const PULL_BATCH = 1000;

/** Cursor prefix of the (empty) older history pages of event channels: the bus holds the newest page only. */
const OLDER_CURSOR = 'bus-older-';

class Session {
  readonly key: string;
  readonly subject: string;
  readonly kvKey: string;
  /** Bumped on every start and stop: async work of an older one is dropped. */
  token = 0;
  phase: 'waiting' | 'starting' | 'running' | 'closed' = 'waiting';
  /** The KV entry the current generation started from (and the newest one answered). */
  entry?: SnapshotRecord;
  served = false;
  lastSeq?: bigint;
  /** First seq after a hole seen in this generation. */
  gapTo?: bigint;
  messages?: ConsumerMessages;
  /** Whether `subscribed` was sent since the last `disconnected`. */
  up = false;
  /** When the KV entry was last compared with what was delivered (clock ms). */
  kvCheckedMs = 0;
  /** `lastSeq` when the KV entry was last seen above it (two such checks in a row resync). */
  aheadMark?: string;

  constructor(
    readonly channel: ChannelName,
    readonly scope: Scope,
    readonly subscriber: Subscriber<SourceEvent>,
    names: BusNames,
  ) {
    this.key = streamKey(channel, scope);
    this.subject = updateSubject(names, channel, scope);
    this.kvKey = snapshotKey(channel, scope);
  }
}

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
  private readonly sessions = new Set<Session>();
  private readonly relays = new Map<string, RelayView>();
  /** Until when (clock ms) a stream counts as carried live, per stream key. */
  private readonly liveUntil = new Map<string, number>();
  private opening?: Promise<void>;
  private nc?: NatsConnection;
  private js?: JetStreamClient;
  private kv?: KV;
  private hb?: NatsSubscription;
  private connected = false;
  private closed = false;
  private ticker?: Timer;
  private generation = 0;

  /** @throws InvalidParameterError for a bad option. */
  constructor(private readonly options: BusSourceOptions) {
    if (options.nats === undefined && (options.natsUrl === undefined || (typeof options.natsUrl !== 'string' && options.natsUrl.length === 0))) {
      throw new InvalidParameterError("missing option 'natsUrl': expected a NATS URL such as nats://127.0.0.1:4222", { param: 'natsUrl' });
    }
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
  }

  /** Connects to NATS (once; also done by the first subscription). @throws ExchangeReplicaError ERR_BUS when the NATS packages are missing */
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
    const meta = JSON.parse(e.string()) as MarketsMeta;
    return meta.v === BUS_FORMAT_VERSION && Array.isArray(meta.markets) ? meta : undefined;
  }

  events(channel: ChannelName, scope: Scope): Observable<SourceEvent> {
    return new Observable<SourceEvent>((subscriber) => {
      const session = new Session(channel, scope, subscriber, this.names);
      this.sessions.add(session);
      this.open().then(
        () => this.check(session),
        (e: unknown) => subscriber.error(e),
      );
      return () => {
        session.phase = 'closed';
        session.token++;
        this.stopConsumer(session);
        this.sessions.delete(session);
      };
    });
  }

  async snapshot(operation: SnapshotOperationName, params: ParamValues, signal: AbortSignal): Promise<SnapshotPage> {
    const session = this.sessionOf(operation, params);
    const cursor = params['cursor'];
    if (typeof cursor === 'string' && cursor.startsWith(OLDER_CURSOR)) {
      // Older history pages: the bus keeps only the newest page (a gap marker shows the rest).
      const n = Number(cursor.slice(OLDER_CURSOR.length)) || 1;
      return { data: [], sequence: session?.entry?.sequence.toString() ?? '0', next_cursor: `${OLDER_CURSOR}${n + 1}` };
    }
    if (session === undefined || session.entry === undefined || session.phase !== 'running') {
      throw new SnapshotError(`no bus stream is running for ${operation} ${JSON.stringify(params)}`, { operation });
    }
    if (!session.served) {
      session.served = true;
      return pageOf(session.entry);
    }
    const token = session.token;
    const fresh = await this.readEntry(session);
    if (signal.aborted || token !== session.token) throw new AbortedError('the snapshot request was aborted', { stream: session.key });
    if (fresh === undefined) throw new SnapshotError(`the KV entry of ${session.key} is missing or unreadable`, { stream: session.key });
    if (session.gapTo !== undefined && fresh.sequence < session.gapTo - 1n) {
      throw new SnapshotError(`the KV entry of ${session.key} is at ${fresh.sequence}, the stream resumed at ${session.gapTo}: waiting for a newer snapshot`, { stream: session.key });
    }
    if (session.lastSeq === undefined || fresh.sequence >= session.lastSeq) {
      session.entry = fresh;
      session.gapTo = undefined;
      return pageOf(fresh);
    }
    // Behind what this generation delivered: read the subject again from that entry.
    await this.startConsumer(session, fresh);
    throw new AbortedError(`${session.key}: restarted from snapshot ${fresh.sequence}`, { stream: session.key });
  }

  /** Stops every stream and closes the NATS connection when it is the source's own. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ticker?.cancel();
    for (const s of this.sessions) {
      s.phase = 'closed';
      s.token++;
      this.stopConsumer(s);
      s.subscriber.complete();
    }
    this.sessions.clear();
    this.hb?.unsubscribe();
    await this.opening?.catch(() => undefined);
    if (this.options.nats === undefined && this.nc !== undefined && !this.nc.isClosed()) await this.nc.close().catch(() => undefined);
  }

  // ---- connection, heartbeats, checks ---------------------------------------

  private async connect(): Promise<void> {
    const mods: NatsModules = await loadNats();
    const servers = typeof this.options.natsUrl === 'string' ? [this.options.natsUrl] : [...(this.options.natsUrl ?? [])];
    const nc = this.options.nats ?? (await mods.transport.connect({ maxReconnectAttempts: -1, waitOnFirstConnect: true, ...this.options.natsOptions, servers }));
    if (this.closed) {
      if (this.options.nats === undefined) await nc.close();
      return;
    }
    this.nc = nc;
    this.js = mods.jetstream.jetstream(nc);
    this.connected = !nc.isClosed();
    void this.watchStatus(nc);
    this.hb = nc.subscribe(this.names.heartbeatSubjects, { callback: (err, msg) => (err ? this.report(err) : this.onHeartbeat(msg.string())) });
    const tick = (): void => {
      if (this.closed) return;
      this.ticker = this.clock.setTimer(tick, this.checkMs, { unref: true });
      for (const s of this.sessions) this.check(s);
    };
    tick();
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        this.connected = false;
        this.liveUntil.clear();
        this.relays.clear();
        for (const session of this.sessions) this.stop(session, 'NATS disconnected');
      } else if (s.type === 'reconnect') {
        this.connected = true;
      } else if (s.type === 'close') {
        this.connected = false;
        for (const session of this.sessions) this.stop(session, 'NATS connection closed');
      }
    }
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
    const streams = new Map<string, { channel: ChannelName; scope: Scope; status: RelayStreamStatus }>();
    for (const s of hb.streams) {
      streams.set(s.streamKey, { channel: s.channel, scope: s.scope, status: s.status });
      if (CARRYING.has(s.status)) this.liveUntil.set(s.streamKey, Math.max(this.liveUntil.get(s.streamKey) ?? 0, now + this.missed * hb.intervalMs));
    }
    this.relays.set(hb.relayId, { intervalMs: hb.intervalMs, atMs: now, streams });
    for (const session of this.sessions) if (session.phase === 'waiting') this.check(session);
  }

  /** Starts a waiting stream whose conditions hold; stops a running one whose do not. */
  private check(session: Session): void {
    if (this.closed || session.phase === 'closed') return;
    const carried = this.connected && (this.liveUntil.get(session.key) ?? 0) >= this.clock.nowMs();
    if (session.phase === 'running' && !carried) {
      this.stop(session, this.connected ? `no relay heartbeat carrying ${session.key} for ${this.missed} intervals` : 'NATS unreachable');
    } else if (session.phase === 'running' && session.served && this.clock.nowMs() - session.kvCheckedMs >= (this.options.aheadCheckMs ?? 1000)) {
      session.kvCheckedMs = this.clock.nowMs();
      void this.checkAhead(session);
    } else if (session.phase === 'waiting' && carried) {
      void this.start(session);
    }
  }

  /** A quiet stream whose KV entry moved above what was delivered (updates the relay never published): resync from it. */
  private async checkAhead(session: Session): Promise<void> {
    const token = session.token;
    const entry = await this.readEntry(session).catch((e: unknown) => (this.report(e), undefined));
    if (entry === undefined || token !== session.token || session.phase !== 'running') return;
    const at = session.lastSeq ?? session.entry?.sequence ?? 0n;
    if (entry.sequence <= at) {
      session.aheadMark = undefined;
      return;
    }
    const mark = String(at);
    if (session.aheadMark !== mark) {
      session.aheadMark = mark;
      return;
    }
    session.aheadMark = undefined;
    session.subscriber.next({ kind: 'resync_required', reason: `the snapshot of ${session.key} is at ${entry.sequence}, the subject stopped at ${at}` });
  }

  private async start(session: Session): Promise<void> {
    session.phase = 'starting';
    const token = ++session.token;
    const entry = await this.readEntry(session).catch((e: unknown) => (this.report(e), undefined));
    if (token !== session.token || session.phase !== 'starting') return;
    if (entry === undefined) {
      session.phase = 'waiting';
      return;
    }
    await this.startConsumer(session, entry);
  }

  /** A new generation: an ordered consumer from the entry's `jsStartSeq`, then `subscribed`. */
  private async startConsumer(session: Session, entry: SnapshotRecord): Promise<void> {
    this.stopConsumer(session);
    const token = ++session.token;
    session.phase = 'starting';
    let messages: ConsumerMessages;
    try {
      const mods = await loadNats();
      const consumer = await this.js!.consumers.get(this.names.stream, { filter_subjects: session.subject, deliver_policy: mods.jetstream.DeliverPolicy.StartSequence, opt_start_seq: entry.jsStartSeq });
      if (token !== session.token) return;
      messages = await consumer.consume({ max_messages: PULL_BATCH, callback: (m) => this.onMessage(session, token, m) });
    } catch (e) {
      if (token === session.token && session.phase === 'starting') session.phase = 'waiting';
      this.report(e);
      return;
    }
    if (token !== session.token) {
      void messages.close();
      return;
    }
    session.messages = messages;
    session.phase = 'running';
    session.entry = entry;
    session.served = false;
    session.lastSeq = undefined;
    session.gapTo = undefined;
    session.aheadMark = undefined;
    session.up = true;
    const generation = ++this.generation;
    session.subscriber.next({ kind: 'subscribed', subscriptionId: `${session.subject}@${entry.jsStartSeq}`, generation });
  }

  private onMessage(session: Session, token: number, m: JsMsg): void {
    if (token !== session.token) return;
    let seq: bigint;
    let timestampNs: bigint;
    let data: unknown;
    try {
      ({ seq, timestampNs, data } = decodeUpdateMessage(m.string(), session.key, session.channel));
    } catch (e) {
      this.report(e);
      session.subscriber.next({ kind: 'resync_required', reason: `unreadable message ${m.seq} on ${session.subject}: ${(e as Error).message}` });
      return;
    }
    const receivedAtNs = this.clock.nowNs();
    if (session.lastSeq !== undefined && seq > session.lastSeq + 1n) session.gapTo = seq;
    if (session.lastSeq === undefined || seq > session.lastSeq) session.lastSeq = seq;
    session.subscriber.next({ kind: 'update', seq, timestampNs, receivedAtNs, data });
  }

  private stop(session: Session, reason: string): void {
    if (session.phase === 'closed') return;
    session.token++;
    this.stopConsumer(session);
    session.phase = 'waiting';
    if (session.up) {
      session.up = false;
      session.subscriber.next({ kind: 'disconnected', reason });
    }
  }

  private stopConsumer(session: Session): void {
    const m = session.messages;
    session.messages = undefined;
    if (m !== undefined) void m.close().catch(() => undefined);
  }

  private async bucket(): Promise<KV> {
    if (this.kv === undefined) {
      const mods = await loadNats();
      this.kv = await new mods.kv.Kvm(this.js!).open(this.names.bucket);
    }
    return this.kv;
  }

  private async readEntry(session: Session): Promise<SnapshotRecord | undefined> {
    const e = await (await this.bucket()).get(session.kvKey);
    if (e === null || e.operation !== 'PUT') return undefined;
    const record = decodeSnapshotRecord(e.string());
    if (record.streamKey !== session.key) throw new Error(`KV entry ${session.kvKey} holds stream ${record.streamKey}, expected ${session.key}`);
    return record;
  }

  private sessionOf(operation: SnapshotOperationName, params: ParamValues): Session | undefined {
    const { cursor: _cursor, ...rest } = params;
    const wanted = JSON.stringify(rest);
    let found: Session | undefined;
    for (const s of this.sessions) {
      const spec = CHANNELS[s.channel];
      if (spec.snapshot !== operation || JSON.stringify(spec.snapshotParams(s.scope)) !== wanted) continue;
      // Two replicas of one stream (e.g. `account()` and `balances()`): the one whose generation awaits its first snapshot first.
      const rank = (x: Session) => (x.phase === 'running' ? (x.served ? 1 : 2) : 0);
      if (found === undefined || rank(s) > rank(found)) found = s;
    }
    return found;
  }

  private report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // A failing hook must not take the source down.
    }
  }
}

function pageOf(entry: SnapshotRecord): SnapshotPage {
  const base = { sequence: entry.sequence.toString(), timestamp_ns: entry.timestampNs.toString() };
  const d = entry.data;
  if (CHANNELS[entry.channel].kind === 'events' && typeof d === 'object' && d !== null && !Array.isArray(d) && 'records' in d) {
    const h = d as { records: unknown; exhausted?: unknown };
    return { ...base, data: h.records, next_cursor: h.exhausted === true ? null : `${OLDER_CURSOR}1` };
  }
  return { ...base, data: d, next_cursor: null };
}
