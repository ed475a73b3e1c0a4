/**
 * The feed connection: one WebSocket at a time, opened lazily, kept alive with protocol
 * pings, reopened with backoff when it drops, and given up for good when the reconnect
 * attempts run out or its owner says so ({@link Connection.fail}). It hands every text frame
 * on as received and knows nothing of what frames say: the router reads them and answers
 * with commands (`fail` when the feed refuses for good, `reconnect` when it withdrew a
 * serving feed, `expectClose` when the server announced why it closes). It knows nothing
 * of channels or subscriptions either: the router re-subscribes after each `open`.
 */
import { EventEmitter } from 'eventemitter3';
import type { Observable } from 'rxjs';
import { Backoff } from '../clock/Backoff';
import type { Timer } from '../clock/Clock';
import { ClientClosedError, ConnectionFailedError, type ExchangeReplicaError } from '../errors';
import { writeClientFrame, type ClientFrame } from '../protocol';
import { resolveConnectionOptions, SOCKET_OPEN, type ConnectionOptions, type RawSocketData, type ResolvedConnectionOptions } from './connectionOptions';
import { frameSizeOver } from './frameSizeOver';
import type { FeedSocket } from './openFeedSocket';
import { openAttempt } from './openAttempt';
import { socketDataText } from './socketDataText';
import { frameTooLarge, limitPassed, type LimitPassed } from './socketLimitErrors';
import { ConnectionState, type ConnectionStateName, type StateChange } from './ConnectionState';
import { KeepAlive } from './KeepAlive';
import { reconnectLoop } from './reconnectPolicy';

/** Payload of `open`. */
export interface OpenInfo {
  /** 1 for the first socket, then +1 for each reopened one. Server subscription ids are only valid within one generation. */
  readonly generation: number;
  /** Consecutive reconnect attempts it took (0 for the first connect or after a stable period). */
  readonly attempts: number;
}

/** Payload of `close`. */
export interface CloseInfo {
  /** WebSocket close code; 1006 when the socket ended without a close frame (including our own termination of a dead one). */
  readonly code: number;
  readonly reason: string;
  /** False when the connection was closed by the caller or failed for good. */
  readonly willReconnect: boolean;
}

export interface ConnectionEvents {
  state: (change: StateChange) => void;
  open: (info: OpenInfo) => void;
  /** One text frame from the server, exactly as received (every frame, error frames included). */
  message: (text: string) => void;
  close: (info: CloseInfo) => void;
  /**
   * The connection failed for good (the error given to {@link Connection.fail}, e.g. `FeedError`
   * FEED_UNAVAILABLE, or `ConnectionFailedError`; state `failed`), or a socket was dropped
   * for a limit the server made it pass and the connection reconnects (`FrameTooLargeError`:
   * a frame over `maxFrameBytes`, `TooManyFragmentsError`: a message in more than
   * `maxFragmentsPerMessage` fragments, both followed by `close` with code 1009;
   * `WriteBacklogError`: the server stopped reading, `close` 1006; `willReconnect: true`), or
   * an attempt to open a socket failed, reported once per attempt with the socket's error as
   * `cause` and retried with backoff (`HandshakeFailedError`: the server answered the upgrade
   * wrongly; `ConnectionFailedError`: refused, timed out, closed before opening, or the
   * socket class threw: a malformed URL, a browser's SecurityError...).
   */
  error: (error: ExchangeReplicaError) => void;
}

const ABNORMAL_CLOSURE = 1006;
const NORMAL_CLOSURE = 1000;
/**
 * No failed attempt is final before the backoff runs out: not even a socket class that
 * throws (a page's connect-src policy, a network change, a URL served later may cure it).
 */
const isFatal = (): boolean => false;

/**
 * @example
 * const connection = new Connection({ url: 'ws://127.0.0.1:8080/ws' });
 * connection.on('message', (text) => console.log(text));
 * connection.on('open', () => connection.send({ type: 'subscribe', request_id: connection.nextRequestId(), channel: 'bbo', market_id: 0, is_perps: true }));
 * connection.connect();
 * // later
 * connection.close();
 */
export class Connection extends EventEmitter<ConnectionEvents> {
  readonly options: ResolvedConnectionOptions;
  private readonly machine: ConnectionState;
  private readonly backoff: Backoff;
  private readonly keepAlive: KeepAlive;
  private socket: FeedSocket | undefined;
  private openCount = 0;
  private requestCount = 0;
  private loop: AbortController | undefined;
  private stableTimer: Timer | undefined;
  /** Why the current socket is about to end, when the server said so first ({@link expectClose}). */
  private closingReason: string | undefined;
  private lastSocketError: Error | undefined;
  private failure: ExchangeReplicaError | undefined;

  /** @throws InvalidParameterError on an option that cannot work. */
  constructor(options: ConnectionOptions) {
    super();
    this.options = resolveConnectionOptions(options);
    this.machine = new ConnectionState(this);
    this.backoff = new Backoff(this.options.reconnect, this.options.random);
    this.keepAlive = new KeepAlive({
      intervalMs: this.options.heartbeatIntervalMs,
      timeoutMs: this.options.pongTimeoutMs,
      ping: () => this.send({ type: 'ping', request_id: this.nextRequestId() }),
      onDead: (reason) => this.terminateDead(reason),
      clock: this.options.clock,
    });
  }

  get state(): ConnectionStateName {
    return this.machine.value;
  }

  /** Every state change (the current one first); completes after `closed`. */
  get state$(): Observable<StateChange> {
    return this.machine.state$;
  }

  /** The feed URL. */
  get url(): string {
    return this.options.url;
  }

  /** Number of sockets opened so far (the generation of the current one). */
  get generation(): number {
    return this.openCount;
  }

  /** Why the connection is `failed`, else undefined. */
  get failureError(): ExchangeReplicaError | undefined {
    return this.failure;
  }

  /** A fresh request id, unique on this connection (shared by pings and the router's requests). */
  nextRequestId(): string {
    return String(++this.requestCount);
  }

  /** Opens the first socket. Does nothing unless the state is `idle`. */
  connect(): void {
    if (this.state !== 'idle') return;
    this.machine.setState('connecting', 'connect() called');
    const loop = (this.loop = new AbortController());
    this.openSocket(loop.signal).then(
      () => undefined,
      (error: Error) => {
        if (!loop.signal.aborted) this.startReconnect(`connect failed: ${error.message}`);
      },
    );
  }

  /**
   * Sends one frame if, and only if, a socket is open right now. Nothing is ever queued:
   * a frame that could not be sent is the caller's to resend after the next `open`.
   * @returns whether the frame was handed to the socket.
   */
  send(frame: ClientFrame): boolean {
    const ws = this.socket;
    if (ws === undefined || ws.readyState !== SOCKET_OPEN) return false;
    ws.send(writeClientFrame(frame));
    // A socket that refused the frame (its write queue is full: the server is not reading) is no longer open.
    return ws.readyState === SOCKET_OPEN;
  }

  /**
   * Ends the connection for good: state `failed` with `error` as {@link failureError}, the
   * socket closed, no reconnect; `error` is emitted. Does nothing once `closed` or `failed`.
   * The router calls it when the feed refuses to serve (`FEED_UNAVAILABLE` on a fresh socket).
   * @param reason the state change's reason. @default error.message
   */
  fail(error: ExchangeReplicaError, reason: string = error.message): void {
    if (this.state === 'closed' || this.state === 'failed') return;
    this.failure = error;
    this.loop?.abort(error);
    this.loop = undefined;
    const ws = this.detach();
    this.machine.setState('failed', reason);
    if (ws !== undefined) {
      ws.close(NORMAL_CLOSURE, 'client gave up');
      this.emit('close', { code: NORMAL_CLOSURE, reason, willReconnect: false });
    }
    this.emit('error', error);
  }

  /**
   * Ends the open socket (normal close) and reconnects with backoff, as after a drop: `close`
   * is emitted with `reason` and `willReconnect: true`. Does nothing unless a socket is open.
   * The router calls it when the server withdrew a feed that was serving.
   */
  reconnect(reason: string): void {
    const ws = this.detach();
    if (ws === undefined) return;
    ws.close(NORMAL_CLOSURE, 'reconnecting');
    this.dropped(NORMAL_CLOSURE, reason);
  }

  /**
   * The server announced that it is about to close the open socket (e.g. `HEARTBEAT_TIMEOUT`):
   * the close that follows is reported with `reason` and reconnects as usual. Does nothing
   * unless a socket is open.
   */
  expectClose(reason: string): void {
    if (this.socket !== undefined) this.closingReason = reason;
  }

  /**
   * Goes back to `idle`: the socket closed normally (or the attempt to open one abandoned), no
   * reconnect, every timer released; `connect()` opens a new one. The router calls it when no
   * stream has had a subscriber for `idleCloseMs`, so that a process holding a client it
   * forgot to close can exit. Does nothing unless `connecting`, `open` or `reconnecting`.
   */
  disconnect(reason: string): void {
    if (this.state !== 'connecting' && this.state !== 'open' && this.state !== 'reconnecting') return;
    this.loop?.abort(new ClientClosedError('the connection went idle'));
    this.loop = undefined;
    const ws = this.detach();
    this.backoff.reset();
    this.machine.setState('idle', reason);
    if (ws === undefined) return;
    ws.close(NORMAL_CLOSURE, 'idle');
    this.emit('close', { code: NORMAL_CLOSURE, reason, willReconnect: false });
  }

  /** Closes for good: no reconnect, every timer released. Idempotent. */
  close(): void {
    if (this.state === 'closed') return;
    this.loop?.abort(new ClientClosedError('the connection was closed'));
    this.loop = undefined;
    const ws = this.detach();
    this.machine.setState('closed', 'close() called');
    if (ws === undefined) return;
    ws.close(NORMAL_CLOSURE, 'client closed');
    this.emit('close', { code: NORMAL_CLOSURE, reason: 'closed by the client', willReconnect: false });
  }

  // ---- socket lifecycle ------------------------------------------------------

  /**
   * One attempt to open a socket: resolves once it is open and adopted; rejects if it fails
   * to open, after reporting why on `error` (once per attempt); the caller retries with backoff.
   */
  private openSocket(signal: AbortSignal): Promise<void> {
    return openAttempt(this.options, signal, {
      open: (ws) => this.adopt(ws),
      message: (ws, data) => {
        if (ws === this.socket) this.onMessage(data);
      },
      error: (ws, error) => {
        if (ws !== this.socket) return;
        const limit = limitPassed(error, this.options);
        if (limit !== undefined) this.dropForLimit(limit);
        else this.lastSocketError = error;
      },
      close: (ws, code, reason) => {
        if (ws === this.socket) this.onSocketClosed(code, socketDataText(reason));
      },
      failed: (error) => this.emit('error', error),
    });
  }

  private adopt(ws: FeedSocket): void {
    this.socket = ws;
    this.lastSocketError = undefined;
    const generation = ++this.openCount;
    const attempts = this.backoff.attempts;
    this.keepAlive.start();
    this.stableTimer = this.options.clock.setTimer(() => {
      this.stableTimer = undefined;
      this.backoff.reset();
    }, this.options.reconnect.stableAfterMs);
    this.machine.setState('open', generation === 1 ? 'connected' : `reconnected (generation ${generation}, after ${attempts} attempt(s))`);
    // A state listener may have closed the connection already.
    if (this.socket === ws) this.emit('open', { generation, attempts });
  }

  /** Hot path: one conversion to string, one liveness mark; the content is the router's. */
  private onMessage(data: RawSocketData): void {
    // `ws` enforces the limit before buffering; this catches a socket class without one (a
    // standard WebSocket), after receipt.
    const over = frameSizeOver(data, this.options.maxFrameBytes);
    if (over !== undefined) return this.dropForLimit(frameTooLarge(this.options, `received ${over}`));
    const text = socketDataText(data);
    this.keepAlive.onFrame();
    this.emit('message', text);
  }

  private onSocketClosed(code: number, reason: string): void {
    const why = this.closingReason ?? `socket closed by the server (code ${code}${reason ? `, ${reason}` : ''}${this.lastSocketError ? `, ${this.lastSocketError.message}` : ''})`;
    this.detach();
    this.dropped(code, why);
  }

  /**
   * The server made the socket pass a limit (a frame over `maxFrameBytes`, too many
   * fragments, a write backlog): report it, end this socket now (whatever the server does
   * next) and reconnect. A socket that refused a frame has already sent its 1009 close frame;
   * a standard socket is closed without one (it may only send 1000 or 3000-4999), reported as
   * 1009 all the same.
   */
  private dropForLimit({ error, closeCode }: LimitPassed): void {
    const ws = this.detach();
    if (ws === undefined) return;
    ws.terminate();
    this.emit('error', error);
    // An `error` listener may have closed the connection.
    if (this.state === 'open') this.dropped(closeCode, error.message);
  }

  /** The keep-alive saw no frame in time: the socket is dead even if TCP thinks otherwise. */
  private terminateDead(reason: string): void {
    const ws = this.detach();
    if (ws === undefined) return;
    ws.terminate();
    this.dropped(ABNORMAL_CLOSURE, reason);
  }

  /** A socket that was open has ended without the caller asking: reconnect. */
  private dropped(code: number, reason: string): void {
    this.machine.setState('reconnecting', reason);
    this.emit('close', { code, reason, willReconnect: true });
    // A `close` listener may have closed the connection.
    if (this.state === 'reconnecting') this.runReconnectLoop();
  }

  private startReconnect(reason: string): void {
    this.machine.setState('reconnecting', reason);
    this.runReconnectLoop();
  }

  private runReconnectLoop(): void {
    const loop = (this.loop = new AbortController());
    reconnectLoop(this.backoff, (signal) => this.openSocket(signal), { signal: loop.signal, clock: this.options.clock, isFatal }).then(
      () => undefined,
      (error: Error) => {
        if (loop.signal.aborted) return;
        const attempts = this.backoff.attempts;
        this.fail(new ConnectionFailedError(`gave up reconnecting to ${this.options.url} after ${attempts} attempt(s): ${error.message}`, {}, { cause: error }), `reconnect attempts exhausted (${attempts})`);
      },
    );
  }

  /** Forgets the current socket (its late events are ignored) and stops its timers. */
  private detach(): FeedSocket | undefined {
    const ws = this.socket;
    this.socket = undefined;
    this.closingReason = undefined;
    this.keepAlive.stop();
    this.stableTimer?.cancel();
    this.stableTimer = undefined;
    return ws;
  }
}
