/**
 * Latency and staleness histograms (HdrHistogram, pure-JS build): constant memory,
 * percentiles within `significantDigits` of the true value, however many samples.
 */
import { build, type Histogram } from 'hdr-histogram-js';

/** Unit a tracker stores and reports in. */
export type LatencyUnit = 'ns' | 'us';

/** Options of {@link LatencyTracker}. */
export interface LatencyTrackerOptions {
  /** Unit of stored values and of every reported figure. Samples are always given in ns. @default 'us' */
  readonly unit?: LatencyUnit;
  /** Decimal digits of precision kept per value (1 to 5). @default 3 */
  readonly significantDigits?: 1 | 2 | 3 | 4 | 5;
}

/** A summary of recorded samples, in the tracker's unit. All zero when nothing was recorded. */
export interface LatencyPercentiles {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly min: number;
  readonly max: number;
  /** Samples recorded (including clamped negative ones). */
  readonly count: number;
  /** Samples that were negative (clock skew between server and client) and counted as 0. */
  readonly negative: number;
  readonly unit: LatencyUnit;
}

/**
 * Records latencies given in nanoseconds and reports percentiles.
 *
 * @example
 * const t = new LatencyTracker();            // reports microseconds
 * t.record(systemClock.nowNs() - BigInt(update.timestamp_ns));
 * t.percentiles().p99;
 */
export class LatencyTracker {
  readonly unit: LatencyUnit;
  private readonly divisor: bigint;
  private readonly histogram: Histogram;
  private negativeCount = 0;
  // Exact extremes (the histogram's buckets are only precise to `significantDigits`).
  private minValue = Number.POSITIVE_INFINITY;
  private maxValue = 0;

  constructor(options: LatencyTrackerOptions = {}) {
    this.unit = options.unit ?? 'us';
    this.divisor = this.unit === 'us' ? 1000n : 1n;
    this.histogram = build({ useWebAssembly: false, autoResize: true, numberOfSignificantValueDigits: options.significantDigits ?? 3 });
  }

  /** Records one sample in nanoseconds. Negative samples count as 0; values beyond 2^53 units are capped. */
  record(ns: number | bigint): void {
    let v: bigint;
    if (typeof ns === 'bigint') v = ns;
    else if (Number.isFinite(ns)) v = BigInt(Math.round(ns));
    else return; // NaN / Infinity carry no information
    if (v < 0n) {
      this.negativeCount++;
      v = 0n;
    }
    const scaled = v / this.divisor;
    const value = scaled > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(scaled);
    this.histogram.recordValue(value);
    if (value < this.minValue) this.minValue = value;
    if (value > this.maxValue) this.maxValue = value;
  }

  /** Records the time from `startNs` (e.g. a server `timestamp_ns`) to `nowNs`. */
  recordSince(startNs: string | bigint, nowNs: bigint): void {
    this.record(nowNs - BigInt(startNs));
  }

  /** Samples recorded so far. */
  get count(): number {
    return this.histogram.totalCount;
  }

  /** The current summary. */
  percentiles(): LatencyPercentiles {
    const h = this.histogram;
    if (h.totalCount === 0) return { p50: 0, p90: 0, p99: 0, p999: 0, min: 0, max: 0, count: 0, negative: 0, unit: this.unit };
    // A bucket reports its highest equivalent value; never report more than the true maximum.
    const at = (p: number) => Math.min(h.getValueAtPercentile(p), this.maxValue);
    return {
      p50: at(50),
      p90: at(90),
      p99: at(99),
      p999: at(99.9),
      min: this.minValue,
      max: this.maxValue,
      count: h.totalCount,
      negative: this.negativeCount,
      unit: this.unit,
    };
  }

  /** Forgets every sample. */
  reset(): void {
    this.histogram.reset();
    this.negativeCount = 0;
    this.minValue = Number.POSITIVE_INFINITY;
    this.maxValue = 0;
  }
}
