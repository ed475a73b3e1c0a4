/**
 * Every error this library throws or emits (REST calls, replica observables, `errors$`, the
 * connection's `error` event, the simulator) is an `ExchangeReplicaError` with a stable string
 * `code`, optional context and `cause`: anything else thrown inside, a bug or a consumer's
 * exception, arrives wrapped (`ERR_INTERNAL`, `SubscriberError`) with it as `cause`. The one
 * exception is the caller's own code run by `withRetry`: its failure is rethrown as is (a
 * thrown non-`Error` as a `TypeError`). The library's own codes start with `ERR_`; a REST
 * error body's code is kept apart, as `RestApiError.serverCode` (the `code` is `ERR_REST_API`),
 * so that no server can pass for the library; a feed error frame's code is kept verbatim
 * (`FeedError`). The table is in the README.
 */

import type { ErrorCode } from './ErrorCode';
import { FEED_ERROR_CODES, type FeedErrorCode } from '../protocol/frames';

const FEED_CODES: readonly string[] = FEED_ERROR_CODES;
const isFeedErrorCode = (code: string): code is FeedErrorCode => FEED_CODES.includes(code);

export { ERROR_CODES, LIBRARY_ERROR_CODES, isErrorCode, type ErrorCode, type LibraryErrorCode, type ExchangeErrorCode } from './ErrorCode';

export interface ErrorContext {
  /** REST operation name (e.g. `orderBook`). */
  operation?: string;
  /** Parameter at fault. */
  param?: string;
  /** Feed channel. */
  channel?: string;
  /** Canonical stream key of a subscription. */
  stream?: string;
  /** Server subscription id. */
  subscriptionId?: string;
  /** HTTP status of a REST answer. */
  status?: number;
  /** The wait a 429 or 503 answer asked for in its `Retry-After` header, in milliseconds. */
  retryAfterMs?: number;
  /** Target (`Location`) of a REST redirect that was refused. */
  location?: string;
}

export class ExchangeReplicaError extends Error {
  /** Stable machine-readable code: never changes meaning. */
  readonly code: ErrorCode;
  readonly context: ErrorContext;

  constructor(code: ErrorCode, message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.context = context;
  }
}

/** A parameter failed the client-side checks; nothing was sent. */
export class InvalidParameterError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext & { param: string }) {
    super('ERR_INVALID_PARAMETER', message, context);
  }
  get param(): string {
    return this.context.param!;
  }
}

/**
 * The exchange answered a REST call with an error body. `code` is always `ERR_REST_API`; what
 * the server said is `serverCode` (e.g. `NOT_FOUND`), kept apart so that a body saying
 * `"code": "ERR_ABORTED"` can never pass for the library's own error.
 */
export class RestApiError extends ExchangeReplicaError {
  readonly status: number;
  readonly operation: string;
  /** The server's code as received (a string, or an integer for the second body shape): never the library's `code`. */
  readonly serverCode: string | number;
  constructor(serverCode: string | number, message: string, context: ErrorContext & { operation: string; status: number }, options?: { cause?: unknown }) {
    super('ERR_REST_API', message, context, options);
    this.serverCode = serverCode;
    this.status = context.status;
    this.operation = context.operation;
  }
}

/** The request never got an answer: network failure. */
export class RestTransportError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext, options?: { cause?: unknown }) {
    super('ERR_TRANSPORT', message, context, options);
  }
}

/** The request exceeded its per-request timeout. */
export class RestTimeoutError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext, options?: { cause?: unknown }) {
    super('ERR_TIMEOUT', message, context, options);
  }
}

/** The caller's AbortSignal fired. */
export class AbortedError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super('ERR_ABORTED', message, context, options);
  }
}

/** A server answer (REST body or feed frame) did not match the protocol. */
export class ResponseValidationError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext, options?: { cause?: unknown }) {
    super('ERR_RESPONSE_INVALID', message, context, options);
  }
}

/** `waitForTransaction` reached its deadline while the hash was still unknown (404). */
export class TransactionNotIndexedError extends ExchangeReplicaError {
  readonly hash: string;
  constructor(hash: string, waitedMs: number) {
    super(
      'ERR_TRANSACTION_NOT_INDEXED',
      `transaction ${hash} was not indexed within ${waitedMs} ms: it was rejected at admission or is not yet sequenced`,
      {},
    );
    this.hash = hash;
  }
}

/**
 * The feed answered with an error frame. `code` is the server's code when it is one the
 * protocol documents (`INVALID_SUBSCRIPTION`, `FEED_UNAVAILABLE`, ...), else
 * `ERR_FEED_ERROR`: a code read from a frame is never taken for one of the library's own.
 * `serverCode` always holds what the server said.
 */
export class FeedError extends ExchangeReplicaError {
  /** The code the server's frame carried, as received. */
  readonly serverCode: string;
  constructor(serverCode: string, message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(isFeedErrorCode(serverCode) ? serverCode : 'ERR_FEED_ERROR', message, context, options);
    this.serverCode = serverCode;
  }
}

/** A frame from the server could not be decoded or routed. */
export class FrameError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super('ERR_FRAME_INVALID', message, context, options);
  }
}

/** A subscribe or unsubscribe got no answer in time. */
export class RequestTimeoutError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}) {
    super('ERR_REQUEST_TIMEOUT', message, context);
  }
}

/** The client (or connection) was closed by the caller. */
export class ClientClosedError extends ExchangeReplicaError {
  constructor(message = 'the client is closed', context: ErrorContext = {}) {
    super('ERR_CLIENT_CLOSED', message, context);
  }
}

/** The feed connection gave up: its reconnect attempts ran out, or the socket could not even be created. */
export class ConnectionFailedError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super('ERR_CONNECTION_FAILED', message, context, options);
  }
}

/** A subscriber's callback threw while the router delivered an event; other subscribers were unaffected. */
export class SubscriberError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super('ERR_SUBSCRIBER_THREW', message, context, options);
  }
}

/** A REST answer's body exceeded `maxResponseBytes`: the request was aborted, the body not read further. Not retried. */
export class ResponseTooLargeError extends ExchangeReplicaError {
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;
  constructor(message: string, context: ErrorContext & { operation: string }, limitBytes: number) {
    super('ERR_RESPONSE_TOO_LARGE', message, context);
    this.limitBytes = limitBytes;
  }
}

/** A feed frame exceeded `maxFrameBytes` (after decompression): that socket was closed (1009) and the connection reconnects. */
export class FrameTooLargeError extends ExchangeReplicaError {
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;
  constructor(message: string, limitBytes: number, options?: { cause?: unknown }) {
    super('ERR_FRAME_TOO_LARGE', message, {}, options);
    this.limitBytes = limitBytes;
  }
}

/** A feed message came in more fragments than `maxFragmentsPerMessage`: that socket was closed (1009) and the connection reconnects. */
export class TooManyFragmentsError extends ExchangeReplicaError {
  /** The limit that was exceeded, in fragments. */
  readonly limit: number;
  constructor(message: string, limit: number, options?: { cause?: unknown }) {
    super('ERR_TOO_MANY_FRAGMENTS', message, {}, options);
    this.limit = limit;
  }
}

/** The server stopped reading: a frame would have left more than `maxQueuedWriteBytes` waiting to be sent. That socket was dropped and the connection reconnects. */
export class WriteBacklogError extends ExchangeReplicaError {
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;
  constructor(message: string, limitBytes: number, options?: { cause?: unknown }) {
    super('ERR_WRITE_BACKLOG', message, {}, options);
    this.limitBytes = limitBytes;
  }
}

/**
 * The server's answer to the WebSocket upgrade request was not a valid one (a status other
 * than 101, a wrong `Sec-WebSocket-Accept`, an extension or subprotocol not asked for, a head
 * over `maxHandshakeHeadBytes`); `cause` is the socket's error. Reported once per attempt;
 * the connection retries with backoff.
 */
export class HandshakeFailedError extends ExchangeReplicaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_HANDSHAKE_FAILED', message, {}, options);
  }
}

/**
 * A paged listing answered a `next_cursor` already sent in the same walk (a cursor cycle of
 * any length): following it would loop and repeat records.
 */
export class CursorRepeatedError extends ExchangeReplicaError {
  /** The repeated cursor, as answered. */
  readonly cursor: string;
  constructor(message: string, cursor: string, context: ErrorContext = {}) {
    super('ERR_CURSOR_REPEATED', message, context);
    this.cursor = cursor;
  }
}

/** An `iterate(...)` loop fell further behind its source than its `bufferSize` allows. */
export class ConsumerOverflowError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}) {
    super('ERR_CONSUMER_OVERFLOW', message, context);
  }
}

/** A bounded buffer of the library was full and dropped its oldest entries (the replica heals: it resyncs or asks for a snapshot that covers the loss). */
export class BufferOverflowError extends ExchangeReplicaError {
  constructor(message: string, context: ErrorContext = {}) {
    super('ERR_BUFFER_OVERFLOW', message, context);
  }
}
