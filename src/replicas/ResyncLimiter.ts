/**
 * The snapshot budget of one stream: a token bucket. A server that asks for resyncs without
 * end (a `resync_required` storm, a stream that keeps jumping) costs at most `burst`
 * snapshot requests at once, then one per `refillMs`, instead of one per REST round trip.
 */
import type { Clock } from '../clock';

export class ResyncLimiter {
  private tokens: number;
  private lastRefillMs: number;

  /**
   * @param burst snapshot requests allowed back to back (bucket size), >= 1
   * @param refillMs time (ms) to earn one request back; 0 disables the limit
   * @param clock read with `nowMs()`
   */
  constructor(
    private readonly burst: number,
    private readonly refillMs: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.lastRefillMs = clock.nowMs();
  }

  /**
   * Takes one request from the budget when there is one.
   * @returns 0 when a request was taken, else the wait (ms) until one is available.
   * @example
   * const wait = limiter.take();
   * if (wait === 0) fetchSnapshot(); else clock.setTimer(retry, wait);
   */
  take(): number {
    if (this.refillMs <= 0) return 0;
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) * this.refillMs));
  }

  private refill(): void {
    const now = this.clock.nowMs();
    const earned = (now - this.lastRefillMs) / this.refillMs;
    this.lastRefillMs = now;
    if (earned > 0) this.tokens = Math.min(this.burst, this.tokens + earned);
  }
}
