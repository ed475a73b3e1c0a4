/**
 * Reconnect backoff: exponential delays with jitter, a consecutive-attempt counter that
 * resets once a connection has stayed up long enough, and the retry loop that applies it.
 */
import pRetry, { AbortError } from 'p-retry';

/** Backoff settings. Defaults are applied by `resolveConnectionOptions`. */
export interface ReconnectPolicyOptions {
  /** Base delay before the first reconnect attempt. @default 250 */
  readonly initialDelayMs?: number;
  /** Upper bound of any delay. @default 10000 */
  readonly maxDelayMs?: number;
  /** Growth of the base delay per consecutive attempt. @default 2 */
  readonly factor?: number;
  /**
   * Fraction of each delay that is random: the delay is uniform in
   * `[base * (1 - jitter), base]`, so clients that dropped together spread out and no delay
   * exceeds `maxDelayMs`. 0 = no jitter, 1 = anywhere in `[0, base]`.
   * @default 0.5
   */
  readonly jitter?: number;
  /** A connection that stayed open this long resets the attempt counter. @default 30000 */
  readonly stableAfterMs?: number;
  /** Consecutive failed attempts after which the connection gives up (state `failed`). @default Infinity */
  readonly maxAttempts?: number;
}

export type ResolvedReconnectPolicyOptions = Required<ReconnectPolicyOptions>;

/**
 * Counts consecutive reconnect attempts and computes the delay before each.
 * @example
 * const policy = new ReconnectPolicy(options, Math.random);
 * const wait = policy.nextDelay(); // 125..250 ms for the first attempt with the defaults
 */
export class ReconnectPolicy {
  private attemptCount = 0;

  constructor(
    readonly options: ResolvedReconnectPolicyOptions,
    private readonly random: () => number,
  ) {}

  /** Attempts made since the last reset. */
  get attempts(): number {
    return this.attemptCount;
  }

  /** True when no attempt is left. */
  get exhausted(): boolean {
    return this.attemptCount >= this.options.maxAttempts;
  }

  /** The delay before attempt number `attempt` (0-based), drawing one random number. */
  delayFor(attempt: number): number {
    const { initialDelayMs, maxDelayMs, factor, jitter } = this.options;
    const base = Math.min(maxDelayMs, initialDelayMs * factor ** attempt);
    return Math.round(base * (1 - jitter * this.random()));
  }

  /** Counts one attempt and returns the delay to wait before making it. */
  nextDelay(): number {
    return this.delayFor(this.attemptCount++);
  }

  /** The connection proved stable: the next drop starts from the initial delay again. */
  reset(): void {
    this.attemptCount = 0;
  }
}

/** Sleeps `ms`, rejecting with the signal's reason as soon as it aborts. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Wraps an error that must end the loop at once (no further attempt). */
export class FatalAttemptError extends AbortError {}

/**
 * Runs `attempt` until it succeeds, waiting the policy's delay before each try (also the
 * first: this loop starts after something failed). Stops when `signal` aborts (rejecting
 * with its reason), when `attempt` throws a `FatalAttemptError` (rejecting with the wrapped
 * error), or when the policy is exhausted (rejecting with the last error).
 */
export function reconnectLoop<T>(policy: ReconnectPolicy, attempt: (signal: AbortSignal) => Promise<T>, signal: AbortSignal, onFailedAttempt?: (error: Error) => void): Promise<T> {
  if (policy.exhausted) return Promise.reject(new Error(`no reconnect attempt left (maxAttempts ${policy.options.maxAttempts})`));
  return pRetry(
    async () => {
      await abortableDelay(policy.nextDelay(), signal);
      try {
        return await attempt(signal);
      } catch (e) {
        // p-retry never retries a TypeError; a failed attempt is retried whatever its class.
        if (e instanceof TypeError) throw new Error(e.message, { cause: e });
        throw e;
      }
    },
    {
      signal,
      retries: Number.POSITIVE_INFINITY,
      // The delays are ours (policy.nextDelay, inside the attempt): p-retry adds none.
      minTimeout: 0,
      maxTimeout: 0,
      onFailedAttempt: ({ error }) => {
        if (!signal.aborted) onFailedAttempt?.(error);
      },
      shouldRetry: () => !policy.exhausted,
    },
  );
}
