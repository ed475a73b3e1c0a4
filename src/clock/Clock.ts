/**
 * The library's one clock: every receive stamp, duration, timeout and backoff reads time and
 * sets timers through a `Clock`, injectable per component (`clock` option). A test that is
 * about time passes a manual clock; a replay passes the recording's clock, which is what makes
 * it exact. Imports nothing of ours.
 */

/** A pending timer; `cancel()` is idempotent. */
export interface Timer {
  cancel(): void;
}

/** Options of {@link Clock.setTimer}. */
export interface TimerOptions {
  /** The timer alone does not keep the process alive. @default false */
  readonly unref?: boolean;
}

/** Time, read and waited for. */
export interface Clock {
  /**
   * Wall-clock Unix time in nanoseconds, comparable with the server's `timestamp_ns` (latency =
   * receive stamp - server stamp). Microsecond resolution; follows corrections of the wall clock.
   */
  nowNs(): bigint;
  /** Monotonic milliseconds, for durations (liveness windows, rate limits, backoff). */
  nowMs(): number;
  /**
   * Runs `callback` once after `delayMs`. With `unref`, the timer alone does not keep the
   * process alive (a watchdog over something that does, e.g. a socket).
   */
  setTimer(callback: () => void, delayMs: number, options?: TimerOptions): Timer;
}

/** Re-anchor the monotonic clock on the wall clock at most this often (ms). */
const RECHECK_MS = 1000;
/** ... and only when they disagree by more than this (ns): NTP steps, a suspended machine. */
const TOLERANCE_NS = 2_000_000n;

/** Node's `process.hrtime.bigint` where there is one (looked up without naming Node's types). */
const hrtimeBigint: (() => bigint) | undefined = (globalThis as { process?: { hrtime?: { bigint?: () => bigint } } }).process?.hrtime?.bigint;

/**
 * The platform's clock: a monotonic source anchored on `Date.now()` and re-anchored when the
 * wall clock moves; `setTimeout`. The monotonic source is `process.hrtime.bigint()` under
 * Node (a stamp per frame is on the hot path: one bigint add, no float conversion) and
 * `performance.now()` elsewhere. Works in Node and in browsers (no `process` needed).
 */
export class SystemClock implements Clock {
  private anchorNs: bigint;
  private lastCheckMs: number;
  /** hrtime path: the anchor is checked again once hrtime passes this. */
  private nextCheckHrNs = 0n;

  constructor() {
    this.lastCheckMs = performance.now();
    this.anchorNs = BigInt(Date.now()) * 1_000_000n - msToNs(this.lastCheckMs);
  }

  nowNs(): bigint {
    if (hrtimeBigint !== undefined) return this.hrNowNs(hrtimeBigint());
    const ms = performance.now();
    if (ms - this.lastCheckMs >= RECHECK_MS) {
      this.lastCheckMs = ms;
      this.reanchor(BigInt(Date.now()) * 1_000_000n - msToNs(ms));
    }
    return this.anchorNs + msToNs(ms);
  }

  private hrNowNs(hr: bigint): bigint {
    if (hr >= this.nextCheckHrNs) {
      if (this.nextCheckHrNs === 0n) this.anchorNs = BigInt(Date.now()) * 1_000_000n - hr;
      else this.reanchor(BigInt(Date.now()) * 1_000_000n - hr);
      this.nextCheckHrNs = hr + BigInt(RECHECK_MS) * 1_000_000n;
    }
    return this.anchorNs + hr;
  }

  /** The wall clock was corrected: follow it, so stamps stay comparable with the server's. */
  private reanchor(candidate: bigint): void {
    const diff = candidate - this.anchorNs;
    if (diff > TOLERANCE_NS || diff < -TOLERANCE_NS) this.anchorNs = candidate;
  }

  nowMs(): number {
    return performance.now();
  }

  setTimer(callback: () => void, delayMs: number, options?: TimerOptions): Timer {
    const handle = setTimeout(callback, delayMs);
    // Node's timers can be unref'd; a platform whose handle is a number has nothing to unref.
    if (options?.unref && typeof handle === 'object' && 'unref' in handle) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  }
}

function msToNs(ms: number): bigint {
  return BigInt(Math.round(ms * 1000)) * 1000n;
}

/** The clock components use when none is given. */
export const systemClock: Clock = new SystemClock();
