/** Which failures a retry can cure: one predicate for REST's retry policy and the replicas' snapshot loader. */
import { RestApiError, RestTimeoutError, RestTransportError, ResponseValidationError } from './index';

/**
 * True for failures worth another attempt after a backoff delay: a 5xx answer (whatever its
 * body) or the server code `INTERNAL_ERROR`, a network failure, a timeout. Never a 4xx, a
 * parameter error, a body that does not match the protocol on a 2xx, or a caller abort. A
 * 429 is not in it ({@link isRateLimitedError}): only `withRetry` retries it, since it honours
 * the server's `Retry-After` (the replicas' snapshot loader, which uses this predicate, does not).
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof RestApiError) return error.status >= 500 || error.serverCode === 'INTERNAL_ERROR';
  if (error instanceof ResponseValidationError) return (error.context.status ?? 0) >= 500;
  return error instanceof RestTransportError || error instanceof RestTimeoutError;
}
