/**
 * The one backoff shape of the library: every retry (REST calls, snapshot fetches, feed
 * reconnects, a snapshot that stayed ahead) waits `initialDelayMs * factor^attempt`, capped
 * at `maxDelayMs`, with a random fraction `jitter` taken off, for at most `retries` retries.
 */
import { InvalidParameterError } from '../errors';
import { withDefaults } from '../util/withDefaults';

/** How failed attempts are retried. Every field is checked once, by {@link resolveBackoffOptions}. */
export interface BackoffOptions {
  /** Delay before the first retry, in milliseconds. @default depends on the component (see its options) */
  readonly initialDelayMs?: number;
  /** Upper bound of any delay, in milliseconds. @default depends on the component */
  readonly maxDelayMs?: number;
  /** Growth of the delay from one retry to the next (>= 1). @default 2 */
  readonly factor?: number;
  /**
   * Fraction of each delay that is random: the delay is uniform in `[base * (1 - jitter), base]`,
   * so clients that failed together spread out and no delay exceeds `maxDelayMs`. 0 = none,
   * 1 = anywhere in `[0, base]`.
   * @default 0.5
   */
  readonly jitter?: number;
  /** Retries after the first failure; `Infinity` retries forever, 0 never. @default depends on the component */
  readonly retries?: number;
}

export type ResolvedBackoffOptions = Required<BackoffOptions>;

/**
 * Completes `options` with the component's `defaults` and checks every field.
 * @param field the option's path in error messages (e.g. `connection.reconnect`).
 * @throws InvalidParameterError naming the field and what it accepts.
 */
export function resolveBackoffOptions(options: BackoffOptions | undefined, defaults: ResolvedBackoffOptions, field: string): ResolvedBackoffOptions {
  const o = withDefaults<BackoffOptions>(defaults, options);
  const resolved: ResolvedBackoffOptions = {
    initialDelayMs: check(field, 'initialDelayMs', o.initialDelayMs, 0, 'a finite number >= 0'),
    maxDelayMs: check(field, 'maxDelayMs', o.maxDelayMs, 0, 'a finite number >= 0'),
    factor: check(field, 'factor', o.factor, 1, 'a finite number >= 1'),
    jitter: check(field, 'jitter', o.jitter, 0, 'a number from 0 to 1', 1),
    retries: checkRetries(field, o.retries),
  };
  if (resolved.maxDelayMs < resolved.initialDelayMs) {
    throw new InvalidParameterError(`invalid '${field}.maxDelayMs': ${resolved.maxDelayMs} is below 'initialDelayMs' (${resolved.initialDelayMs})`, { param: `${field}.maxDelayMs` });
  }
  return Object.freeze(resolved);
}

function check(field: string, name: string, v: unknown, min: number, accepted: string, max = Number.POSITIVE_INFINITY): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw new InvalidParameterError(`invalid '${field}.${name}': expected ${accepted}, got ${String(v)}`, { param: `${field}.${name}` });
  }
  return v;
}

function checkRetries(field: string, v: unknown): number {
  if (typeof v === 'number' && (v === Number.POSITIVE_INFINITY || (Number.isSafeInteger(v) && v >= 0))) return v;
  throw new InvalidParameterError(`invalid '${field}.retries': expected an integer >= 0 or Infinity, got ${String(v)}`, { param: `${field}.retries` });
}

/**
 * Counts consecutive failed attempts and computes the wait before each retry.
 * @example
 * const backoff = new Backoff(resolveBackoffOptions({ initialDelayMs: 100 }, defaults, 'retry'));
 * const wait = backoff.next(); // 50..100 ms with jitter 0.5; undefined once `retries` are spent
 */
export class Backoff {
  private failures = 0;

  constructor(
    readonly options: ResolvedBackoffOptions,
    private readonly random: () => number = Math.random,
  ) {}

  /** Retries made since the last reset. */
  get attempts(): number {
    return this.failures;
  }

  /** True when no retry is left. */
  get exhausted(): boolean {
    return this.failures >= this.options.retries;
  }

  /** The delay before retry number `retry` (0-based), drawing one random number. */
  delayFor(retry: number): number {
    const { initialDelayMs, maxDelayMs, factor, jitter } = this.options;
    const base = Math.min(maxDelayMs, initialDelayMs * factor ** retry);
    return Math.round(base * (1 - jitter * this.random()));
  }

  /** Counts one retry and returns the wait before it, or undefined when none is left. */
  next(): number | undefined {
    if (this.exhausted) return undefined;
    return this.delayFor(this.failures++);
  }

  /** Success (or a connection that stayed up): the next failure starts from `initialDelayMs`. */
  reset(): void {
    this.failures = 0;
  }
}
