/**
 * The options of a `Connection`, their defaults (applied here and nowhere else) and the
 * minimal WebSocket surface the connection relies on.
 */
import { InvalidParameterError } from '../errors';
import { SERVER_IDLE_TIMEOUT_MS } from '../protocol';
import { systemClock, type Clock } from '../clock/Clock';
import { defaultWebSocket } from './defaultWebSocket';
import { socketShape } from './openFeedSocket';
import { resolveReconnectPolicy, type ReconnectPolicyOptions, type ResolvedReconnectPolicyOptions } from './reconnectPolicy';
import { DEFAULT_MAX_FRAGMENTS_PER_MESSAGE, DEFAULT_MAX_HANDSHAKE_HEAD_BYTES, DEFAULT_MAX_QUEUED_WRITE_BYTES } from './socketLimits';

/**
 * What a text or binary message can be: `ws` gives Node `Buffer`s (which are `Uint8Array`s)
 * or Buffer fragments, a platform WebSocket a string or an `ArrayBuffer`.
 */
export type RawSocketData = Uint8Array | ArrayBuffer | Uint8Array[] | string;

/** The part of the `ws` client the connection uses; a test double may implement just this. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'open', listener: () => void): unknown;
  on(event: 'message', listener: (data: RawSocketData, isBinary: boolean) => void): unknown;
  on(event: 'close', listener: (code: number, reason: Uint8Array) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * What the connection passes as the second argument of a `ws`-style socket constructor: a
 * subset of the `ws` client options, and the limits of the library's own Node socket (which
 * `ws` ignores). A limit left out takes the default of the connection option of that name.
 */
export interface WebSocketClientOptions {
  /** Largest message accepted, in bytes, after decompression (`ws` closes the socket with 1009 past it). */
  readonly maxPayload: number;
  /** Offer permessage-deflate; the server decides whether frames are compressed (a class without compression, like `NodeWebSocket`, ignores it). */
  readonly perMessageDeflate: boolean;
  /** Most frames one message may come in ({@link ConnectionOptions.maxFragmentsPerMessage}). */
  readonly maxFragments?: number;
  /** Most bytes queued for sending ({@link ConnectionOptions.maxQueuedWriteBytes}). */
  readonly maxQueuedWriteBytes?: number;
  /** Largest head of the server's answer to the upgrade request ({@link ConnectionOptions.maxHandshakeHeadBytes}). */
  readonly maxHandshakeHeadBytes?: number;
  /** The connection's clock, for the socket's own timers (the closing handshake's bound). @default the system clock */
  readonly clock?: Clock;
}

/**
 * A `ws`-style socket class (`on(...)`, `terminate()`), e.g. the `ws` package's `WebSocket`.
 * It receives the URL and {@link WebSocketClientOptions}; a class that ignores the options
 * still gets frames over `maxFrameBytes` rejected by the connection, but only after it has
 * received them whole.
 */
export type WsWebSocketConstructor = new (url: string, options: WebSocketClientOptions) => WebSocketLike;

/**
 * The part of a standard (WHATWG) WebSocket the connection uses: the browser's `WebSocket`,
 * or Node's global one. Events through `addEventListener`, binary frames as `ArrayBuffer`.
 */
export interface StandardWebSocketLike {
  readonly readyState: number;
  binaryType: 'blob' | 'arraybuffer';
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { readonly code: number; readonly reason: string }) => void): void;
}

/**
 * A standard (WHATWG) socket class, e.g. `globalThis.WebSocket` in a browser. It is given the
 * URL only: the platform decides permessage-deflate and has no payload limit, so frames over
 * `maxFrameBytes` are refused after receipt.
 */
export type StandardWebSocketConstructor = new (url: string) => StandardWebSocketLike;

/**
 * A socket class of either shape, told apart by its prototype: one with `on` is used the
 * `ws` way ({@link WsWebSocketConstructor}), else one with `addEventListener` the standard way
 * ({@link StandardWebSocketConstructor}).
 */
export type WebSocketConstructor = WsWebSocketConstructor | StandardWebSocketConstructor;

/** `readyState` of an open socket (the WebSocket standard's value). */
export const SOCKET_OPEN = 1;

export interface ConnectionOptions {
  /** Feed URL, e.g. `ws://127.0.0.1:8080/ws`. */
  readonly url: string;
  /**
   * The socket class, `ws`-style or standard (see {@link WebSocketConstructor}).
   * @default under Node, the library's own `NodeWebSocket` (the cheapest receive path measured; it offers no
   * permessage-deflate); elsewhere (a browser, a worker), the platform's `globalThis.WebSocket`
   * @example new Connection({ url, WebSocket: globalThis.WebSocket })
   * @example import WebSocket from 'ws'; new Connection({ url, WebSocket }) // offers permessage-deflate
   */
  readonly WebSocket?: WebSocketConstructor;
  /**
   * Time between two protocol pings. Must stay well inside the server's idle window (60 s):
   * the ping is also what keeps a quiet connection alive.
   * @default 15000
   */
  readonly heartbeatIntervalMs?: number;
  /** After a ping, the server must send some frame within this time, else the socket is dead: it is terminated and reconnected. @default 10000 */
  readonly pongTimeoutMs?: number;
  /**
   * A socket that is not open after this time counts as a failed attempt (reported on `error`,
   * retried with backoff): it bounds the TCP connect, TLS and the upgrade handshake together,
   * so a server that sends its answer's head a byte at a time cannot hold an attempt longer.
   * @default 10000
   */
  readonly connectTimeoutMs?: number;
  /**
   * Backoff between reconnect attempts, in the library's one backoff shape plus `stableAfterMs`
   * (each key has its own default).
   * @default { initialDelayMs: 250, maxDelayMs: 10000, factor: 2, jitter: 0.5, retries: Infinity, stableAfterMs: 30000 }
   */
  readonly reconnect?: ReconnectPolicyOptions;
  /** Source of the reconnect jitter, uniform in [0, 1). Inject a seeded one in tests. @default Math.random */
  readonly random?: () => number;
  /** Time source of every timer of the connection (keep-alive, connect timeout, backoff, stable period). @default systemClock */
  readonly clock?: Clock;
  /**
   * Largest feed frame accepted, in bytes, measured after permessage-deflate decompression
   * (passed to `ws` as `maxPayload`, which stops inflating past it; a standard WebSocket has
   * no such limit, so there a frame is measured once received). A larger frame closes
   * that socket (code 1009), is reported as `FrameTooLargeError` (`ERR_FRAME_TOO_LARGE`) on
   * the `error` event, and the connection reconnects. The feed sends no snapshots, only
   * updates: even a book update rewriting 500 levels a side is about 80 KB, so the default
   * leaves a 200-fold margin while bounding what one frame can cost (`ws` accepts 100 MiB).
   * An integer in [1, 2^31 - 1].
   * @default 16777216 (16 MiB)
   */
  readonly maxFrameBytes?: number;
  /**
   * Most frames one feed message may come in (a message sent in fragments). A message in
   * more closes that socket (code 1009), is reported as `TooManyFragmentsError`
   * (`ERR_TOO_MANY_FRAGMENTS`) on the `error` event, and the connection reconnects. It is
   * checked on each fragment's header, so a server that sends fragments without end (empty
   * ones cost it two bytes each) is refused at once instead of holding the socket. Enforced
   * by the default Node socket (the `ws` package and a browser have no such limit). An
   * integer in [1, 2^31 - 1].
   * @default 1024
   */
  readonly maxFragmentsPerMessage?: number;
  /**
   * Most bytes the client lets wait for a server that does not read them (its socket's
   * write queue, above what the kernel holds). Pings are then answered without growing the
   * queue (only the latest one, once it has drained); a command that would pass the limit
   * closes that socket, is reported as `WriteBacklogError` (`ERR_WRITE_BACKLOG`), and the
   * connection reconnects. Enforced by the default Node socket. An integer in [1, 2^31 - 1].
   * @default 1048576 (1 MiB)
   */
  readonly maxQueuedWriteBytes?: number;
  /**
   * Largest head (status line and headers) of the server's answer to the upgrade request. A
   * larger one fails that attempt, reported as `HandshakeFailedError`
   * (`ERR_HANDSHAKE_FAILED`), and the connection retries with backoff; a head that never
   * ends within `connectTimeoutMs` fails the attempt too. Enforced by the default Node
   * socket. An integer in [1, 2^31 - 1].
   * @default 65536 (64 KiB)
   */
  readonly maxHandshakeHeadBytes?: number;
}

export interface ResolvedConnectionOptions {
  readonly url: string;
  readonly WebSocket: WebSocketConstructor;
  readonly heartbeatIntervalMs: number;
  readonly pongTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly reconnect: ResolvedReconnectPolicyOptions;
  readonly random: () => number;
  readonly clock: Clock;
  readonly maxFrameBytes: number;
  readonly maxFragmentsPerMessage: number;
  readonly maxQueuedWriteBytes: number;
  readonly maxHandshakeHeadBytes: number;
}

/** Default of {@link ConnectionOptions.maxFrameBytes}: 16 MiB. */
export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** `ws` keeps `maxPayload` as a 32-bit integer (a larger value would disable the limit). */
const MAX_FRAME_BYTES_LIMIT = 2 ** 31 - 1;

/**
 * Applies the defaults of `ConnectionOptions`.
 * @throws InvalidParameterError on a setting that cannot work (e.g. a heartbeat slower than the server's idle timeout).
 */
export function resolveConnectionOptions(options: ConnectionOptions): ResolvedConnectionOptions {
  const resolved: ResolvedConnectionOptions = {
    url: options.url,
    WebSocket: options.WebSocket ?? defaultWebSocket(),
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 15_000,
    pongTimeoutMs: options.pongTimeoutMs ?? 10_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    reconnect: resolveReconnectPolicy(options.reconnect),
    random: options.random ?? Math.random,
    clock: options.clock ?? systemClock,
    maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    maxFragmentsPerMessage: options.maxFragmentsPerMessage ?? DEFAULT_MAX_FRAGMENTS_PER_MESSAGE,
    maxQueuedWriteBytes: options.maxQueuedWriteBytes ?? DEFAULT_MAX_QUEUED_WRITE_BYTES,
    maxHandshakeHeadBytes: options.maxHandshakeHeadBytes ?? DEFAULT_MAX_HANDSHAKE_HEAD_BYTES,
  };
  // Throws InvalidParameterError naming 'WebSocket' for a class of neither shape.
  socketShape(resolved.WebSocket);
  if (!(resolved.heartbeatIntervalMs > 0 && resolved.heartbeatIntervalMs < SERVER_IDLE_TIMEOUT_MS)) {
    throw new InvalidParameterError(`heartbeatIntervalMs must be in (0, ${SERVER_IDLE_TIMEOUT_MS}): got ${resolved.heartbeatIntervalMs}`, { param: 'heartbeatIntervalMs' });
  }
  for (const key of ['pongTimeoutMs', 'connectTimeoutMs'] as const) {
    if (!(resolved[key] > 0)) throw new InvalidParameterError(`${key} must be > 0: got ${resolved[key]}`, { param: key });
  }
  if (!(Number.isInteger(resolved.maxFrameBytes) && resolved.maxFrameBytes >= 1 && resolved.maxFrameBytes <= MAX_FRAME_BYTES_LIMIT)) {
    throw new InvalidParameterError(`maxFrameBytes must be an integer number of bytes in [1, ${MAX_FRAME_BYTES_LIMIT}]: got ${resolved.maxFrameBytes}`, { param: 'maxFrameBytes' });
  }
  for (const key of ['maxFragmentsPerMessage', 'maxQueuedWriteBytes', 'maxHandshakeHeadBytes'] as const) {
    const value = resolved[key];
    if (!(Number.isInteger(value) && value >= 1 && value <= MAX_FRAME_BYTES_LIMIT)) throw new InvalidParameterError(`${key} must be an integer in [1, ${MAX_FRAME_BYTES_LIMIT}]: got ${value}`, { param: key });
  }
  return resolved;
}
