/**
 * The connection's default socket under Node: a WebSocket client (RFC 6455) written for the
 * feed's hot path. Measured on the feed's path (benchmarks/README.md, "Client path"), the
 * `ws` package's receive side (a Writable stream per socket, a Buffer per read, two event
 * hops per message) cost more per frame than the client's whole decode; this one reads
 * with Node's `onread` into one reused buffer and hands each text frame to its listener as
 * a string decoded straight from that buffer.
 *
 * Scope: `ws:`/`wss:` (TLS through `node:tls`, certificates checked), text and binary
 * messages, fragmentation, ping/pong, the closing handshake, a size limit checked on the
 * frame header before buffering (`maxPayload`, 1009 past it, like `ws`), strict UTF-8.
 * What a server can make it hold is bounded: a message's fragments (`maxFragments`, 1009
 * past it), the bytes queued for writing (`maxQueuedWriteBytes`: pings are answered without
 * growing the queue, a data frame past it fails the socket), the handshake answer's head
 * (`maxHandshakeHeadBytes`).
 * It offers no permessage-deflate: compressing costs every frame time on both sides, and the
 * feed's frames are small. Pass the `ws` package's `WebSocket` as `connection.WebSocket` to
 * have compression offered.
 *
 * Node modules are taken with `process.getBuiltinModule` when a socket is created, so the
 * main entry imports none and still bundles for a browser (which uses its own WebSocket).
 * @internal
 */
import type { Socket } from 'node:net';
import type { ConnectionOptions as TlsConnectOptions } from 'node:tls';
import type { RawSocketData, WebSocketClientOptions, WebSocketLike } from '../connectionOptions';
import { systemClock, type Clock, type Timer } from '../../clock/Clock';
import { FrameReader, isValidCloseCode, type FrameSink } from './FrameReader';
import { DEFAULT_MAX_FRAGMENTS_PER_MESSAGE, DEFAULT_MAX_HANDSHAKE_HEAD_BYTES, DEFAULT_MAX_QUEUED_WRITE_BYTES } from '../socketLimits';
import { CLIENT_OPCODE, closePayload } from './clientFrame';
import { FrameWriter } from './FrameWriter';
import { GrowingBuffer } from './GrowingBuffer';
import { checkUpgradeResponse, expectedAccept, upgradeRequest } from './upgradeHandshake';
import { WebSocketProtocolError } from './WebSocketProtocolError';

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** After the closing handshake began, the TCP socket is destroyed if it has not closed by then (as `ws` does). */
const CLOSE_TIMEOUT_MS = 30_000;
/** The buffer every read of a socket lands in. */
const READ_BUFFER_BYTES = 64 * 1024;

type Listeners = {
  open: (() => void)[];
  message: ((data: RawSocketData, isBinary: boolean) => void)[];
  close: ((code: number, reason: Uint8Array) => void)[];
  error: ((error: Error) => void)[];
};

/** `process.getBuiltinModule`, or an error saying this class is for Node. */
function nodeModules() {
  const get = typeof process === 'undefined' ? undefined : process.getBuiltinModule;
  if (typeof get !== 'function') throw new Error('NodeWebSocket needs Node 20.16 or newer (process.getBuiltinModule); elsewhere use the platform WebSocket');
  return { net: get('node:net'), tls: get('node:tls'), crypto: get('node:crypto') };
}

/**
 * A `ws`-shaped WebSocket client for Node (see the module comment).
 * @throws SyntaxError from the constructor for a URL that is not `ws:`, `wss:`, `http:` or `https:`
 */
export class NodeWebSocket implements WebSocketLike {
  static readonly CONNECTING = CONNECTING;
  static readonly OPEN = OPEN;
  static readonly CLOSING = CLOSING;
  static readonly CLOSED = CLOSED;

  private state = CONNECTING;
  private readonly socket: Socket;
  private readonly reader: FrameReader;
  private readonly writer: FrameWriter;
  private readonly listeners: Listeners = { open: [], message: [], close: [], error: [] };
  /** The answer head read so far (undefined once upgraded), its limit, and the accept value it must carry. */
  private head: GrowingBuffer | undefined = new GrowingBuffer();
  private readonly maxHeadBytes: number;
  private readonly accept: string;
  private closeSent = false;
  private closeReceived: { code: number; reason: string } | undefined;
  private closeTimer: Timer | undefined;
  private readonly clock: Clock;

  constructor(url: string, options: WebSocketClientOptions) {
    const target = new URL(url);
    const secure = target.protocol === 'wss:' || target.protocol === 'https:';
    if (!secure && target.protocol !== 'ws:' && target.protocol !== 'http:') {
      throw new SyntaxError(`The URL's protocol must be one of "ws:", "wss:", "http:" or "https:" (got "${target.protocol}")`);
    }
    const { net, tls, crypto } = nodeModules();
    const key = crypto.randomBytes(16).toString('base64');
    this.accept = expectedAccept(key, (text) => crypto.createHash('sha1').update(text).digest('base64'));
    this.reader = new FrameReader(this.sink(), options.maxPayload, options.maxFragments ?? DEFAULT_MAX_FRAGMENTS_PER_MESSAGE);
    this.maxHeadBytes = options.maxHandshakeHeadBytes ?? DEFAULT_MAX_HANDSHAKE_HEAD_BYTES;
    this.clock = options.clock ?? systemClock;
    const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    const port = Number(target.port || (secure ? 443 : 80));
    const readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    // `onread`: every read lands in one buffer, handed over without a 'data' event or a new Buffer.
    const onread = { buffer: readBuffer, callback: (bytes: number) => this.onRead(readBuffer, bytes) };
    // Node's TLS socket honours `onread` as its TCP socket does; its typings do not list it.
    const tlsOptions: TlsConnectOptions = { host, port, ...(net.isIP(host) === 0 ? { servername: host } : {}) };
    this.socket = secure
      ? tls.connect(Object.assign(tlsOptions, { onread }))
      : net.connect({ host, port, onread, noDelay: true });
    if (secure) this.socket.setNoDelay(true);
    this.writer = new FrameWriter(this.socket, options.maxQueuedWriteBytes ?? DEFAULT_MAX_QUEUED_WRITE_BYTES, (into) => void crypto.randomFillSync(into));
    this.socket.on('error', (error) => this.emit('error', error));
    this.socket.on('close', () => this.onSocketClosed());
    this.socket.write(upgradeRequest(target, key));
  }

  get readyState(): number {
    return this.state;
  }

  /** Bytes sent but not yet handed to the kernel (as the standard WebSocket's `bufferedAmount`), a pong waiting its turn included. */
  get bufferedAmount(): number {
    return this.writer.queuedBytes;
  }

  on(event: 'open', listener: () => void): this;
  on(event: 'message', listener: (data: RawSocketData, isBinary: boolean) => void): this;
  on(event: 'close', listener: (code: number, reason: Uint8Array) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: keyof Listeners, listener: (...args: never[]) => void): this {
    (this.listeners[event] as unknown[]).push(listener);
    return this;
  }

  /**
   * Sends one text message. One that would take the bytes queued past `maxQueuedWriteBytes`
   * (the server is not reading) is dropped and fails the socket: `error`
   * (`WS_ERR_WRITE_BACKLOG`), then `close` (1006), both after this call returns.
   * @throws Error while the socket is still connecting (as `ws` does); a socket that is
   * closing or closed drops the message.
   */
  send(data: string): void {
    if (this.state === CONNECTING) throw new Error('WebSocket is not open: readyState 0 (CONNECTING)');
    if (this.state !== OPEN) return;
    if (this.writer.send(CLIENT_OPCODE.text, Buffer.from(data, 'utf8'))) return;
    // Reported after the call: the caller is in the middle of sending, not ready for a close.
    // No close frame: it would only queue behind the rest (1008 is named, never sent).
    const error = new WebSocketProtocolError(`the server is not reading: ${this.writer.queuedBytes} bytes wait to be sent, and a message of ${Buffer.byteLength(data)} more would pass the limit of ${this.writer.maxQueuedBytes} bytes (maxQueuedWriteBytes)`, 'WS_ERR_WRITE_BACKLOG', 1008);
    this.state = CLOSING;
    this.reader.stop();
    this.writer.stop();
    queueMicrotask(() => {
      this.emit('error', error);
      this.socket.destroy();
    });
  }

  /**
   * Starts the closing handshake (or abandons a socket still connecting).
   * @throws TypeError for a code a client may not send, or a reason over 123 bytes
   */
  close(code?: number, reason?: string): void {
    // The codes a server may send are the codes a client may send (1005, 1006 and 1015 never go on the wire).
    if (code !== undefined && !isValidCloseCode(code)) throw new TypeError(`invalid close code ${code}`);
    if (reason !== undefined && Buffer.byteLength(reason) > 123) throw new TypeError('the close reason must be at most 123 bytes');
    if (this.state === CLOSED) return;
    if (this.state === CONNECTING) return this.abort('WebSocket was closed before the connection was established');
    if (this.state === CLOSING) return;
    this.state = CLOSING;
    this.sendClose(code, reason);
    this.armCloseTimer();
  }

  /** Ends the socket now, without a closing handshake; `close` (1006) follows. */
  terminate(): void {
    if (this.state === CLOSED) return;
    if (this.state === CONNECTING) return this.abort('WebSocket was closed before the connection was established');
    this.state = CLOSING;
    this.reader.stop();
    this.writer.stop();
    this.socket.destroy();
  }

  private onRead(buffer: Buffer, bytes: number): boolean {
    if (this.head === undefined) this.reader.push(buffer, bytes);
    else this.readHead(this.head, buffer, bytes);
    return true;
  }

  /** Before the upgrade: gathers the answer head (at most `maxHandshakeHeadBytes`), checks it, then reads what follows it as frames. */
  private readHead(head: GrowingBuffer, buffer: Buffer, bytes: number): void {
    // The blank line is looked for in the new bytes only (and the 3 before them): a head sent a byte at a time costs linear time.
    const from = Math.max(0, head.length - 3);
    head.append(buffer, 0, bytes, this.maxHeadBytes);
    const all = head.bytes();
    const end = all.indexOf('\r\n\r\n', from, 'latin1');
    if (end === -1 ? all.length > this.maxHeadBytes + 3 : end > this.maxHeadBytes) {
      return this.failHandshake(new WebSocketProtocolError(`the server's answer to the upgrade request has a head over ${this.maxHeadBytes} bytes (maxHandshakeHeadBytes)`, 'WS_ERR_HANDSHAKE', 1002));
    }
    if (end === -1) return;
    this.head = undefined;
    try {
      checkUpgradeResponse(all.toString('latin1', 0, end), this.accept);
    } catch (e) {
      return this.failHandshake(e as Error);
    }
    if (this.state !== CONNECTING) return;
    this.state = OPEN;
    this.emit('open');
    const rest = all.subarray(end + 4);
    if (rest.length > 0 && this.state === OPEN) this.reader.push(rest, rest.length);
  }

  /** Ends a socket that never opened (a bad answer, or closed while connecting): the error, then `close` (1006). */
  private failHandshake(error: Error): void {
    this.head = undefined;
    this.state = CLOSING;
    this.reader.stop();
    this.writer.stop();
    this.emit('error', error);
    this.socket.destroy();
  }

  private abort(message: string): void {
    this.failHandshake(new Error(message));
  }

  private sink(): FrameSink {
    return {
      text: (text) => {
        const ls = this.listeners.message;
        if (ls.length === 1) ls[0]!(text, false);
        else for (const l of [...ls]) l(text, false);
      },
      binary: (data) => {
        for (const l of [...this.listeners.message]) l(data, true);
      },
      ping: (payload) => {
        if (this.state === OPEN) this.writer.pong(payload);
      },
      pong: () => undefined,
      close: (code, reason) => {
        this.closeReceived = { code, reason };
        if (this.state === OPEN) this.state = CLOSING;
        // Echo the code (RFC 6455 5.5.1), then end our side: the server closes the TCP connection.
        this.sendClose(code === 1005 ? undefined : code, undefined);
        this.socket.end();
        this.armCloseTimer();
      },
      violation: (error) => {
        this.state = CLOSING;
        // The close frame first: an error listener may terminate the socket at once.
        this.sendClose(error.closeCode, undefined);
        this.socket.end();
        this.armCloseTimer();
        this.emit('error', error);
      },
    };
  }

  private sendClose(code: number | undefined, reason: string | undefined): void {
    if (this.closeSent) return;
    this.closeSent = true;
    this.writer.close(closePayload(code, reason));
  }

  private armCloseTimer(): void {
    if (this.closeTimer !== undefined) return;
    this.closeTimer = this.clock.setTimer(() => this.socket.destroy(), CLOSE_TIMEOUT_MS, { unref: true });
  }

  private onSocketClosed(): void {
    if (this.state === CLOSED) return;
    this.state = CLOSED;
    this.reader.stop();
    this.writer.stop();
    this.closeTimer?.cancel();
    const { code, reason } = this.closeReceived ?? { code: 1006, reason: '' };
    this.emit('close', code, Buffer.from(reason, 'utf8'));
  }

  private emit(event: 'open'): void;
  private emit(event: 'error', error: Error): void;
  private emit(event: 'close', code: number, reason: Uint8Array): void;
  private emit(event: 'open' | 'error' | 'close', a?: unknown, b?: unknown): void {
    for (const l of [...this.listeners[event]] as ((a?: unknown, b?: unknown) => void)[]) l(a, b);
  }
}
