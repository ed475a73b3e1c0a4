/**
 * The errors of an open socket that the connection reports and heals itself: a limit of
 * {@link ResolvedConnectionOptions} that the server made the socket pass (a frame too large,
 * a message in too many fragments, writes it does not read). Each drops that socket and
 * reconnects; anything else a socket reports is only the cause of its close.
 */
import { FrameTooLargeError, TooManyFragmentsError, WriteBacklogError, type ExchangeReplicaError } from '../errors';
import type { ResolvedConnectionOptions } from './connectionOptions';

/** WebSocket close code "message too big". */
const MESSAGE_TOO_BIG = 1009;
/** The socket is dropped without a closing handshake. */
const ABNORMAL_CLOSURE = 1006;

/** Codes of the `ws` errors raised for a frame over `maxPayload` (or a length no integer can hold); `NodeWebSocket` uses the first. */
const TOO_LARGE_CODES: ReadonlySet<unknown> = new Set(['WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH']);

/** A limit passed: what to report, and the close code the `close` event gives. */
export interface LimitPassed {
  readonly error: ExchangeReplicaError;
  readonly closeCode: number;
}

/** The error for a frame over `maxFrameBytes` (`detail` says what was received). */
export function frameTooLarge(options: ResolvedConnectionOptions, detail: string, cause?: Error): LimitPassed {
  const limit = options.maxFrameBytes;
  const message = `the feed at ${options.url} sent a frame larger than maxFrameBytes (${limit} bytes, after decompression; ${detail}): socket closed with 1009, reconnecting. Raise the connection option 'maxFrameBytes' if such frames are expected`;
  return { error: new FrameTooLargeError(message, limit, { cause }), closeCode: MESSAGE_TOO_BIG };
}

/** The limit a socket error says was passed, or undefined for any other error. */
export function limitPassed(error: Error, options: ResolvedConnectionOptions): LimitPassed | undefined {
  const code = 'code' in error ? error.code : undefined;
  if (TOO_LARGE_CODES.has(code)) return frameTooLarge(options, error.message, error);
  if (code === 'WS_ERR_TOO_MANY_FRAGMENTS') {
    const limit = options.maxFragmentsPerMessage;
    const message = `the feed at ${options.url} sent a message in more than maxFragmentsPerMessage (${limit}) fragments: socket closed with 1009, reconnecting. Raise the connection option 'maxFragmentsPerMessage' if the server fragments its messages that finely`;
    return { error: new TooManyFragmentsError(message, limit, { cause: error }), closeCode: MESSAGE_TOO_BIG };
  }
  if (code === 'WS_ERR_WRITE_BACKLOG') {
    const limit = options.maxQueuedWriteBytes;
    const message = `the feed at ${options.url} stopped reading: more than maxQueuedWriteBytes (${limit}) bytes would wait to be sent to it (${error.message}); socket dropped, reconnecting`;
    return { error: new WriteBacklogError(message, limit, { cause: error }), closeCode: ABNORMAL_CLOSURE };
  }
  return undefined;
}
