/** The frame-delay schedule of one connection: seeded jitter, order kept, draws per connection. */
import { FrameDelay, jitterPrng, NO_FRAME_DELAY, type FrameDelaySpec } from '../../../src/simulator/feed/FrameDelay';

/** Due times of `n` frames queued at `at(i)` under an own delay `own` and a shared delay `shared`. */
function schedule(seed: number, connectionId: number, own: FrameDelaySpec, n: number, at: (i: number) => number = () => 0, shared: FrameDelaySpec = NO_FRAME_DELAY): number[] {
  const d = new FrameDelay(seed, connectionId);
  d.own = own;
  return Array.from({ length: n }, (_, i) => d.dueAt(at(i), shared));
}

describe('FrameDelay', () => {
  const spec = { ms: 10, jitterMs: 25 };

  it('is a pure function of (seed, connection id): the same seed gives the same delays', () => {
    const a = schedule(7, 3, spec, 200, (i) => i * 1000);
    expect(schedule(7, 3, spec, 200, (i) => i * 1000)).toEqual(a);
    expect(schedule(8, 3, spec, 200, (i) => i * 1000)).not.toEqual(a);
    expect(schedule(7, 4, spec, 200, (i) => i * 1000)).not.toEqual(a);
  });

  it('draws each delay uniformly in [ms, ms + jitterMs) when frames are far apart', () => {
    const delays = schedule(1, 1, spec, 2000, (i) => i * 1000).map((due, i) => due - i * 1000);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(10);
      expect(d).toBeLessThan(35);
    }
    const mean = delays.reduce((s, d) => s + d, 0) / delays.length;
    expect(mean).toBeGreaterThan(21);
    expect(mean).toBeLessThan(24);
    // Spread over the whole range, not a constant.
    expect(Math.min(...delays)).toBeLessThan(12);
    expect(Math.max(...delays)).toBeGreaterThan(33);
  });

  it('keeps order: a frame is due at max(its own due time, the previous frame\'s due time)', () => {
    const dues = schedule(5, 2, spec, 500, (i) => i * 0.1);
    const prng = jitterPrng(5, 2);
    let previous = -Infinity;
    dues.forEach((due, i) => {
      const own = i * 0.1 + 10 + prng.float() * 25;
      expect(due).toBe(Math.max(own, previous));
      previous = due;
    });
    expect(new Set(dues).size).toBeLessThan(dues.length); // some frames were held behind a later-drawn one
  });

  it('adds the delay of every connection and the connection\'s own, each with its own draw', () => {
    const shared = { ms: 3, jitterMs: 4 };
    const own = { ms: 20, jitterMs: 5 };
    const dues = schedule(9, 6, own, 50, (i) => i * 1000, shared);
    const prng = jitterPrng(9, 6);
    dues.forEach((due, i) => {
      const sharedDraw = 3 + prng.float() * 4;
      const ownDraw = 20 + prng.float() * 5;
      expect(due).toBe(i * 1000 + sharedDraw + ownDraw);
    });
  });

  it('draws nothing for a delay without jitter (the jitter sequence depends on jittered frames only)', () => {
    const d = new FrameDelay(4, 1);
    d.own = { ms: 50, jitterMs: 0 };
    expect([d.dueAt(0, NO_FRAME_DELAY), d.dueAt(1000, NO_FRAME_DELAY)]).toEqual([50, 1050]);
    d.own = spec;
    const after = [d.dueAt(2000, NO_FRAME_DELAY), d.dueAt(3000, NO_FRAME_DELAY)];
    expect(after).toEqual(schedule(4, 1, spec, 2, (i) => 2000 + i * 1000));
  });

  it('is in force when either delay is', () => {
    const d = new FrameDelay(1, 1);
    expect(d.inForce(NO_FRAME_DELAY)).toBe(false);
    expect(d.inForce({ ms: 0, jitterMs: 1 })).toBe(true);
    d.own = { ms: 1, jitterMs: 0 };
    expect(d.inForce(NO_FRAME_DELAY)).toBe(true);
  });
});
