/**
 * The timed loop of the book benchmark, compiled once per implementation and operation:
 * a loop shared by several books would see several adapter classes at its call sites, turn
 * megamorphic, and charge that cost to whoever it happens to slow. Each copy's source
 * differs (a comment names its owner), so the engine cannot share compiled code between them.
 *
 * The consumer's callback of the top-10 read is ONE function for every loop. A callback made
 * per loop (as before) reached each book's read code, shared by the streams a book runs (our
 * `readTop10`, ccxt's `top10`), as one more target per loop: that call site turned
 * polymorphic, and whether the engine still inlined the read into the loop then depended on
 * the order in which it optimized things, which varies from process to process. Ours on the
 * `numbers` stream paid it in about a third of the processes run after a wire stream (top-10
 * at ~230 ns a frame instead of ~145: the read and 20 callback calls left as real calls),
 * which made that cell's ratio bimodal (3.5x or 5.2-5.5x). With one callback every read site
 * sees one target, for every book alike.
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

/** Where every loop's level callback adds the sizes it is handed (kept observable). */
const levelSink = { sum: 0 };
/** The one level callback of every loop (see the file comment). */
const readLevel = (price: number, size: number): void => {
  levelSink.sum += size;
};

export function compileTimingLoop(owner: string, op: BookOp): TimingLoop {
  const source = `
    // timing loop of ${JSON.stringify(owner).slice(1, -1).replace(/\*\//g, '')} / ${op}
    let sink = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < frames.length; i++) {
      adapter.apply(frames[i]);
      ${READ[op]}
    }
    const ns = Number(process.hrtime.bigint() - t0);
    // Keeps the reads alive: the sink is observable.
    if (sink === -0.5 || levelSink.sum === -0.5) console.log(sink);
    return ns;`;
  return new Function('cb', 'levelSink', `return function timingLoop(adapter, frames) {${source}}`)(readLevel, levelSink) as TimingLoop;
}
