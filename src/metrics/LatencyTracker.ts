/**
 * Latency and staleness histograms (log-linear buckets, the HdrHistogram layout): bounded
 * memory, percentiles within `significantDigits` of the true value, however many samples.
 */
import { InvalidParameterError } from '../errors';
import { LogLinearHistogram } from './LogLinearHistogram';

/** Unit a tracker stores and reports in. */
export type LatencyUnit = 'ns' | 'us';

/** Options of {@link LatencyTracker}. */
export interface LatencyTrackerOptions {
  /** Unit of stored values and of every reported figure. Samples are always given in ns. @default 'us' */
  readonly unit?: LatencyUnit;
  /**
   * Decimal digits of precision kept per value (1 to 5): a reported percentile is at least the
   * true one and exceeds it by at most 10^-significantDigits of it (0.1 % by default). Memory
   * grows with it: 8 bytes per bucket, 2 * 2^ceil(log2(10^digits)) buckets per power of two
   * reached (3 digits: 16 KB for values below 2048 units, about 120 KB up to 10^7 units).
   * @default 3
   */
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
  private readonly divisor: number;
  /** Samples from here on (ns) are more than 2^53 units: capped. */
  private readonly capNs: number;
  private readonly histogram: LogLinearHistogram;
  private negativeCount = 0;
  // Exact extremes (the histogram's buckets are only precise to `significantDigits`).
  private minValue = Number.POSITIVE_INFINITY;
  private maxValue = 0;

  /** @throws InvalidParameterError when `unit` or `significantDigits` is not one of the accepted values. */
  constructor(options: LatencyTrackerOptions = {}) {
    const { unit = 'us', significantDigits = 3 } = options;
    if (unit !== 'us' && unit !== 'ns') throw new InvalidParameterError(`LatencyTracker: invalid 'unit': expected 'us' or 'ns', got ${JSON.stringify(unit)}`, { param: 'unit' });
    if (!Number.isInteger(significantDigits) || significantDigits < 1 || significantDigits > 5) {
      throw new InvalidParameterError(`LatencyTracker: invalid 'significantDigits': expected an integer from 1 to 5, got ${String(significantDigits)}`, { param: 'significantDigits' });
    }
    this.unit = unit;
    this.divisor = unit === 'us' ? 1000 : 1;
    this.capNs = Number.MAX_SAFE_INTEGER * this.divisor;
    this.histogram = new LogLinearHistogram(significantDigits);
  }

  /**
   * Records one sample in nanoseconds. Negative samples count as 0; values beyond 2^53 units
   * are capped. Allocates nothing (a bigint is read as a number: beyond 2^53 ns it is rounded,
   * far below the histogram's precision).
   */
  record(ns: number | bigint): void {
    if (typeof ns === 'number' && !Number.isFinite(ns)) return; // NaN / Infinity carry no information
    let v = typeof ns === 'bigint' ? Number(ns) : Math.round(ns);
    if (v < 0) {
      this.negativeCount++;
      v = 0;
    }
    // Up to 2^53 ns the division is exact (`%` is exact on doubles); beyond, a close integer.
    const value = v >= this.capNs ? Number.MAX_SAFE_INTEGER : Math.floor((v - (v % this.divisor)) / this.divisor);
    this.histogram.record(value);
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
    const at = (p: number) => Math.min(h.valueAtPercentile(p), this.maxValue);
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
