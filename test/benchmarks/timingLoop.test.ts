/**
 * The book benchmark's timing loop: every compiled copy hands the books' top-10 reads the
 * same callback (a callback per copy made the books' shared read code polymorphic and the
 * `numbers` top-10 figure bimodal), and each copy applies every frame and reads once after it.
 */
import type { BenchFrame, BookAdapter } from '../../benchmarks/bookMicro';
import { compileTimingLoop } from '../../benchmarks/book/timingLoop';

type LevelCb = (price: number, size: number) => void;

/** An adapter that records what the loop does to it. */
function recorder(): BookAdapter & { applied: BenchFrame[]; reads: number; cbs: LevelCb[]; bests: number } {
  const r = {
    name: 'recorder',
    applied: [] as BenchFrame[],
    reads: 0,
    bests: 0,
    cbs: [] as LevelCb[],
    load: () => undefined,
    apply: (f: BenchFrame) => void r.applied.push(f),
    best: () => ++r.bests,
    top10: (cb: LevelCb) => {
      r.reads++;
      if (!r.cbs.includes(cb)) r.cbs.push(cb);
      cb(1, 2);
    },
  };
  return r;
}

const frames: BenchFrame[] = [1, 2, 3].map((i) => ({ bids: [], asks: [], flat: [0, i, i] }));

describe('compileTimingLoop', () => {
  it('hands every loop copy, whoever owns it, one and the same level callback', () => {
    const a = recorder();
    const b = recorder();
    compileTimingLoop('top/ours', 'top10')(a, frames);
    compileTimingLoop('numbers/ccxt', 'top10')(b, frames);
    expect(a.cbs).toHaveLength(1);
    expect(b.cbs).toHaveLength(1);
    expect(a.cbs[0]).toBe(b.cbs[0]);
  });

  it('applies every frame in order, reading after each, and returns elapsed ns', () => {
    const top = recorder();
    const ns = compileTimingLoop('x', 'top10')(top, frames);
    expect(top.applied).toEqual(frames);
    expect(top.reads).toBe(frames.length);
    expect(ns).toBeGreaterThanOrEqual(0);
    const best = recorder();
    compileTimingLoop('x', 'best')(best, frames);
    expect(best.bests).toBe(frames.length);
    expect(best.reads).toBe(0);
  });
});
