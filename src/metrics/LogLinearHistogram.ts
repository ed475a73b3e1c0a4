/**
 * A histogram of non-negative integers with a bounded relative error, in the layout of
 * HdrHistogram (log-linear buckets), in a few lines and without its dependencies.
 *
 * With `d` significant digits, let H be the smallest power of two with H >= 10^d and
 * S = 2H. Values below S have a bucket each (exact). Above, each range [2^m, 2^(m+1)) is
 * split into H buckets of width 2^(m+1)/S: a bucket is never wider than 1/H of the values it
 * holds, so a value read back (the highest value of its bucket) is within 10^-d of the true
 * one, relative. Recording is O(1) and allocates nothing once the counts cover the value's
 * bucket: they start empty (a histogram never recorded into costs nothing: a client keeps
 * two per stream) and grow in whole blocks of H buckets (at least doubling, never past the
 * bucket of `Number.MAX_SAFE_INTEGER`) to the largest bucket seen. Memory is 8 bytes a
 * bucket: with 3 digits (H = 1024), 8 KB for values below 1024, 120 KB up to 10^7, 360 KB
 * at most.
 */

/** 2^i for i in [0, 64): exact doubles, so `v / POW2[b]` and `x * POW2[b]` are exact shifts. */
const POW2 = Float64Array.from({ length: 64 }, (_, i) => 2 ** i);

/** floor(log2(v)) of an integer 1 <= v < 2^64 (one `clz32` of the high or the low half). */
function floorLog2(v: number): number {
  return v < 4294967296 ? 31 - Math.clz32(v) : 63 - Math.clz32(Math.floor(v / 4294967296));
}

/**
 * Counts non-negative integers up to `Number.MAX_SAFE_INTEGER` in log-linear buckets.
 *
 * @example
 * const h = new LogLinearHistogram(3);
 * h.record(1234567);
 * h.valueAtPercentile(50); // => 1234943: the highest value of 1234567's bucket, within 0.1 %
 */
export class LogLinearHistogram {
  /** Decimal digits of precision: every value read back is within 10^-significantDigits of a recorded one. */
  readonly significantDigits: number;
  /** log2 of S, the count of exact buckets (values 0 to S - 1). */
  readonly #exactBits: number;
  /** H = S / 2: buckets per power of two above S. */
  readonly #half: number;
  #counts: Float64Array;
  /** Highest bucket index holding a count (-1: none). */
  #maxIndex = -1;
  #total = 0;

  /** @param significantDigits an integer from 1 to 5 (the caller's to check: LatencyTracker does). */
  constructor(significantDigits: number) {
    this.significantDigits = significantDigits;
    this.#exactBits = Math.ceil(Math.log2(10 ** significantDigits)) + 1;
    this.#half = POW2[this.#exactBits - 1]!;
    this.#counts = new Float64Array(0);
  }

  /** Values recorded. */
  get totalCount(): number {
    return this.#total;
  }

  /** Counts one value: an integer from 0 to `Number.MAX_SAFE_INTEGER` (the caller's to ensure). */
  record(value: number): void {
    const i = this.indexOf(value);
    if (i >= this.#counts.length) this.#grow(i);
    this.#counts[i]!++;
    if (i > this.#maxIndex) this.#maxIndex = i;
    this.#total++;
  }

  /** The bucket of `value`. Monotonic: a larger value never has a smaller index. */
  indexOf(value: number): number {
    if (value < 2 * this.#half) return value;
    const shift = floorLog2(value) - this.#exactBits + 1;
    return shift * this.#half + Math.floor(value / POW2[shift]!);
  }

  /** The smallest value of bucket `index`. */
  lowestEquivalent(index: number): number {
    if (index < 2 * this.#half) return index;
    const shift = Math.floor(index / this.#half) - 1;
    return (index - shift * this.#half) * POW2[shift]!;
  }

  /** The largest value of bucket `index`. */
  highestEquivalent(index: number): number {
    return this.lowestEquivalent(index + 1) - 1;
  }

  /**
   * The value at percentile `p` (0 to 100), as HdrHistogram reads it: the highest value of
   * the bucket holding the recorded value of rank max(1, round(p% of the count)) in
   * ascending order. 0 when nothing was recorded.
   */
  valueAtPercentile(p: number): number {
    if (this.#total === 0) return 0;
    const rank = Math.max(1, Math.floor((Math.min(Math.max(p, 0), 100) / 100) * this.#total + 0.5));
    let seen = 0;
    for (let i = 0; i <= this.#maxIndex; i++) {
      seen += this.#counts[i]!;
      if (seen >= rank) return this.highestEquivalent(i);
    }
    return this.highestEquivalent(this.#maxIndex);
  }

  /** Forgets every value (the counts keep their size). */
  reset(): void {
    this.#counts.fill(0);
    this.#maxIndex = -1;
    this.#total = 0;
  }

  /** Makes room for bucket `index`: at least double, in whole powers of two of buckets. */
  #grow(index: number): void {
    const needed = Math.ceil((index + 1) / this.#half) * this.#half;
    const length = Math.max(needed, Math.min(2 * this.#counts.length, this.indexOf(Number.MAX_SAFE_INTEGER) + 1));
    const counts = new Float64Array(length);
    counts.set(this.#counts);
    this.#counts = counts;
  }
}
