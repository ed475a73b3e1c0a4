/**
 * What the live view measures about itself: latency from each update's server timestamp to
 * the moment the view model absorbed it (its subscriber ran) and to the draw that first
 * showed it (p50/p99), and feed frames and draws per second. The second includes the
 * drawing cadence: meaningful on a terminal (several draws a second), not for the one line
 * a second printed to a pipe, which reports the first. @internal
 */
import { systemClock } from '../../clock';
import { LatencyTracker, type LatencyPercentiles } from '../../metrics';
import { LatencyBuckets } from './LatencyBuckets';

/** Updates remembered between two draws; beyond it only the newest are measured (bounded memory). */
const MAX_PENDING = 20_000;

/** Per-second rate over the last completed window. */
class RateMeter {
  private count = 0;
  private windowStartMs: number;
  private last = 0;

  constructor(nowMs: number) {
    this.windowStartMs = nowMs;
  }

  add(n = 1): void {
    this.count += n;
  }

  /** Events per second over the last window of at least one second. */
  rate(nowMs: number): number {
    const elapsed = nowMs - this.windowStartMs;
    if (elapsed >= 1000) {
      this.last = (this.count * 1000) / elapsed;
      this.count = 0;
      this.windowStartMs = nowMs;
    }
    return this.last;
  }
}

export class ViewMetrics {
  /** Server timestamp -> draw, in microseconds. */
  readonly renderLatency = new LatencyTracker({ unit: 'us' });
  /** Server timestamp -> absorbed by the view model, in microseconds. */
  readonly modelLatency = new LatencyTracker({ unit: 'us' });
  /** The same samples as `modelLatency`, bucketed (the web view's histogram). */
  readonly modelHistogram = new LatencyBuckets();
  private pending = new BigInt64Array(1024);
  private pendingCount = 0;
  private readonly frames: RateMeter;
  private readonly draws: RateMeter;
  private readonly updates: RateMeter;
  private framesTotal = 0;

  constructor(nowMs: number = performance.now()) {
    this.frames = new RateMeter(nowMs);
    this.draws = new RateMeter(nowMs);
    this.updates = new RateMeter(nowMs);
  }

  /** One replica update (its server `timestamp_ns`) absorbed now, waiting to be drawn. */
  noteUpdate(timestampNs: bigint, nowNs: bigint = systemClock.nowNs()): void {
    this.modelLatency.record(nowNs - timestampNs);
    this.modelHistogram.record(Number(nowNs - timestampNs) / 1000);
    this.updates.add();
    if (this.pendingCount === this.pending.length) {
      if (this.pending.length >= MAX_PENDING) {
        // Keep the newer half: a stalled draw should not grow memory.
        this.pending.copyWithin(0, this.pending.length >> 1);
        this.pendingCount = this.pending.length - (this.pending.length >> 1);
      } else {
        const grown = new BigInt64Array(this.pending.length * 2);
        grown.set(this.pending);
        this.pending = grown;
      }
    }
    this.pending[this.pendingCount++] = timestampNs;
  }

  /** One feed frame received. */
  noteFrame(): void {
    this.frames.add();
    this.framesTotal++;
  }

  /** A draw happened now: every pending update was shown by it. */
  drawn(nowNs: bigint = systemClock.nowNs()): void {
    for (let i = 0; i < this.pendingCount; i++) this.renderLatency.record(nowNs - this.pending[i]!);
    this.pendingCount = 0;
    this.draws.add();
  }

  /** Rates per second, the server->draw and server->model percentiles (microseconds). */
  summary(nowMs: number = performance.now()): { framesPerSecond: number; drawsPerSecond: number; updatesPerSecond: number; framesTotal: number; latency: LatencyPercentiles; modelLatency: LatencyPercentiles } {
    return {
      framesPerSecond: this.frames.rate(nowMs),
      drawsPerSecond: this.draws.rate(nowMs),
      updatesPerSecond: this.updates.rate(nowMs),
      framesTotal: this.framesTotal,
      latency: this.renderLatency.percentiles(),
      modelLatency: this.modelLatency.percentiles(),
    };
  }
}
