/**
 * Latency samples counted in fixed buckets (a 1-2-5 series of upper bounds, in
 * microseconds, and one bucket beyond the last): the distribution behind the p50/p99 of a
 * LatencyTracker, drawn as a histogram by the web view. Constant memory. @internal
 */

/** Upper bound (inclusive) of each bucket but the last, in microseconds: 100 µs to 1 s. */
export const LATENCY_BUCKET_BOUNDS_US: readonly number[] = [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];

export class LatencyBuckets {
  private readonly counts = new Array<number>(LATENCY_BUCKET_BOUNDS_US.length + 1).fill(0);

  /** One sample in microseconds (a negative one, clock skew, counts in the first bucket). */
  record(us: number): void {
    let i = 0;
    while (i < LATENCY_BUCKET_BOUNDS_US.length && us > LATENCY_BUCKET_BOUNDS_US[i]!) i++;
    this.counts[i]!++;
  }

  /** Samples per bucket, in bound order, the last one beyond the last bound. */
  snapshot(): number[] {
    return [...this.counts];
  }
}
