import { FAULT_KINDS, type FaultKind } from '../../../src/simulator/faults/faultKinds';
import { Prng } from '../../../src/simulator/engine/Prng';
import { planRandomFaults, RandomFaultSchedule, type AppliedFault, type FaultTarget } from '../../../src/simulator/faults/RandomFaultSchedule';
import { RestFaults } from '../../../src/simulator/faults/RestFaults';
import { SimulatorOptionError } from '../../../src/simulator/SimulatorOptionError';

describe('Prng.xorSeeded (the fault schedules\' generator)', () => {
  it('replays the same sequence for the same seed, in [0, 1)', () => {
    const a = Prng.xorSeeded(42);
    const b = Prng.xorSeeded(42);
    const c = Prng.xorSeeded(43);
    const xs = Array.from({ length: 1000 }, () => a.float());
    expect(Array.from({ length: 1000 }, () => b.float())).toEqual(xs);
    expect(Array.from({ length: 1000 }, () => c.float())).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.4);
    expect(mean).toBeLessThan(0.6);
  });
});

describe('RestFaults', () => {
  const run = (seed: number, rate: number, n: number) => {
    const f = new RestFaults(seed);
    f.set500Rate(rate);
    return Array.from({ length: n }, () => f.beforeRequest('orderBook').fail500 === true);
  };

  it('fails a seeded fraction of requests, the same ones for the same seed', () => {
    const a = run(5, 0.25, 2000);
    expect(run(5, 0.25, 2000)).toEqual(a);
    expect(run(6, 0.25, 2000)).not.toEqual(a);
    const share = a.filter(Boolean).length / a.length;
    expect(share).toBeGreaterThan(0.18);
    expect(share).toBeLessThan(0.32);
    expect(run(5, 0, 100).some(Boolean)).toBe(false);
    expect(run(5, 1, 100).every(Boolean)).toBe(true);
  });

  it('adds a fixed latency, one-shot failures and one-shot delays', () => {
    const f = new RestFaults(1);
    expect(f.beforeRequest('status')).toEqual({});
    f.setLatencyMs(30);
    f.failNext(2);
    f.delayNext(100);
    expect(f.beforeRequest('status')).toEqual({ fail500: true, delayMs: 130 });
    expect(f.beforeRequest('status')).toEqual({ fail500: true, delayMs: 30 });
    expect(f.beforeRequest('status')).toEqual({ delayMs: 30 });
    f.clear();
    expect(f.beforeRequest('status')).toEqual({});
  });
});

/** A target that records what the schedule did, with a fixed world of 2 connections and 3 streams. */
function recordingTarget(log: string[]): FaultTarget {
  return {
    connectionIds: () => [7, 3],
    subscribedStreams: () => ['book|b', 'book|a', 'bbo|a'],
    dropConnection: (id) => (log.push(`dropConnection ${id}`), true),
    dropAll: () => (log.push('dropAll'), 2),
    resyncStream: (key, n) => void log.push(`resyncStream ${key} ${n}`),
    skipSilently: (key, n) => void log.push(`skipSilently ${key} ${n}`),
    stallStream: (key, ms) => void log.push(`stallStream ${key} ${ms}`),
    stallConnection: (ms, id) => void log.push(`stallConnection ${id} ${ms}`),
    delayFramesFor: (ms, forMs) => void log.push(`delayFrames ${ms} ${forMs}`),
    failNextRest: (n) => void log.push(`rest500 ${n}`),
    delayNextRest: (ms) => void log.push(`restLatency ${ms}`),
  };
}

describe('random fault schedule', () => {
  it('plans the same faults for the same seed and different ones for another seed', () => {
    const a = planRandomFaults({ ratePerSecond: 5, seed: 11 }, 200);
    expect(planRandomFaults({ ratePerSecond: 5, seed: 11 }, 200)).toEqual(a);
    expect(planRandomFaults({ ratePerSecond: 5, seed: 12 }, 200)).not.toEqual(a);
    expect(new Set(a.map((f) => f.kind))).toEqual(new Set(FAULT_KINDS));
    const meanGap = a.reduce((s, f) => s + f.afterMs, 0) / a.length;
    expect(meanGap).toBeGreaterThan(140);
    expect(meanGap).toBeLessThan(270);
    for (const f of a) {
      if (f.kind === 'stallStream' || f.kind === 'stallConnection' || f.kind === 'restLatency') expect(f.amount).toBeLessThanOrEqual(1000);
      if (f.kind === 'skipSilently' || f.kind === 'resyncStream' || f.kind === 'rest500') expect([1, 2, 3]).toContain(f.amount);
    }
  });

  it('draws only the requested kinds', () => {
    const kinds: FaultKind[] = ['skipSilently', 'resyncStream'];
    const plan = planRandomFaults({ ratePerSecond: 10, seed: 3, kinds }, 100);
    expect(new Set(plan.map((f) => f.kind))).toEqual(new Set(kinds));
  });

  it('rejects a bad rate or kind', () => {
    expect(() => planRandomFaults({ ratePerSecond: 0 }, 1)).toThrow(SimulatorOptionError);
    expect(() => planRandomFaults({ ratePerSecond: 1, kinds: [] }, 1)).toThrow(/kinds/);
    expect(() => planRandomFaults({ ratePerSecond: 1, kinds: ['explode' as FaultKind] }, 1)).toThrow(/explode/);
  });

  describe('running (time is the subject: fake timers)', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    const runFor = (seed: number, ms: number) => {
      const log: string[] = [];
      const applied: AppliedFault[] = [];
      const schedule = new RandomFaultSchedule(recordingTarget(log), { ratePerSecond: 20, seed, onFault: (f) => applied.push(f) });
      jest.advanceTimersByTime(ms);
      schedule.stop();
      return { log, applied, stats: schedule.stats() };
    };

    it('applies the same faults to the same targets for the same seed, and counts them by kind', () => {
      const one = runFor(21, 5000);
      const two = runFor(21, 5000);
      expect(two.log).toEqual(one.log);
      expect(one.applied.length).toBeGreaterThan(30);
      expect(one.stats.total).toBe(one.applied.length);
      expect(one.stats.skipped).toBe(0);
      const byKind = Object.fromEntries(FAULT_KINDS.map((k) => [k, one.applied.filter((f) => f.kind === k).length]));
      expect(one.stats.byKind).toEqual(byKind);
      // The plan is the same as planRandomFaults, and targets come from the sorted candidates.
      expect(one.applied.map(({ index: _i, target: _t, ...f }) => f)).toEqual(planRandomFaults({ ratePerSecond: 20, seed: 21 }, one.applied.length));
      for (const f of one.applied) {
        if (f.kind === 'dropConnection' || f.kind === 'stallConnection') expect([3, 7]).toContain(f.target);
        if (f.kind === 'skipSilently') expect(['bbo|a', 'book|a', 'book|b']).toContain(f.target);
      }
      expect(runFor(22, 5000).log).not.toEqual(one.log);
    });

    it('skips faults that find no target, and stops on stop()', () => {
      const log: string[] = [];
      const empty: FaultTarget = { ...recordingTarget(log), connectionIds: () => [], subscribedStreams: () => [], dropAll: () => 0 };
      const schedule = new RandomFaultSchedule(empty, { ratePerSecond: 50, seed: 1, kinds: ['dropConnection', 'stallStream', 'dropAll'] });
      jest.advanceTimersByTime(1000);
      const s = schedule.stats();
      expect(s.total).toBe(0);
      expect(s.skipped).toBeGreaterThan(10);
      schedule.stop();
      expect(schedule.running).toBe(false);
      jest.advanceTimersByTime(10_000);
      expect(schedule.stats()).toEqual(s);
      expect(jest.getTimerCount()).toBe(0);
    });
  });
});
