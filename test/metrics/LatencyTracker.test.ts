/** LatencyTracker: percentiles of nanosecond samples, in microseconds by default. */
import fc from 'fast-check';
import { systemClock } from '../../src/clock';
import { LatencyTracker } from '../../src/metrics';

test('an empty tracker reports zeros', () => {
  expect(new LatencyTracker().percentiles()).toEqual({ p50: 0, p90: 0, p99: 0, p999: 0, min: 0, max: 0, count: 0, negative: 0, unit: 'us' });
});

test('percentiles of a known distribution, in microseconds', () => {
  const t = new LatencyTracker();
  for (let i = 1; i <= 1000; i++) t.record(i * 1000); // 1..1000 us, given in ns
  const p = t.percentiles();
  expect(p.count).toBe(1000);
  expect(p.min).toBe(1);
  expect(p.max).toBe(1000);
  // HdrHistogram with 3 significant digits: within 0.1 %.
  expect(Math.abs(p.p50 - 500)).toBeLessThanOrEqual(1);
  expect(Math.abs(p.p90 - 900)).toBeLessThanOrEqual(1);
  expect(Math.abs(p.p99 - 990)).toBeLessThanOrEqual(1);
  expect(p.p999).toBeLessThanOrEqual(1000);
  expect(p.p999).toBeGreaterThanOrEqual(998);
});

test('nanosecond unit, bigint samples, negative and huge samples', () => {
  const t = new LatencyTracker({ unit: 'ns' });
  t.record(250n);
  t.record(-5n); // server clock ahead of ours
  t.record(1n << 80n); // capped, never throws
  t.record(Number.NaN); // ignored
  const p = t.percentiles();
  expect(p).toMatchObject({ count: 3, negative: 1, min: 0, max: Number.MAX_SAFE_INTEGER, unit: 'ns' });
  t.reset();
  expect(t.percentiles()).toMatchObject({ count: 0, negative: 0, max: 0 });
});

test('percentiles are ordered and within [min, max] for any samples', () => {
  fc.assert(
    fc.property(fc.array(fc.bigInt(0n, 10n ** 13n), { minLength: 1, maxLength: 200 }), (samples) => {
      const t = new LatencyTracker();
      for (const s of samples) t.record(s);
      const p = t.percentiles();
      const us = samples.map((s) => Number(s / 1000n));
      expect(p.count).toBe(samples.length);
      expect(p.min).toBe(Math.min(...us));
      expect(p.max).toBe(Math.max(...us));
      expect(p.min <= p.p50 && p.p50 <= p.p90 && p.p90 <= p.p99 && p.p99 <= p.p999 && p.p999 <= p.max).toBe(true);
    }),
    { seed: 5150, numRuns: 100 },
  );
});

test('recordSince measures from a server timestamp given as Uint64 text', () => {
  const t = new LatencyTracker();
  const now = systemClock.nowNs();
  t.recordSince((now - 2_500_000n).toString(), now);
  expect(t.percentiles()).toMatchObject({ count: 1, min: 2500, max: 2500 });
  // The clock's nowNs() is Unix time in ns, close to Date.now().
  const drift = Number(systemClock.nowNs() / 1_000_000n) - Date.now();
  expect(Math.abs(drift)).toBeLessThan(1000);
});

test('precision follows significantDigits: a percentile is at most 10^-digits above the true value', () => {
  for (const significantDigits of [1, 2, 3, 4, 5] as const) {
    const t = new LatencyTracker({ unit: 'ns', significantDigits });
    for (let i = 0; i < 999; i++) t.record(123_456_789);
    t.record(987_654_321_987); // the maximum: p50 is not clamped by it
    const p50 = t.percentiles().p50;
    expect(p50).toBeGreaterThanOrEqual(123_456_789);
    expect(p50 - 123_456_789).toBeLessThanOrEqual(123_456_789 * 10 ** -significantDigits);
  }
});

test('options are checked once, errors naming the field', () => {
  expect(() => new LatencyTracker({ significantDigits: 6 as 5 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_PARAMETER', param: 'significantDigits' }));
  expect(() => new LatencyTracker({ unit: 'ms' as 'us' })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_PARAMETER', param: 'unit' }));
});
