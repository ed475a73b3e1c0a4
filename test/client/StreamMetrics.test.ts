import { StreamMetrics } from '../../src/client/StreamMetrics';
import { LatencyTracker } from '../../src/metrics';

describe('StreamMetrics', () => {
  test('queued samples (more than a batch, streams interleaved) give what recording each at once gives', () => {
    const metrics = new StreamMetrics();
    const streams = ['a', 'b', 'c'];
    const timers = streams.map((s) => metrics.timer(s));
    const expected = streams.map(() => ({ latency: new LatencyTracker({ unit: 'us' }), staleness: new LatencyTracker({ unit: 'us' }), last: 0n }));
    const base = 1_795_795_076_195_521_926n;
    for (let i = 0; i < 5000; i++) {
      const k = (i * 7) % 3;
      const ts = base + BigInt(i) * 1_000_003n;
      // Some negative latencies (clock skew) and a wide range of values.
      const rx = ts + BigInt(((i * 7919) % 2_000_000) - 1000);
      timers[k]!.record(ts, rx);
      const e = expected[k]!;
      e.latency.record(rx - ts);
      if (e.last > 0n) e.staleness.record(rx - e.last);
      e.last = ts;
    }
    const snapshot = metrics.snapshot();
    expect(snapshot.map((s) => s.stream)).toEqual(streams);
    snapshot.forEach((s, k) => {
      expect(s.latency).toEqual(expected[k]!.latency.percentiles());
      expect(s.staleness).toEqual(expected[k]!.staleness.percentiles());
      expect(s.latency.count).toBe(expected[k]!.latency.count);
    });
    expect(metrics.timer('a')).toBe(timers[0]);
  });

  test('a snapshot holds every sample recorded before it; a stream with no update is left out', () => {
    const metrics = new StreamMetrics();
    metrics.timer('quiet');
    const t = metrics.timer('busy');
    t.record(1_000_000n, 1_150_000n);
    expect(metrics.snapshot()).toEqual([{ stream: 'busy', latency: expect.objectContaining({ count: 1, p50: 150, min: 150, max: 150 }), staleness: expect.objectContaining({ count: 0 }) }]);
    t.record(2_000_000n, 2_300_000n);
    const [busy] = metrics.snapshot();
    expect(busy!.latency.count).toBe(2);
    expect(busy!.staleness).toEqual(expect.objectContaining({ count: 1, min: 1300, max: 1300 }));
  });
});
