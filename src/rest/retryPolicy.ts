/**
 * The retry policy, defined once and shared by every REST call and by the replicas'
 * snapshot fetches: the library's one backoff shape ({@link BackoffOptions}: exponential
 * delays with jitter, a bounded number of retries), and retries only for failures that a
 * later attempt can cure (5xx, network, timeout; and, in `withRetry`, a 429 rate limit).
 * A 429 or 503 that says how long to wait (`Retry-After`) is not asked again earlier, and
 * not waited for longer than `maxRetryAfterMs`: asked for more, the call gives up.
 */
import { Backoff, resolveBackoffOptions, type BackoffOptions, type ResolvedBackoffOptions } from '../clock/Backoff';
import type { Clock } from '../clock/Clock';
import { sleep } from '../clock/sleep';
import { AbortedError, ExchangeReplicaError, RestApiError, ResponseValidationError, type ErrorContext } from '../errors';
import { isRetryableError } from '../errors/isRetryableError';

/**
 * How failed attempts are retried: the library's one backoff shape, every field set.
 * Options take it partially (`Partial<RetryPolicy>`, i.e. {@link BackoffOptions}); fields
 * left out keep {@link DEFAULT_RETRY_POLICY}.
 */
export type RetryPolicy = ResolvedBackoffOptions;

/**
 * The defaults of {@link RetryPolicy}: `retries` 3, `initialDelayMs` 100, `maxDelayMs` 2000,
 * `factor` 2, `jitter` 0.5 (each delay uniform in [base / 2, base]).
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  retries: 3,
  initialDelayMs: 100,
  maxDelayMs: 2000,
  factor: 2,
  jitter: 0.5,
});

/** Default of {@link WithRetryHooks.maxRetryAfterMs} and of the REST option `maxRetryAfterMs`: 60 s. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/**
 * Completes a partial policy with `base` and checks it.
 * @param field the option's path in error messages. @default 'retry'
 * @throws InvalidParameterError naming the field when a value is out of range.
 */
export function resolveRetryPolicy(policy: BackoffOptions = {}, base: RetryPolicy = DEFAULT_RETRY_POLICY, field = 'retry'): RetryPolicy {
  return resolveBackoffOptions(policy, base, field);
}

export { isRetryableError } from '../errors/isRetryableError';

/** True for a 429 answer (rate limited), whatever its body: `withRetry` retries it after the wait its `Retry-After` asks. */
export function isRateLimitedError(error: unknown): boolean {
  return (error instanceof RestApiError || error instanceof ResponseValidationError) && error.context.status === 429;
}

/** The wait (ms) a 429 or 503 answer asked for in its `Retry-After` header, if it did. */
export function retryAfterMsOf(error: unknown): number | undefined {
  return error instanceof ExchangeReplicaError ? error.context.retryAfterMs : undefined;
}

/** `withRetry`'s default: what {@link isRetryableError} accepts, and a 429. */
function isRetryableByDefault(error: unknown): boolean {
  return isRetryableError(error) || isRateLimitedError(error);
}

/** Reported before each retry. */
export interface RetryInfo {
  /** The attempt that failed (1 = the first). */
  readonly attempt: number;
  /** Retries still allowed after the one about to happen. */
  readonly retriesLeft: number;
  readonly error: Error;
  /** The wait before the retry, in ms: the backoff delay, or the server's `Retry-After` when longer. */
  readonly delayMs: number;
}

/** Optional hooks of {@link withRetry}. */
export interface WithRetryHooks {
  /** Called once per retry, before its backoff delay. */
  readonly onRetry?: (info: RetryInfo) => void;
  /** Which failures to retry. @default isRetryableError, and a 429 (isRateLimitedError) */
  readonly shouldRetry?: (error: unknown) => boolean;
  /**
   * Longest server-asked wait (`Retry-After` of a 429 or 503) honoured, in ms. A failure
   * asking for more is not retried: the call rejects with it at once (its
   * `context.retryAfterMs` says what was asked), rather than asking again before the server
   * said it would answer.
   * @default 60000
   */
  readonly maxRetryAfterMs?: number;
  /** Context of the `AbortedError` raised when `signal` fires. */
  readonly context?: ErrorContext;
  /** Time source of the backoff delays. @default systemClock */
  readonly clock?: Clock;
  /** Source of the jitter, uniform in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/**
 * Runs `fn` and retries it according to `policy` while the failure is retryable. Each retry
 * waits the backoff delay, or the failure's `Retry-After` (`context.retryAfterMs`) when
 * longer; a `Retry-After` above `maxRetryAfterMs` ends the call with that failure.
 * Rejects with the last failure when retries run out (a thrown non-`Error` becomes a
 * `TypeError`), or with `AbortedError` as soon as `signal` fires (also during a backoff
 * delay, or when it fired while the attempt that succeeded was running).
 *
 * @example
 * const snapshot = await withRetry(() => rest.orderBook(params), { retries: 5 }, signal);
 * @throws the last error of `fn`, or AbortedError.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, policy: BackoffOptions = {}, signal?: AbortSignal, hooks: WithRetryHooks = {}): Promise<T> {
  const backoff = new Backoff(resolveRetryPolicy(policy), hooks.random);
  const shouldRetry = hooks.shouldRetry ?? isRetryableByDefault;
  const maxRetryAfterMs = hooks.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const aborted = () => new AbortedError('the request was aborted by the caller', hooks.context, { cause: signal?.reason });
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw aborted();
    let error: Error;
    try {
      const result = await fn(attempt);
      if (signal?.aborted) throw aborted();
      return result;
    } catch (e) {
      // The attempt failed because the caller aborted: say so (unless it already did).
      if (signal?.aborted) throw e instanceof ExchangeReplicaError && e.code === 'ERR_ABORTED' ? e : aborted();
      error = e instanceof Error ? e : new TypeError(`Non-error was thrown: "${String(e)}". You should only throw errors.`);
    }
    if (backoff.exhausted || !shouldRetry(error)) throw error;
    const asked = retryAfterMsOf(error);
    if (asked !== undefined && asked > maxRetryAfterMs) throw error;
    // Never earlier than the server asked, never earlier than the backoff.
    const delay = Math.max(backoff.next()!, asked ?? 0);
    hooks.onRetry?.({ attempt, retriesLeft: backoff.options.retries - backoff.attempts, error, delayMs: delay });
    try {
      await sleep(delay, signal, hooks.clock);
    } catch {
      throw aborted();
    }
  }
}
