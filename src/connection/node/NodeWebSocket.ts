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
import { FrameReader, isValidCloseCode, type FrameSink } from './FrameReader';
import { CLIENT_OPCODE, clientFrame, closePayload } from './clientFrame';
import { checkUpgradeResponse, expectedAccept, MAX_HANDSHAKE_HEAD_BYTES, upgradeRequest } from './upgradeHandshake';
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
  private readonly listeners: Listeners = { open: [], message: [], close: [], error: [] };
  private readonly randomFill: (into: Buffer) => void;
  /** The answer head read so far (before the upgrade), and the accept value it must carry. */
  private head: Buffer | undefined = Buffer.alloc(0);
  private readonly accept: string;
  private closeSent = false;
  private closeReceived: { code: number; reason: string } | undefined;
  private closeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(url: string, options: WebSocketClientOptions) {
    const target = new URL(url);
    const secure = target.protocol === 'wss:' || target.protocol === 'https:';
    if (!secure && target.protocol !== 'ws:' && target.protocol !== 'http:') {
      throw new SyntaxError(`The URL's protocol must be one of "ws:", "wss:", "http:" or "https:" (got "${target.protocol}")`);
    }
    const { net, tls, crypto } = nodeModules();
    this.randomFill = (into) => void crypto.randomFillSync(into);
    const key = crypto.randomBytes(16).toString('base64');
    this.accept = expectedAccept(key, (text) => crypto.createHash('sha1').update(text).digest('base64'));
    this.reader = new FrameReader(this.sink(), options.maxPayload);
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
    this.socket.on('error', (error) => this.emit('error', error));
    this.socket.on('close', () => this.onSocketClosed());
    this.socket.write(upgradeRequest(target, key));
  }

  get readyState(): number {
    return this.state;
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
   * Sends one text message.
   * @throws Error while the socket is still connecting (as `ws` does); a socket that is
   * closing or closed drops the message.
   */
  send(data: string): void {
    if (this.state === CONNECTING) throw new Error('WebSocket is not open: readyState 0 (CONNECTING)');
    if (this.state !== OPEN) return;
    this.socket.write(clientFrame(CLIENT_OPCODE.text, Buffer.from(data, 'utf8'), this.randomFill));
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
    this.socket.destroy();
  }

  private onRead(buffer: Buffer, bytes: number): boolean {
    if (this.head === undefined) this.reader.push(buffer, bytes);
    else this.readHead(buffer, bytes);
    return true;
  }

  /** Before the upgrade: gathers the answer head, checks it, then reads what follows it as frames. */
  private readHead(buffer: Buffer, bytes: number): void {
    const head = Buffer.concat([this.head!, buffer.subarray(0, bytes)]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) {
      if (head.length > MAX_HANDSHAKE_HEAD_BYTES) this.failHandshake(new WebSocketProtocolError(`the server's answer to the upgrade request has a head over ${MAX_HANDSHAKE_HEAD_BYTES} bytes`, 'WS_ERR_HANDSHAKE', 1002));
      else this.head = head;
      return;
    }
    this.head = undefined;
    try {
      checkUpgradeResponse(head.toString('latin1', 0, end), this.accept);
    } catch (e) {
      return this.failHandshake(e as Error);
    }
    if (this.state !== CONNECTING) return;
    this.state = OPEN;
    this.emit('open');
    const rest = head.subarray(end + 4);
    if (rest.length > 0 && this.state === OPEN) this.reader.push(rest, rest.length);
  }

  /** Ends a socket that never opened (a bad answer, or closed while connecting): the error, then `close` (1006). */
  private failHandshake(error: Error): void {
    this.head = undefined;
    this.state = CLOSING;
    this.reader.stop();
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
        if (this.state === OPEN) this.socket.write(clientFrame(CLIENT_OPCODE.pong, payload, this.randomFill));
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
        this.emit('error', error);
        this.sendClose(error.closeCode, undefined);
        this.socket.end();
        this.armCloseTimer();
      },
    };
  }

  private sendClose(code: number | undefined, reason: string | undefined): void {
    if (this.closeSent) return;
    this.closeSent = true;
    this.socket.write(clientFrame(CLIENT_OPCODE.close, closePayload(code, reason), this.randomFill));
  }

  private armCloseTimer(): void {
    if (this.closeTimer !== undefined) return;
    this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_TIMEOUT_MS);
    this.closeTimer.unref?.();
  }

  private onSocketClosed(): void {
    if (this.state === CLOSED) return;
    this.state = CLOSED;
    this.reader.stop();
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
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
