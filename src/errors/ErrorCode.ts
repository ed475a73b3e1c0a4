/**
 * Every `code` an `ExchangeReplicaError` carries, as a closed union: a `switch (e.code)` over
 * {@link ErrorCode} can be checked exhaustive. The library's own codes start with `ERR_`;
 * the exchange's codes of feed error frames are kept verbatim; those of REST error bodies are
 * `RestApiError.serverCode`, never a `code`.
 */
import { REST_ERROR_CODES, type RestErrorCode } from '../protocol/envelope';
import { FEED_ERROR_CODES, type FeedErrorCode } from '../protocol/frames';

/** The codes the library assigns itself (README, "Errors"). */
export const LIBRARY_ERROR_CODES = [
  // caller and REST
  'ERR_INVALID_PARAMETER',
  'ERR_TRANSPORT',
  'ERR_TIMEOUT',
  'ERR_ABORTED',
  'ERR_RESPONSE_INVALID',
  'ERR_RESPONSE_TOO_LARGE',
  /** The exchange answered with an error body; what it said is `RestApiError.serverCode`. */
  'ERR_REST_API',
  /** A REST answer was a redirect the client does not follow (another origin, or past `maxRedirects`). */
  'ERR_REDIRECT_REFUSED',
  'ERR_CURSOR_REPEATED',
  'ERR_TRANSACTION_NOT_INDEXED',
  // feed
  'ERR_FRAME_INVALID',
  'ERR_FEED_ERROR',
  'ERR_FRAME_TOO_LARGE',
  'ERR_TOO_MANY_FRAGMENTS',
  'ERR_WRITE_BACKLOG',
  'ERR_HANDSHAKE_FAILED',
  'ERR_REQUEST_TIMEOUT',
  'ERR_CONNECTION_FAILED',
  'ERR_CLIENT_CLOSED',
  'ERR_SUBSCRIBER_THREW',
  'ERR_CONSUMER_OVERFLOW',
  'ERR_BUFFER_OVERFLOW',
  // replicas
  'ERR_REPLICA_INTEGRITY',
  'ERR_SNAPSHOT_INVALID',
  'ERR_SNAPSHOT_BEHIND',
  'ERR_SNAPSHOT_AHEAD',
  'ERR_BOOK_PRECISION',
  'ERR_ILLEGAL_STATE_TRANSITION',
  /** A failure that is not an `ExchangeReplicaError` (a bug), wrapped with its `cause`. */
  'ERR_INTERNAL',
  // simulator and CLI
  'ERR_SIMULATOR_OPTION',
  'ERR_SIMULATOR_START',
  'ERR_SIM_REQUEST',
  'ERR_CLI_USAGE',
  // NATS relay
  'ERR_BUS',
  /** NATS refused the connection: no credentials, or credentials it does not accept. */
  'ERR_BUS_AUTH',
  /** NATS refused an operation to these credentials (their role may not publish there, write the bucket...). */
  'ERR_BUS_PERMISSION',
  // recording and replay
  'ERR_RECORDING_INVALID',
  'ERR_REPLAY_DIVERGED',
  /** A replay from a recording was asked for a stream (or a snapshot page) the recording does not hold. */
  'ERR_NOT_RECORDED',
] as const;

export type LibraryErrorCode = (typeof LIBRARY_ERROR_CODES)[number];

/**
 * The codes the exchange documents: REST error bodies (kept as `RestApiError.serverCode`,
 * whose `code` is always `ERR_REST_API`) and feed error frames (`FeedError`, verbatim).
 */
export type ExchangeErrorCode = RestErrorCode | FeedErrorCode;

/** Every code: the library's own and the exchange's. */
export type ErrorCode = LibraryErrorCode | ExchangeErrorCode;

/** {@link ErrorCode} as a list (the library's first, then REST, then feed). */
export const ERROR_CODES: readonly ErrorCode[] = [...LIBRARY_ERROR_CODES, ...REST_ERROR_CODES, ...FEED_ERROR_CODES];

/** Narrows a string (e.g. a code read from a log) to {@link ErrorCode}. */
export function isErrorCode(code: string): code is ErrorCode {
  return CODE_NAMES.includes(code);
}

const CODE_NAMES: readonly string[] = ERROR_CODES;
