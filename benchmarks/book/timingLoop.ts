/**
 * The timed loop of the book benchmark, compiled once per implementation and operation:
 * a loop shared by several books would see several adapter classes at its call sites, turn
 * megamorphic, and charge that cost to whoever it happens to slow. Each copy's source
 * differs (a comment names its owner), so the engine cannot share compiled code between them.
 */
import type { BenchFrame, BookAdapter } from '../bookMicro';

/** What each frame is followed by: a best bid/ask read, or a read of the best 10 levels a side. */
export type BookOp = 'best' | 'top10';

/** Applies every frame (and the read) once; returns the elapsed nanoseconds. */
export type TimingLoop = (adapter: BookAdapter, frames: readonly BenchFrame[]) => number;

const READ: Record<BookOp, string> = {
  best: 'sink += adapter.best();',
  top10: 'adapter.top10(cb);',
};

export function compileTimingLoop(owner: string, op: BookOp): TimingLoop {
  const source = `
    // timing loop of ${JSON.stringify(owner).slice(1, -1).replace(/\*\//g, '')} / ${op}
    let sink = 0;
    const cb = (price, size) => { sink += size; };
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < frames.length; i++) {
      adapter.apply(frames[i]);
      ${READ[op]}
    }
    const ns = Number(process.hrtime.bigint() - t0);
    // Keeps the reads alive: the sink is observable.
    if (sink === -0.5) console.log(sink);
    return ns;`;
  return new Function('adapter', 'frames', source) as TimingLoop;
}
