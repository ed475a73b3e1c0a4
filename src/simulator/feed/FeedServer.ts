/**
 * The simulator's WebSocket feed (streaming-protocol.md sections 1-4): served at `/ws` of an
 * existing HTTP server, fanning the stream hub's events out to every subscription of each
 * stream. Also the mechanism behind the feed faults (the FaultInjector is their API).
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { systemClock, type Clock } from '../../clock/Clock';
import { FEED_PATH, SERVER_IDLE_TIMEOUT_MS, streamKey, updateFramePrefix, writeServerFrame, type ChannelName, type Scope } from '../../protocol';
import { withDefaults } from '../../util/withDefaults';
import type { ScopeChecker } from '../ScopeChecker';
import type { StreamEvent, StreamHub } from '../StreamHub';
import type { ConnectionInfo } from './ConnectionInfo';
import { FeedConnection, type ConnectionHost } from './FeedConnection';
import type { FeedSubscription } from './FeedSubscription';
import { FrameDelay, NO_FRAME_DELAY, type FrameDelaySpec } from './FrameDelay';
import type { QueueEnvironment } from './OutgoingQueue';
import { StreamFaults, type StreamVerdict } from './StreamFaults';

/** Options of a {@link FeedServer}. */
export interface FeedServerOptions {
  /**
   * A connection that sent no frame for this long gets `HEARTBEAT_TIMEOUT` and is closed.
   * @default 60000
   */
  heartbeatTimeoutMs?: number;
  /**
   * Bound of a connection's outgoing queue in bytes (frames waiting in the server plus the
   * socket's unsent buffer). Past it the socket is dropped at once.
   * @default 4194304 (4 MiB)
   */
  maxQueueBytes?: number;
  /**
   * Answer every new connection with `FEED_UNAVAILABLE` and close it (code 1000).
   * @default false
   */
  feedUnavailable?: boolean;
  /**
   * URL path of the feed.
   * @default "/ws"
   */
  path?: string;
  /**
   * Time source: `update.timestamp_ns` and `pong.timestamp_ns` (its `nowNs()`), heartbeat
   * deadlines, frame delays and stalls (its `nowMs()` and timers).
   * @default systemClock
   */
  clock?: Clock;
}

/** Defaults of {@link FeedServerOptions}, applied in one place. */
export const FEED_SERVER_DEFAULTS = {
  heartbeatTimeoutMs: SERVER_IDLE_TIMEOUT_MS,
  maxQueueBytes: 4 * 1024 * 1024,
  feedUnavailable: false,
  path: FEED_PATH,
  clock: systemClock,
} as const satisfies Required<FeedServerOptions>;

/** Largest client frame accepted (client frames are a few hundred bytes). */
const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

/**
 * @example
 * const http = createServer(restHandler);
 * const feed = new FeedServer(http, engine.hub, engine, { heartbeatTimeoutMs: 5000 });
 * http.listen(0, '127.0.0.1');
 * // ... later
 * await feed.close();
 */
export class FeedServer {
  private readonly options: Required<FeedServerOptions>;
  private readonly wss = new WebSocketServer({ noServer: true, clientTracking: false, maxPayload: MAX_CLIENT_FRAME_BYTES });
  private readonly conns = new Map<number, FeedConnection>();
  /** Sockets answered with FEED_UNAVAILABLE, until they close. */
  private readonly refused = new Set<WebSocket>();
  /** Active subscriptions by stream key. */
  private readonly streams = new Map<string, Set<FeedSubscription>>();
  /** Per-stream skips and stalls. */
  readonly streamFaults: StreamFaults;
  private readonly env: QueueEnvironment;
  private readonly host: ConnectionHost;
  private readonly offHub: () => void;
  private sharedDelay: FrameDelaySpec = NO_FRAME_DELAY;
  private jitterSeed = 1;
  private unavailable: boolean;
  private overflows = 0;
  private nextConnectionId = 1;
  private nextSubscriptionId = 1;
  private closed = false;

  constructor(
    private readonly http: HttpServer,
    hub: StreamHub,
    private readonly scopes: ScopeChecker,
    options: FeedServerOptions = {},
  ) {
    this.options = withDefaults<FeedServerOptions>(FEED_SERVER_DEFAULTS, options);
    this.unavailable = this.options.feedUnavailable;
    this.streamFaults = new StreamFaults((key) => {
      for (const c of this.conns.values()) c.queue.releaseStream(key);
    }, this.options.clock);
    this.env = {
      maxQueueBytes: this.options.maxQueueBytes,
      frameDelay: () => this.sharedDelay,
      isStreamStalled: (key) => this.streamFaults.isStalled(key),
      clock: this.options.clock,
    };
    this.host = {
      heartbeatTimeoutMs: this.options.heartbeatTimeoutMs,
      subscribe: (connectionId, channel, scope) => this.subscribe(connectionId, channel, scope),
      unsubscribe: (sub) => this.streams.get(sub.key)?.delete(sub),
      closed: (connectionId) => {
        this.conns.delete(connectionId);
        this.streamFaults.forgetConnection(connectionId);
      },
      overflowed: () => void this.overflows++,
    };
    this.offHub = hub.onEvent(this.fanOut);
    http.on('upgrade', this.onUpgrade);
  }

  /** Sockets dropped so far because their outgoing queue overflowed `maxQueueBytes`. */
  get overflowDrops(): number {
    return this.overflows;
  }

  /** Open connections, oldest first, with their subscriptions. */
  connections(): ConnectionInfo[] {
    return [...this.conns.values()].map((c) => c.info());
  }

  /** Stream keys that have at least one subscriber, sorted. */
  subscribedStreams(): string[] {
    return [...this.streams.entries()].filter(([, subs]) => subs.size > 0).map(([key]) => key).sort();
  }

  /** Drops every socket at once (no close frame). Returns how many were dropped. */
  dropAll(): number {
    const all = [...this.conns.values()];
    for (const c of all) c.drop();
    return all.length;
  }

  /** Drops one socket at once; without `id`, the newest connection. Returns false when there was none. */
  dropConnection(id?: number): boolean {
    const c = id === undefined ? [...this.conns.values()].at(-1) : this.conns.get(id);
    if (!c) return false;
    c.drop();
    return true;
  }

  /** Holds every outgoing frame of a connection (without `id`: of every connection) for `ms`. */
  stallConnection(ms: number, id?: number): number {
    const targets = id === undefined ? [...this.conns.values()] : [this.conns.get(id)].filter((c) => c !== undefined);
    for (const c of targets) c.stall(ms);
    return targets.length;
  }

  /** Ends every connection stall now. */
  unstallAll(): void {
    for (const c of this.conns.values()) c.unstall();
  }

  /** True when connection `connectionId` is open and has an active subscription to stream `key`. */
  isSubscribed(connectionId: number, key: string): boolean {
    return this.conns.get(connectionId)?.subscriptions().some((sub) => sub.key === key) ?? false;
  }

  /** Delays every frame by `ms` from now on (0 = none), without jitter; order is kept. */
  setDelayMs(ms: number): void {
    this.setFrameDelay({ ms, jitterMs: 0 });
  }

  /**
   * Delays every frame of every connection from now on by `spec.ms` plus a uniform draw in
   * [0, `spec.jitterMs`), drawn per frame from each connection's own seeded generator (see
   * {@link seedJitter}); order is kept per connection. `{ ms: 0, jitterMs: 0 }` = none.
   */
  setFrameDelay(spec: FrameDelaySpec): void {
    this.sharedDelay = spec.ms <= 0 && spec.jitterMs <= 0 ? NO_FRAME_DELAY : { ms: spec.ms, jitterMs: spec.jitterMs };
  }

  /** The delay of every connection's frames in force. */
  get frameDelay(): FrameDelaySpec {
    return this.sharedDelay;
  }

  /** The fixed part of the delay of every connection's frames, in ms. */
  get frameDelayMs(): number {
    return this.sharedDelay.ms;
  }

  /**
   * Sets connection `id`'s own frame delay, added to the delay of every connection from its
   * next frame on; order is kept. `{ ms: 0, jitterMs: 0 }` removes it. Returns false when
   * no such connection is open.
   */
  setConnectionDelay(id: number, spec: FrameDelaySpec): boolean {
    const c = this.conns.get(id);
    if (!c) return false;
    c.setDelay(spec.ms <= 0 && spec.jitterMs <= 0 ? NO_FRAME_DELAY : { ms: spec.ms, jitterMs: spec.jitterMs });
    return true;
  }

  /** Removes every connection's own frame delay (frames already waiting keep their due time). */
  clearConnectionDelays(): void {
    for (const c of this.conns.values()) c.setDelay(NO_FRAME_DELAY);
  }

  /**
   * Seeds the jitter of frame delays: connection `id` draws from a generator seeded by
   * (`seed`, `id`) alone, so its draws depend neither on other connections nor on timing.
   * Applies to connections opened from now on (the FaultInjector seeds it at construction
   * with its fault seed). Default seed: 1.
   */
  seedJitter(seed: number): void {
    this.jitterSeed = seed;
  }

  /** While on, new connections are answered with `FEED_UNAVAILABLE` and closed; open ones are untouched. */
  setFeedUnavailable(on: boolean): void {
    this.unavailable = on;
  }

  get feedUnavailable(): boolean {
    return this.unavailable;
  }

  /** Drops every socket, stops every timer and detaches from the HTTP server and the hub. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.offHub();
    this.http.off('upgrade', this.onUpgrade);
    this.streamFaults.dispose();
    this.dropAll();
    for (const ws of this.refused) ws.terminate();
    this.refused.clear();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private readonly fanOut = (event: StreamEvent): void => {
    const verdict = this.streamFaults.verdict(event.key);
    const subs = this.streams.get(event.key);
    if (subs === undefined || subs.size === 0) return;
    if (verdict === 'deliver') {
      if (this.streamFaults.hasConnectionSkips(event.key)) this.fanOutPerConnection(subs, event);
      else for (const sub of subs) this.conns.get(sub.connectionId)?.deliver(sub, event);
    } else if (verdict === 'skipWithResync') {
      for (const sub of subs) sub.resyncPending = true;
    }
  };

  /** Fan-out while some connection skips updates of this stream: one verdict per connection (all its subscriptions of the stream alike). */
  private fanOutPerConnection(subs: ReadonlySet<FeedSubscription>, event: StreamEvent): void {
    const verdicts = new Map<number, StreamVerdict>();
    for (const sub of subs) {
      let v = verdicts.get(sub.connectionId);
      if (v === undefined) verdicts.set(sub.connectionId, (v = this.streamFaults.connectionVerdict(event.key, sub.connectionId)));
      if (v === 'deliver') this.conns.get(sub.connectionId)?.deliver(sub, event);
      else if (v === 'skipWithResync') sub.resyncPending = true;
    }
  }

  private subscribe(connectionId: number, channel: ChannelName, scope: Scope): FeedSubscription | string {
    const refusal = this.scopes.checkScopeExists(channel, scope);
    if (refusal !== undefined) return refusal;
    const id = String(this.nextSubscriptionId++);
    const key = streamKey(channel, scope);
    const sub: FeedSubscription = { id, channel, scope, key, connectionId, updatePrefix: updateFramePrefix(id, channel), resyncPending: false, active: true };
    let set = this.streams.get(key);
    if (!set) this.streams.set(key, (set = new Set()));
    set.add(sub);
    return sub;
  }

  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (this.closed || path !== this.options.path) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, socket, req));
  };

  private accept(ws: WebSocket, raw: Duplex, req: IncomingMessage): void {
    if (this.closed) {
      ws.terminate();
      return;
    }
    if (this.unavailable) {
      this.refused.add(ws);
      ws.on('close', () => this.refused.delete(ws));
      ws.on('error', () => {});
      ws.send(writeServerFrame({ type: 'error', request_id: '', subscription_id: null, code: 'FEED_UNAVAILABLE', error: 'this deployment does not serve the streaming feed' }));
      ws.close(1000, 'FEED_UNAVAILABLE');
      return;
    }
    const id = this.nextConnectionId++;
    const conn = new FeedConnection(id, ws, raw, this.host, this.env, `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`, new FrameDelay(this.jitterSeed, id));
    this.conns.set(id, conn);
  }
}
