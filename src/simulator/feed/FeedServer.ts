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
import { FeedConnection, type ConnectionHost, type ConnectionInfo } from './FeedConnection';
import type { FeedSubscription } from './FeedSubscription';
import type { QueueEnvironment } from './OutgoingQueue';
import { StreamFaults } from './StreamFaults';

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
  private delayMs = 0;
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
      delayMs: () => this.delayMs,
      isStreamStalled: (key) => this.streamFaults.isStalled(key),
      clock: this.options.clock,
    };
    this.host = {
      heartbeatTimeoutMs: this.options.heartbeatTimeoutMs,
      subscribe: (connectionId, channel, scope) => this.subscribe(connectionId, channel, scope),
      unsubscribe: (sub) => this.streams.get(sub.key)?.delete(sub),
      closed: (connectionId) => this.conns.delete(connectionId),
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

  /** Delays every frame by `ms` from now on (0 = none); order is kept. */
  setDelayMs(ms: number): void {
    this.delayMs = ms;
  }

  get frameDelayMs(): number {
    return this.delayMs;
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
      for (const sub of subs) this.conns.get(sub.connectionId)?.deliver(sub, event);
    } else if (verdict === 'skipWithResync') {
      for (const sub of subs) sub.resyncPending = true;
    }
  };

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
    const conn = new FeedConnection(id, ws, raw, this.host, this.env, `${req.socket.remoteAddress ?? ''}:${req.socket.remotePort ?? ''}`);
    this.conns.set(id, conn);
  }
}
