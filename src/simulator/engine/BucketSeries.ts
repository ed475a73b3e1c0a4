/**
 * Time buckets of one resolution (candles, mark candles, PnL points), oldest first, with
 * bounded retention. Only the newest bucket ever changes, so updates are O(1). @internal
 */
import { RESOLUTIONS, RESOLUTION_MS, type Resolution } from '../../protocol';

export interface Bucket {
  /** Bucket start, Unix ms: a multiple of the resolution since the epoch. */
  readonly t: number;
}

export class BucketSeries<B extends Bucket> {
  private readonly items: B[] = [];

  constructor(
    readonly resolutionMs: number,
    private readonly maxBuckets: number,
  ) {}

  /** Start of the bucket holding `ms`. */
  bucketStart(ms: number): number {
    return Math.floor(ms / this.resolutionMs) * this.resolutionMs;
  }

  /**
   * Returns the bucket holding `ms`, creating it with `create` when it is new. A time older
   * than the newest bucket (a clock step back) folds into the newest bucket.
   */
  at(ms: number, create: (t: number) => B): B {
    const t = this.bucketStart(ms);
    const last = this.items[this.items.length - 1];
    if (last && last.t >= t) return last;
    const b = create(t);
    this.items.push(b);
    if (this.items.length > this.maxBuckets * 1.25) this.items.splice(0, this.items.length - this.maxBuckets);
    return b;
  }

  last(): B | undefined {
    return this.items[this.items.length - 1];
  }

  /**
   * The newest `countBack` buckets whose start lies in the half-open window
   * [startMs, endMs), returned oldest first.
   */
  window(startMs: number, endMs: number, countBack: number): B[] {
    const hi = this.lowerBound(endMs);
    const lo = Math.max(this.lowerBound(startMs), hi - countBack);
    return lo < hi ? this.items.slice(lo, hi) : [];
  }

  /** First index whose bucket start is >= t. */
  private lowerBound(t: number): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.t < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** One series per resolution. */
export function seriesPerResolution<B extends Bucket>(maxBuckets: number): Record<Resolution, BucketSeries<B>> {
  const out = {} as Record<Resolution, BucketSeries<B>>;
  for (const r of RESOLUTIONS) out[r] = new BucketSeries<B>(RESOLUTION_MS[r], maxBuckets);
  return out;
}
