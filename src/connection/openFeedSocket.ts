/**
 * One socket API for the connection over both shapes of socket class: `ws`-style (`on`,
 * `terminate`, options with `maxPayload`) and standard WHATWG (`addEventListener`,
 * `binaryType`, no `terminate`). The connection gives its handlers at creation, so no event
 * can be missed and nothing but the connection listens.
 */
import { InvalidParameterError } from '../errors';
import type { RawSocketData, StandardWebSocketConstructor, StandardWebSocketLike, WebSocketClientOptions, WebSocketConstructor, WebSocketLike, WsWebSocketConstructor } from './connectionOptions';

/** What the connection hears from a socket. */
export interface SocketHandlers {
  open(): void;
  /** A message; `isBinary` for a binary frame. */
  message(data: RawSocketData, isBinary: boolean): void;
  /** A socket error (`ws` gives its own errors with a `code`; a standard socket says nothing more than that one happened). */
  error(error: Error): void;
  close(code: number, reason: RawSocketData): void;
}

/** What the connection does to a socket. */
export interface FeedSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /** Ends the socket now; no handler is called afterwards. */
  terminate(): void;
}

/** `readyState` of a closed socket (the WebSocket standard's value). */
const SOCKET_CLOSED = 3;

function prototypeHas(ctor: unknown, method: string): boolean {
  if (typeof ctor !== 'function') return false;
  const proto: unknown = Reflect.get(ctor, 'prototype');
  return typeof proto === 'object' && proto !== null && typeof Reflect.get(proto, method) === 'function';
}

/** A `ws`-style class: its instances have `on` and `terminate`. */
function isWsSocketClass(ctor: unknown): ctor is WsWebSocketConstructor {
  return prototypeHas(ctor, 'on') && prototypeHas(ctor, 'terminate');
}

/** A standard (WHATWG) class: its instances have `addEventListener` (and it is not `ws`-style). */
export function isStandardSocketClass(ctor: unknown): ctor is StandardWebSocketConstructor {
  return !isWsSocketClass(ctor) && prototypeHas(ctor, 'addEventListener');
}

/**
 * Which way a socket class is used.
 * @throws InvalidParameterError naming `WebSocket` for a class of neither shape.
 */
export function socketShape(ctor: WebSocketConstructor): 'ws' | 'standard' {
  if (isWsSocketClass(ctor)) return 'ws';
  if (isStandardSocketClass(ctor)) return 'standard';
  throw notASocketClass();
}

function notASocketClass(): InvalidParameterError {
  return new InvalidParameterError(
    "invalid 'WebSocket': expected a socket class whose instances have on() and terminate() (the ws package's shape) or addEventListener() (the standard WebSocket)",
    { param: 'WebSocket' },
  );
}

/**
 * Creates a socket of `ctor` to `url` with `handlers` attached.
 * @throws whatever the class throws (a malformed URL, a SecurityError...) or a listener setup throws; the caller reports it.
 */
export function openFeedSocket(ctor: WebSocketConstructor, url: string, options: WebSocketClientOptions, handlers: SocketHandlers): FeedSocket {
  if (isWsSocketClass(ctor)) return openWsSocket(new ctor(url, options), handlers);
  if (isStandardSocketClass(ctor)) return openStandardSocket(new ctor(url), handlers);
  throw notASocketClass();
}

function openWsSocket(ws: WebSocketLike, handlers: SocketHandlers): FeedSocket {
  return endIfThrows(ws, () => {
    // `error` first: if a later listener setup throws, the socket is terminated, and `ws`
    // raises the error of that termination as an uncaught exception on a socket with no listener.
    ws.on('error', (error) => handlers.error(error));
    ws.on('open', () => handlers.open());
    ws.on('message', (data, isBinary) => handlers.message(data, isBinary));
    ws.on('close', (code, reason) => handlers.close(code, reason));
  });
}

/** Runs the listener setup of a socket just created; if it throws, ends that socket (nobody else holds it) and rethrows. */
function endIfThrows<S extends FeedSocket>(socket: S, setup: () => void): S {
  try {
    setup();
    return socket;
  } catch (e) {
    try {
      socket.terminate();
    } catch {
      // Ended as far as anyone can tell: the setup's error is the one to report.
    }
    throw e;
  }
}

/**
 * Adapts a standard socket: binary frames as `ArrayBuffer` (decoded as UTF-8 like `ws`'s
 * Buffers), and `terminate()` emulated by closing and ignoring every later event (the
 * standard has no way to drop a socket without its closing handshake).
 */
function openStandardSocket(socket: StandardWebSocketLike, handlers: SocketHandlers): FeedSocket {
  let ended = false;
  const adapted: FeedSocket = {
    get readyState() {
      return ended ? SOCKET_CLOSED : socket.readyState;
    },
    send: (data) => socket.send(data),
    close: (code, reason) => socket.close(code, reason),
    terminate: () => {
      if (ended) return;
      ended = true;
      try {
        socket.close();
      } catch {
        // Already closing: ended either way, and no event reaches the connection any more.
      }
    },
  };
  return endIfThrows(adapted, () => {
    socket.binaryType = 'arraybuffer';
    socket.addEventListener('open', () => {
      if (!ended) handlers.open();
    });
    socket.addEventListener('message', (event) => {
      if (!ended) handlers.message(...messageData(event.data));
    });
    socket.addEventListener('error', () => {
      if (!ended) handlers.error(new Error('WebSocket error'));
    });
    socket.addEventListener('close', (event) => {
      if (!ended) handlers.close(event.code, event.reason);
    });
  });
}

/** A standard message's data: a string, or with `binaryType` 'arraybuffer' an ArrayBuffer; anything else is handed on as text for the router to report. */
function messageData(data: unknown): [RawSocketData, boolean] {
  if (typeof data === 'string') return [data, false];
  if (data instanceof ArrayBuffer) return [data, true];
  if (ArrayBuffer.isView(data)) return [new Uint8Array(data.buffer, data.byteOffset, data.byteLength), true];
  return [String(data), true];
}
