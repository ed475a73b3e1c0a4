/**
 * A small scriptable feed server for the connection and router tests (the real simulator is
 * tested end to end elsewhere). It listens on 127.0.0.1, port 0, speaks enough of the
 * protocol (subscribe/unsubscribe/ping), records every frame it receives and lets a test
 * send updates and errors, hold back acks, or drop sockets on demand.
 */
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { isChannelName, validateScope, type SubscribeFrame } from '../../src/protocol';
import { WAIT_MS } from './deadlines';

/** A frame the server received, parsed (anything JSON); `type` is there for protocol frames. */
export type ReceivedFrame = { type?: string; request_id?: string; subscription_id?: string; channel?: string } & Record<string, unknown>;

export interface WsTestServerOptions {
  /** Acknowledge subscribes at once; when false they wait in `unanswered` for `ack()`/`refuse()`. @default true */
  autoAck?: boolean;
  /** Answer pings with pongs. @default true */
  answerPings?: boolean;
  /** On each new connection, send this error frame code first and close (e.g. FEED_UNAVAILABLE). */
  refuseConnectionsWith?: string;
  /** Server-side refusal of a well-formed subscribe (e.g. an unknown market): returns the error to send. */
  refuseSubscribe?: (frame: SubscribeFrame) => { code: string; error: string } | undefined;
  /** First subscription id handed out on connection number `index`. @default 1 on every connection (ids are per connection) */
  firstIdOf?: (index: number) => number;
}

/** A wait's bound when none is given: it only catches a hang (see deadlines.ts). */
const DEFAULT_WAIT_MS = WAIT_MS;

/** Resolves on the first `event` for which `check()` holds (checked now and after each event), or rejects after `timeoutMs`. */
export function waitUntil(emitter: { on(e: string, l: (...a: unknown[]) => void): unknown; off(e: string, l: (...a: unknown[]) => void): unknown }, event: string, check: () => boolean, what: string, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const listener = () => {
      if (!check()) return;
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      emitter.off(event, listener);
    };
    emitter.on(event, listener);
  });
}

export class ServerConnection extends EventEmitter {
  /** Every frame received, in order. */
  readonly received: ReceivedFrame[] = [];
  /** Live subscriptions by server id. */
  readonly subscriptions = new Map<string, SubscribeFrame>();
  /** Subscribes not answered yet (autoAck false). */
  readonly unanswered: SubscribeFrame[] = [];
  autoAck: boolean;
  answerPings: boolean;
  isClosed = false;
  private nextId: number;

  constructor(
    readonly index: number,
    readonly socket: WebSocket,
    private readonly options: WsTestServerOptions,
  ) {
    super();
    this.autoAck = options.autoAck ?? true;
    this.answerPings = options.answerPings ?? true;
    this.nextId = options.firstIdOf?.(index) ?? 1;
    socket.on('message', (data) => this.onFrame(String(data)));
    socket.on('close', () => {
      this.isClosed = true;
      this.emit('closed');
    });
    socket.on('error', () => undefined);
  }

  send(frame: object | string): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Acknowledges a subscribe with the next id of this connection. */
  ack(frame: SubscribeFrame): string {
    const id = String(this.nextId++);
    this.subscriptions.set(id, frame);
    this.send({ type: 'subscribed', request_id: frame.request_id, subscription_id: id, channel: frame.channel });
    return id;
  }

  /** Answers a subscribe with an error frame. */
  refuse(frame: SubscribeFrame, code: string, error: string): void {
    this.sendError(code, error, frame.request_id);
  }

  sendUpdate(subscriptionId: string, seq: number | bigint, data: unknown, channel?: string): void {
    const ch = channel ?? this.subscriptions.get(subscriptionId)?.channel ?? 'book';
    this.send({ type: 'update', subscription_id: subscriptionId, channel: ch, seq: String(seq), timestamp_ns: '1732200000000000000', data });
  }

  sendResync(subscriptionId: string, reason: 'gap' | 'lag'): void {
    const channel = this.subscriptions.get(subscriptionId)?.channel ?? 'book';
    this.send({ type: 'resync_required', subscription_id: subscriptionId, channel, reason });
  }

  sendError(code: string, error: string, requestId = '', subscriptionId: string | null = null): void {
    this.send({ type: 'error', request_id: requestId, subscription_id: subscriptionId, code, error });
  }

  /** The server id of the live subscription of `channel` (the first one). */
  idOf(channel: string): string | undefined {
    for (const [id, f] of this.subscriptions) if (f.channel === channel) return id;
    return undefined;
  }

  /** Drops the socket abruptly (no close frame), like an overflowing server queue. */
  drop(): void {
    this.socket.terminate();
  }

  /** Sends HEARTBEAT_TIMEOUT and closes, like the server's idle timer. */
  heartbeatTimeout(): void {
    this.sendError('HEARTBEAT_TIMEOUT', 'no message received for 60 seconds');
    this.socket.close(1000, 'heartbeat timeout');
  }

  /** Frames of `type` received so far. */
  framesOf(type: string): ReceivedFrame[] {
    return this.received.filter((f) => f.type === type);
  }

  /** Resolves with the first received frame at index >= `from` that matches. */
  async waitForFrame(match: (f: ReceivedFrame) => boolean, what: string, from = 0, timeoutMs = DEFAULT_WAIT_MS): Promise<ReceivedFrame> {
    let found: ReceivedFrame | undefined;
    await waitUntil(this, 'frame', () => (found = this.received.slice(from).find(match)) !== undefined, what, timeoutMs);
    return found!;
  }

  waitClosed(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
    return waitUntil(this, 'closed', () => this.isClosed, `server connection ${this.index} to close`, timeoutMs);
  }

  private onFrame(text: string): void {
    let frame: ReceivedFrame;
    try {
      frame = JSON.parse(text) as ReceivedFrame;
    } catch {
      this.received.push({ unparsed: text });
      this.sendError('INVALID_MESSAGE', 'frame is not JSON');
      this.emit('frame');
      return;
    }
    this.received.push(frame);
    this.answer(frame);
    this.emit('frame');
  }

  private answer(frame: ReceivedFrame): void {
    const requestId = typeof frame.request_id === 'string' ? frame.request_id : '';
    if (frame.type === 'ping') {
      if (this.answerPings) this.send({ type: 'pong', request_id: requestId, timestamp_ns: '1732200000000000000' });
    } else if (frame.type === 'unsubscribe') {
      const id = String(frame.subscription_id);
      if (this.subscriptions.delete(id)) this.send({ type: 'unsubscribed', request_id: requestId, subscription_id: id });
      else this.sendError('UNKNOWN_SUBSCRIPTION', `subscription ${id} is not active on this connection`, requestId);
    } else if (frame.type === 'subscribe') {
      const sub = frame as unknown as SubscribeFrame;
      if (!isChannelName(sub.channel)) return this.sendError('UNKNOWN_CHANNEL', `unknown channel ${sub.channel}`, requestId);
      const { type: _t, request_id: _r, channel: _c, ...scope } = sub;
      const checked = validateScope(sub.channel, scope);
      if (!checked.ok) return this.sendError('INVALID_SUBSCRIPTION', checked.message, requestId);
      const refusal = this.options.refuseSubscribe?.(sub);
      if (refusal) return this.sendError(refusal.code, refusal.error, requestId);
      if (this.autoAck) this.ack(sub);
      else this.unanswered.push(sub);
    } else {
      this.sendError('INVALID_MESSAGE', `unknown frame type ${String(frame.type)}`, requestId);
    }
  }
}

export class WsTestServer extends EventEmitter {
  readonly connections: ServerConnection[] = [];

  private constructor(
    private readonly wss: WebSocketServer,
    readonly url: string,
    private readonly options: WsTestServerOptions,
  ) {
    super();
    wss.on('connection', (socket) => {
      const conn = new ServerConnection(this.connections.length, socket, this.options);
      this.connections.push(conn);
      if (this.options.refuseConnectionsWith) {
        conn.sendError(this.options.refuseConnectionsWith, 'the streaming feed is not served by this deployment');
        socket.close(1000);
      }
      this.emit('connection', conn);
    });
  }

  static start(options: WsTestServerOptions = {}): Promise<WsTestServer> {
    return new Promise((resolve, reject) => {
      const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws' });
      wss.once('error', reject);
      wss.once('listening', () => {
        const { port } = wss.address() as AddressInfo;
        resolve(new WsTestServer(wss, `ws://127.0.0.1:${port}/ws`, options));
      });
    });
  }

  /** Resolves with connection number `index` (0-based) once it exists. */
  async connection(index: number, timeoutMs = DEFAULT_WAIT_MS): Promise<ServerConnection> {
    await waitUntil(this, 'connection', () => this.connections.length > index, `server connection #${index}`, timeoutMs);
    return this.connections[index]!;
  }

  /** Live subscriptions summed over the open connections. */
  liveSubscriptions(): number {
    let n = 0;
    for (const c of this.connections) if (!c.isClosed) n += c.subscriptions.size;
    return n;
  }

  /** Terminates every client socket and stops listening. */
  close(): Promise<void> {
    for (const c of this.connections) c.socket.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}
