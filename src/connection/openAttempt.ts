/**
 * One attempt of the connection to open a socket. It resolves once the socket is open, and
 * otherwise fails ONCE, whatever ends it first (the socket's error, its close, the connect
 * timeout, a socket class that throws), reporting why before the caller's backoff retries: a
 * server that answers the upgrade wrongly (a 200 HTML page, a wrong `Sec-WebSocket-Accept`,
 * an extension not offered, a head without end) or not at all used to be retried forever
 * with nothing said. An attempt abandoned by its owner (the signal) is not reported.
 */
import { ConnectionFailedError, HandshakeFailedError, type ExchangeReplicaError } from '../errors';
import { messageOf } from '../errors/messageOf';
import type { Timer } from '../clock/Clock';
import type { RawSocketData, ResolvedConnectionOptions } from './connectionOptions';
import { openFeedSocket, type FeedSocket, type SocketHandlers } from './openFeedSocket';

/** What the attempt tells its owner. */
export interface AttemptHooks {
  /** The socket is open: the owner adopts it (its later events come through the hooks below). */
  open(ws: FeedSocket): void;
  message(ws: FeedSocket, data: RawSocketData): void;
  error(ws: FeedSocket, error: Error): void;
  close(ws: FeedSocket, code: number, reason: RawSocketData): void;
  /** The attempt failed: called once, before the attempt's promise rejects with the same error. */
  failed(error: ExchangeReplicaError): void;
}

/**
 * The `ws` package's messages for an answer to the upgrade that is not a WebSocket one
 * (it gives them no code; `NodeWebSocket` gives `WS_ERR_HANDSHAKE`).
 */
const WS_HANDSHAKE_MESSAGE = /^(Unexpected server response|Invalid (Upgrade|Sec-WebSocket-[\w-]+) header|Server (sent|indicated) )/;

/** Ends a socket whose attempt failed, whatever state it is in (it may not even exist). */
export function endQuietly(ws: FeedSocket | undefined): void {
  try {
    ws?.terminate();
  } catch {
    // A socket class that throws on terminate() is ended as far as the connection cares.
  }
}

/** Why an attempt failed, as reported: the socket's error (or the timeout's) is the `cause`. */
function attemptError(url: string, cause: Error): ExchangeReplicaError {
  const code = 'code' in cause ? cause.code : undefined;
  if (code === 'WS_ERR_HANDSHAKE' || WS_HANDSHAKE_MESSAGE.test(cause.message)) {
    return new HandshakeFailedError(`the server at ${url} did not accept the WebSocket upgrade: ${cause.message}`, { cause });
  }
  return new ConnectionFailedError(`cannot connect to ${url}: ${cause.message}`, {}, { cause });
}

/**
 * Creates a socket and waits for it to open, for at most `connectTimeoutMs`.
 * @returns a promise that resolves once the socket is open and adopted, and rejects with the
 * reported error when the attempt fails (or with the signal's reason when it is abandoned)
 */
export function openAttempt(options: ResolvedConnectionOptions, signal: AbortSignal, hooks: AttemptHooks): Promise<void> {
  return new Promise((resolve, reject) => {
    let ws: FeedSocket | undefined;
    let timer: Timer | undefined;
    let settled = false;
    const settle = (): void => {
      settled = true;
      timer?.cancel();
      signal.removeEventListener('abort', onAbort);
    };
    const fail = (error: ExchangeReplicaError): void => {
      if (settled) return;
      settle();
      endQuietly(ws);
      hooks.failed(error);
      reject(error);
    };
    const onAbort = (): void => {
      if (settled) return;
      settle();
      endQuietly(ws);
      reject(signal.reason);
    };
    const handlers: SocketHandlers = {
      open: () => {
        if (settled || ws === undefined) return;
        settle();
        hooks.open(ws);
        resolve();
      },
      message: (data) => {
        if (ws !== undefined) hooks.message(ws, data);
      },
      error: (error) => {
        if (!settled) fail(attemptError(options.url, error));
        else if (ws !== undefined) hooks.error(ws, error);
      },
      close: (code, reason) => {
        if (!settled) fail(attemptError(options.url, new Error(`socket closed before opening (code ${code})`)));
        else if (ws !== undefined) hooks.close(ws, code, reason);
      },
    };
    try {
      // permessage-deflate is offered by a class that has it (`ws`): maxPayload bounds the inflated size too.
      ws = openFeedSocket(
        options.WebSocket,
        options.url,
        { maxPayload: options.maxFrameBytes, perMessageDeflate: true, maxFragments: options.maxFragmentsPerMessage, maxQueuedWriteBytes: options.maxQueuedWriteBytes, maxHandshakeHeadBytes: options.maxHandshakeHeadBytes, clock: options.clock },
        handlers,
      );
    } catch (e) {
      return fail(new ConnectionFailedError(`cannot open a socket to ${options.url}: ${messageOf(e)}`, {}, { cause: e }));
    }
    // A class that failed from its constructor: the attempt is over, the socket still to end.
    if (settled) return endQuietly(ws);
    timer = options.clock.setTimer(() => fail(attemptError(options.url, new Error(`socket not open after ${options.connectTimeoutMs} ms`))), options.connectTimeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
