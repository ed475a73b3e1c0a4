/**
 * REST faults, consulted by the simulator's REST server before each request: a seeded
 * rate of 500 answers, a fixed added latency, and one-shot failures or delays of the next
 * requests. The same seed and the same request order give the same failures.
 */
import type { OperationName } from '../../protocol';
import type { RestFaultDecision, RestFaultHook } from '../RestFaultHook';
import { Prng } from '../engine/Prng';

export class RestFaults implements RestFaultHook {
  private readonly prng: Prng;
  private rate = 0;
  private latency = 0;
  private failures = 0;
  private readonly oneShotDelays: number[] = [];

  /** @param seed the fault seed (also the default seed of the feed's jitter draws, see `FaultInjector`) */
  constructor(readonly seed: number) {
    this.prng = Prng.xorSeeded(seed);
  }

  /** Fraction of requests answered 500 `INTERNAL_ERROR` (0 = none, 1 = all). */
  set500Rate(rate: number): void {
    this.rate = rate;
  }

  /** Milliseconds added to every answer (0 = none). */
  setLatencyMs(ms: number): void {
    this.latency = ms;
  }

  /** The next `n` requests are answered 500, whatever the rate. */
  failNext(n: number): void {
    this.failures += n;
  }

  /** The next request gets `ms` of extra latency. */
  delayNext(ms: number): void {
    this.oneShotDelays.push(ms);
  }

  get settings(): { rest500Rate: number; restLatencyMs: number } {
    return { rest500Rate: this.rate, restLatencyMs: this.latency };
  }

  /** Back to no fault. */
  clear(): void {
    this.rate = 0;
    this.latency = 0;
    this.failures = 0;
    this.oneShotDelays.length = 0;
  }

  beforeRequest(_operation: OperationName): RestFaultDecision {
    let fail500 = false;
    if (this.failures > 0) {
      this.failures--;
      fail500 = true;
    } else if (this.rate > 0) {
      // Drawn only while a rate is set, so the sequence depends on the seed and the request count alone.
      fail500 = this.prng.float() < this.rate;
    }
    const delayMs = this.latency + (this.oneShotDelays.shift() ?? 0);
    const decision: { fail500?: boolean; delayMs?: number } = {};
    if (fail500) decision.fail500 = true;
    if (delayMs > 0) decision.delayMs = delayMs;
    return decision;
  }
}
