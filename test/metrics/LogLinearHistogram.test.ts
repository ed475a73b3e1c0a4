/** LogLinearHistogram against a sorted-array model: percentiles within 10^-digits of the true rank value. */
import fc from 'fast-check';
import { LogLinearHistogram } from '../../src/metrics/LogLinearHistogram';

const DIGITS = fc.integer({ min: 1, max: 5 });
/** Small values (exact buckets), mid-range and huge ones up to 2^53 - 1, mixed. */
const VALUE = fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 2 ** 31 }), fc.maxSafeNat());
const PERCENTILE = fc.oneof(fc.constantFrom(0, 50, 90, 99, 99.9, 100), fc.double({ min: 0, max: 100, noNaN: true }));

/** The recorded value of the rank HdrHistogram reads at percentile `p`: max(1, round(p% of n)). */
function modelAt(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.floor((p / 100) * sorted.length + 0.5));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

test('a percentile is the rank value of the sorted samples, at most 10^-digits above it', () => {
  fc.assert(
    fc.property(DIGITS, fc.array(VALUE, { minLength: 1, maxLength: 300 }), fc.array(PERCENTILE, { minLength: 1, maxLength: 8 }), (digits, values, ps) => {
      const h = new LogLinearHistogram(digits);
      for (const v of values) h.record(v);
      const sorted = [...values].sort((a, b) => a - b);
      expect(h.totalCount).toBe(values.length);
      for (const p of ps) {
        const truth = modelAt(sorted, p);
        const got = h.valueAtPercentile(p);
        expect(got).toBeGreaterThanOrEqual(truth);
        expect(got - truth).toBeLessThanOrEqual(truth * 10 ** -digits);
        expect(got).toBe(h.highestEquivalent(h.indexOf(truth)));
      }
    }),
    { seed: 20_250_611, numRuns: 60 },
  );
});

test('buckets are contiguous and monotonic, each no wider than 10^-digits of its values', () => {
  // Bucket arithmetic only: one histogram per precision (with 5 digits its counts take 2 MB).
  const histograms = [1, 2, 3, 4, 5].map((d) => new LogLinearHistogram(d));
  fc.assert(
    fc.property(DIGITS, VALUE, (digits, v) => {
      const h = histograms[digits - 1]!;
      const i = h.indexOf(v);
      const lo = h.lowestEquivalent(i);
      const hi = h.highestEquivalent(i);
      expect(lo).toBeLessThanOrEqual(v);
      expect(hi).toBeGreaterThanOrEqual(v);
      expect(hi - lo).toBeLessThanOrEqual(lo * 10 ** -digits);
      // The next bucket starts right after this one, and the value after `hi` lands in it.
      expect(h.lowestEquivalent(i + 1)).toBe(hi + 1);
      if (hi < Number.MAX_SAFE_INTEGER) expect(h.indexOf(hi + 1)).toBe(i + 1);
      if (lo > 0) expect(h.indexOf(lo - 1)).toBe(i - 1);
    }),
    { seed: 4242, numRuns: 500 },
  );
});

test('values below 2 * 2^ceil(log2(10^digits)) are exact', () => {
  const h = new LogLinearHistogram(3); // 2048 exact buckets
  for (const v of [0, 1, 999, 1000, 2047]) {
    expect(h.lowestEquivalent(h.indexOf(v))).toBe(v);
    expect(h.highestEquivalent(h.indexOf(v))).toBe(v);
  }
  expect(h.highestEquivalent(h.indexOf(2048))).toBe(2049); // from here buckets widen
});

test('an empty histogram reads 0; reset forgets every value; the largest value is countable', () => {
  const h = new LogLinearHistogram(2);
  expect(h.valueAtPercentile(50)).toBe(0);
  h.record(Number.MAX_SAFE_INTEGER);
  h.record(7);
  expect(h.valueAtPercentile(100)).toBeGreaterThanOrEqual(Number.MAX_SAFE_INTEGER);
  expect(h.valueAtPercentile(50)).toBe(7);
  h.reset();
  expect(h.totalCount).toBe(0);
  expect(h.valueAtPercentile(99)).toBe(0);
  h.record(3);
  expect(h.valueAtPercentile(99)).toBe(3);
});
