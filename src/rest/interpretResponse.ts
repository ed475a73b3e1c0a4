/**
 * Turns an HTTP answer into the operation's typed value or a library error: a 2xx body is
 * checked against the operation's response schema (with the drift policy); any other status
 * must carry one of the two documented error bodies, whose code becomes the error's
 * `serverCode` (its `code` is the library's `ERR_REST_API`, whatever the body says). The
 * wait a 429 or 503 asked for goes into the error's `context.retryAfterMs`. Operations with
 * a fast decoder (the protocol's FAST_RESPONSE_DECODERS: the resync snapshot) try it first
 * on a 2xx body; it takes only bodies the schema path accepts without drift, with the same
 * value, and leaves everything else (extra keys included) to the schema path. @internal
 */
import {
  ErrorBody,
  fastResponseDecoder,
  NumericErrorBody,
  responseSchema,
  summarizeZodError,
  validateWithDrift,
  type FastResponseDecoder,
  type OperationName,
  type ValidateOptions,
} from '../protocol';
import { RestApiError, ResponseValidationError } from '../errors';
import type { HttpAnswer } from './fetchText';

function snippet(text: string): string {
  const t = text.length > 120 ? `${text.slice(0, 120)}…` : text;
  return JSON.stringify(t);
}

/**
 * @param fast the operation's fast decoder; `null` forces the schema path (tests compare the two).
 *   @default fastResponseDecoder(operation)
 * @throws RestApiError (`code` `ERR_REST_API`, the body's code as `serverCode`) for a documented error body, ResponseValidationError for anything
 * that does not follow the protocol (with the parse or schema error as `cause`).
 */
export function interpretResponse(operation: OperationName, answer: HttpAnswer, opts: ValidateOptions, fast: FastResponseDecoder | null | undefined = fastResponseDecoder(operation)): unknown {
  const { status, text, retryAfterMs } = answer;
  if (fast && status >= 200 && status < 300) {
    const value = fast(text);
    if (value !== undefined) return value;
  }
  const context = retryAfterMs === undefined ? { operation, status } : { operation, status, retryAfterMs };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ResponseValidationError(`${operation}: HTTP ${status} answer is not valid JSON: ${snippet(text)}`, context, { cause: e });
  }
  if (status >= 200 && status < 300) {
    const r = validateWithDrift(responseSchema(operation), raw, opts);
    if (!r.ok) throw new ResponseValidationError(`${operation}: answer does not match the protocol: ${summarizeZodError(r.error)}`, context, { cause: r.error });
    return r.value;
  }
  const textual = validateWithDrift(ErrorBody, raw, opts);
  if (textual.ok) {
    throw new RestApiError(textual.value.code, `${operation}: ${textual.value.error} (HTTP ${status}, ${textual.value.code})`, context);
  }
  const numeric = validateWithDrift(NumericErrorBody, raw, opts);
  if (numeric.ok) {
    throw new RestApiError(numeric.value.code, `${operation}: ${numeric.value.message} (HTTP ${status}, code ${numeric.value.code})`, context);
  }
  throw new ResponseValidationError(`${operation}: HTTP ${status} with an error body of unknown shape: ${snippet(text)}`, context, { cause: textual.error });
}
