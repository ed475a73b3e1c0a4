/**
 * The retry policy, defined once and shared by every REST call and by the replicas'
 * snapshot fetches: exponential backoff with jitter, a bounded number of retries, and
 * retries only for failures that a later attempt can cure (5xx, network, timeout).
 */
import pRetry from 'p-retry';
import { AbortedError, ExchangeReplicaError, InvalidParameterError, RestApiError, RestTimeoutError, RestTransportError, ResponseValidationError, type ErrorContext } from '../errors';

/** How failed attempts are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (0 disables retrying). @default 3 */
  readonly retries: number;
  /** Delay before the first retry, in milliseconds. @default 100 */
  readonly minDelayMs: number;
  /** Upper bound of any delay between two attempts, in milliseconds. @default 2000 */
  readonly maxDelayMs: number;
  /** Growth of the delay from one retry to the next. @default 2 */
  readonly factor: number;
  /** Multiply each delay by a random factor in [1, 2) so that clients do not retry in lockstep. @default true */
  readonly jitter: boolean;
}

/** The defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  retries: 3,
  minDelayMs: 100,
  maxDelayMs: 2000,
  factor: 2,
  jitter: true,
});

function checkNumber(name: keyof RetryPolicy, v: unknown, integer: boolean, min: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
    throw new InvalidParameterError(`invalid retry policy: '${name}' must be ${integer ? 'an integer' : 'a finite number'} >= ${min}, got ${String(v)}`, { param: `retry.${name}` });
  }
  return v;
}

/**
 * Completes a partial policy with the defaults and checks it.
 * @throws InvalidParameterError naming the field when a value is out of range.
 */
export function resolveRetryPolicy(policy: Partial<RetryPolicy> = {}, base: RetryPolicy = DEFAULT_RETRY_POLICY): RetryPolicy {
  const p = { ...base, ...stripUndefined(policy) };
  const resolved: RetryPolicy = {
    retries: checkNumber('retries', p.retries, true, 0),
    minDelayMs: checkNumber('minDelayMs', p.minDelayMs, false, 0),
    maxDelayMs: checkNumber('maxDelayMs', p.maxDelayMs, false, 0),
    factor: checkNumber('factor', p.factor, false, 1),
    jitter: Boolean(p.jitter),
  };
  if (resolved.maxDelayMs < resolved.minDelayMs) {
    throw new InvalidParameterError(`invalid retry policy: 'maxDelayMs' (${resolved.maxDelayMs}) is below 'minDelayMs' (${resolved.minDelayMs})`, { param: 'retry.maxDelayMs' });
  }
  return Object.freeze(resolved);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/**
 * True for failures worth another attempt: a 5xx answer (whatever its body) or the code
 * `INTERNAL_ERROR`, a network failure, a timeout. Never a 4xx, a parameter error, a body
 * that does not match the protocol on a 2xx, or a caller abort.
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof RestApiError) return error.status >= 500 || error.serverCode === 'INTERNAL_ERROR';
  if (error instanceof ResponseValidationError) return (error.context.status ?? 0) >= 500;
  return error instanceof RestTransportError || error instanceof RestTimeoutError;
}

/** Reported before each retry. */
export interface RetryInfo {
  /** The attempt that failed (1 = the first). */
  readonly attempt: number;
  /** Retries still allowed after the one about to happen. */
  readonly retriesLeft: number;
  readonly error: Error;
}

/** Optional hooks of {@link withRetry}. */
export interface WithRetryHooks {
  /** Called once per retry, before its backoff delay. */
  readonly onRetry?: (info: RetryInfo) => void;
  /** Which failures to retry. @default isRetryableError */
  readonly shouldRetry?: (error: unknown) => boolean;
  /** Context of the `AbortedError` raised when `signal` fires. */
  readonly context?: ErrorContext;
}

/**
 * Runs `fn` and retries it according to `policy` while the failure is retryable.
 * Rejects with the last failure when retries run out, or with `AbortedError` as soon as
 * `signal` fires (also during a backoff delay).
 *
 * @example
 * const snapshot = await withRetry(() => rest.orderBook(params), { retries: 5 }, signal);
 * @throws the last error of `fn`, or AbortedError.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, policy: Partial<RetryPolicy> = {}, signal?: AbortSignal, hooks: WithRetryHooks = {}): Promise<T> {
  const p = resolveRetryPolicy(policy);
  const shouldRetry = hooks.shouldRetry ?? isRetryableError;
  const aborted = () => new AbortedError('the request was aborted by the caller', hooks.context, { cause: signal?.reason });
  if (signal?.aborted) throw aborted();
  try {
    if (p.retries === 0) return await once(fn, signal);
    return await pRetry(fn, {
      retries: p.retries,
      factor: p.factor,
      minTimeout: p.minDelayMs,
      maxTimeout: p.maxDelayMs,
      randomize: p.jitter,
      signal,
      shouldRetry: ({ error, attemptNumber, retriesLeft }) => {
        if (!shouldRetry(error)) return false;
        // retriesLeft counts the retry about to happen.
        hooks.onRetry?.({ attempt: attemptNumber, retriesLeft: retriesLeft - 1, error });
        return true;
      },
    });
  } catch (e) {
    // p-retry rejects with the signal's own reason when the caller aborts between attempts.
    if (signal?.aborted && !(e instanceof ExchangeReplicaError && e.code === 'ERR_ABORTED')) throw aborted();
    throw e;
  }
}

/** A single attempt, settled as p-retry settles it (a non-Error becomes a TypeError; an abort wins). */
async function once<T>(fn: (attempt: number) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  let result: T;
  try {
    result = await fn(1);
  } catch (e) {
    throw e instanceof Error ? e : new TypeError(`Non-error was thrown: "${String(e)}". You should only throw errors.`);
  }
  // Aborted meanwhile: the caller's catch turns this into AbortedError.
  signal?.throwIfAborted();
  return result;
}
