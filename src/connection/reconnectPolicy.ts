/**
 * Reconnect backoff: the library's one backoff shape ({@link BackoffOptions}) plus the time
 * after which an open connection counts as stable (the attempt counter starts over), and the
 * retry loop that applies it.
 */
import { resolveBackoffOptions, type Backoff, type BackoffOptions, type ResolvedBackoffOptions } from '../clock/Backoff';
import type { Clock } from '../clock/Clock';
import { sleep } from '../clock/sleep';
import { InvalidParameterError } from '../errors';

/** Reconnect settings: the backoff of the attempts after a drop (or a failed first connect). */
export interface ReconnectPolicyOptions extends BackoffOptions {
  /** Delay before the first reconnect attempt, in milliseconds. @default 250 */
  readonly initialDelayMs?: number;
  /** Upper bound of any delay, in milliseconds. @default 10000 */
  readonly maxDelayMs?: number;
  /** Growth of the delay per consecutive attempt. @default 2 */
  readonly factor?: number;
  /**
   * Fraction of each delay that is random: the delay is uniform in
   * `[base * (1 - jitter), base]`, so clients that dropped together spread out and no delay
   * exceeds `maxDelayMs`. 0 = no jitter, 1 = anywhere in `[0, base]`.
   * @default 0.5
   */
  readonly jitter?: number;
  /** Consecutive failed attempts after which the connection gives up (state `failed`); 0 = never reconnect. @default Infinity */
  readonly retries?: number;
  /** A connection that stayed open this long resets the attempt counter. @default 30000 */
  readonly stableAfterMs?: number;
}

export type ResolvedReconnectPolicyOptions = ResolvedBackoffOptions & { readonly stableAfterMs: number };

/** Defaults of {@link ReconnectPolicyOptions}. */
export const RECONNECT_DEFAULTS: ResolvedReconnectPolicyOptions = Object.freeze({
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  factor: 2,
  jitter: 0.5,
  retries: Number.POSITIVE_INFINITY,
  stableAfterMs: 30_000,
});

/**
 * Completes `options` with {@link RECONNECT_DEFAULTS} and checks every field.
 * @throws InvalidParameterError naming the field (`reconnect.<name>`).
 */
export function resolveReconnectPolicy(options: ReconnectPolicyOptions = {}): ResolvedReconnectPolicyOptions {
  const backoff = resolveBackoffOptions(options, RECONNECT_DEFAULTS, 'reconnect');
  const stableAfterMs = options.stableAfterMs ?? RECONNECT_DEFAULTS.stableAfterMs;
  if (typeof stableAfterMs !== 'number' || !(stableAfterMs >= 0) || !Number.isFinite(stableAfterMs)) {
    throw new InvalidParameterError(`invalid 'reconnect.stableAfterMs': expected a finite number >= 0, got ${String(stableAfterMs)}`, { param: 'reconnect.stableAfterMs' });
  }
  return Object.freeze({ ...backoff, stableAfterMs });
}

/**
 * Runs `attempt` until it succeeds, waiting the backoff's delay on `clock` before each try
 * (also the first: this loop starts after something failed). Stops when `signal` aborts
 * (rejecting with its reason), when an attempt fails with an error `isFatal` accepts
 * (rejecting with it), or when the backoff is exhausted (rejecting with the last error).
 * The backoff's counter carries over between loops until the caller resets it.
 */
export async function reconnectLoop<T>(backoff: Backoff, attempt: (signal: AbortSignal) => Promise<T>, options: { readonly signal: AbortSignal; readonly clock: Clock; readonly isFatal: (error: unknown) => boolean }): Promise<T> {
  let last: unknown = new Error(`no reconnect attempt left (retries ${backoff.options.retries})`);
  for (let delay = backoff.next(); delay !== undefined; delay = backoff.next()) {
    await sleep(delay, options.signal, options.clock);
    try {
      return await attempt(options.signal);
    } catch (e) {
      options.signal.throwIfAborted();
      if (options.isFatal(e)) throw e;
      last = e;
    }
  }
  throw last;
}
