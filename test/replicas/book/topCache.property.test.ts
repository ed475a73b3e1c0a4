/**
 * Property tests of the top cache: long random sequences of changes (at the best, inside the
 * cached range, below it, beyond a small window, removals that drain the top) interleaved
 * with reads at random depths (which grow the cache) give, after every step, the same levels
 * as the model (bookModel.ts) through every number read; and the cache matches the book.
 */
import fc from 'fast-check';
import type { Side } from '../../../src/protocol';
import { OrderBook } from '../../../src/replicas/book';
import { BookModel, frameOf, wire, type Change } from './bookModel';
import { checkInvariants } from './bookInvariants';

const SEED = 0x70cac4e;
const MID = 10_000n;

/** Offsets from the mid: mostly near it (inside a small cache), some far (beyond a 64-tick window). */
const offArb = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 12 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }) });
const changeArb = fc.record({
  kind: fc.constant('change' as const),
  side: fc.constantFrom<Side>('bid', 'ask'),
  // 0: remove the side's current best (drains the top, forces refills).
  off: fc.oneof({ weight: 5, arbitrary: offArb }, { weight: 1, arbitrary: fc.constant(0) }),
  size: fc.oneof(fc.constant(0n), fc.bigInt(1n, 50n)),
});
const readArb = fc.record({
  kind: fc.constant('read' as const),
  side: fc.constantFrom<Side>('bid', 'ask'),
  depth: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 40 })),
  how: fc.constantFrom('view', 'rank', 'each'),
});
const stepArb = fc.oneof({ weight: 3, arbitrary: changeArb }, { weight: 1, arbitrary: readArb });

const priceOf = (side: Side, off: number) => (side === 'bid' ? MID - BigInt(off) : MID + BigInt(off));

/** The best `depth` levels as the book's number reads give them, by the read chosen. */
function read(book: OrderBook, side: Side, depth: number, how: string): [number, number][] {
  const out: [number, number][] = [];
  if (how === 'view') {
    const v = book.topView(side, depth);
    for (let i = 0; i < v.length; i++) out.push([v.prices[i]!, v.sizes[i]!]);
  } else if (how === 'each') {
    book.forEachLevel(side, depth, (p, s) => out.push([p, s]));
  } else {
    const r = side === 'bid' ? book.bids : book.asks;
    // Ranks from the deepest first: growing the cache must not depend on reading in order.
    for (let i = Math.min(depth, r.length) - 1; i >= 0; i--) out.unshift([r.priceAt(i), r.sizeAt(i)]);
  }
  return out;
}

describe('top cache against the model', () => {
  it('every number read matches the model after any sequence of changes and reads', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 2, 3, 5, 8),
        fc.constantFrom(64, 4096),
        fc.uniqueArray(offArb, { maxLength: 20 }),
        fc.array(stepArb, { minLength: 20, maxLength: 120 }),
        (topLevels, windowTicks, offs, steps) => {
          const model = new BookModel(Number.MAX_SAFE_INTEGER);
          offs.forEach((off, i) => {
            model.truth.bid.set(priceOf('bid', off), BigInt(i + 1));
            model.truth.ask.set(priceOf('ask', off), BigInt(i + 2));
          });
          const book = OrderBook.fromSnapshot(model.takeSnapshot(), { depthLimit: Infinity, windowTicks, topLevels });
          for (const step of steps) {
            if (step.kind === 'change') {
              const price = step.off === 0 ? model.sorted(step.side)[0]?.[0] : priceOf(step.side, step.off);
              if (price === undefined) continue;
              const change: Change = { side: step.side, price, size: step.off === 0 ? 0n : step.size };
              model.apply([change]);
              const data = frameOf([change]);
              book.applyLevels(data.bids, data.asks);
              checkInvariants(book);
            } else {
              const want = model.sorted(step.side).slice(0, step.depth).map(([p, s]): [number, number] => [Number(p), Number(s)]);
              expect(read(book, step.side, step.depth, step.how)).toEqual(want);
              checkInvariants(book);
            }
          }
          expect(book.toSnapshot()).toEqual({ bids: model.sorted('bid').map(wire), asks: model.sorted('ask').map(wire) });
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('a frame of several changes on both sides keeps both caches exact, read after every frame', () => {
    const frameArb = fc.array(changeArb, { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.constantFrom(2, 4, 10), fc.array(frameArb, { minLength: 10, maxLength: 60 }), (topLevels, frames) => {
        const model = new BookModel(Number.MAX_SAFE_INTEGER);
        for (let off = 1; off <= 30; off += 2) {
          model.truth.bid.set(priceOf('bid', off), 5n);
          model.truth.ask.set(priceOf('ask', off), 6n);
        }
        const book = OrderBook.fromSnapshot(model.takeSnapshot(), { depthLimit: Infinity, windowTicks: 64, topLevels });
        for (const frame of frames) {
          const changes: Change[] = [];
          for (const c of frame) {
            const price = c.off === 0 ? model.sorted(c.side)[0]?.[0] : priceOf(c.side, c.off);
            if (price === undefined || changes.some((o) => o.side === c.side && o.price === price)) continue;
            changes.push({ side: c.side, price, size: c.off === 0 ? 0n : c.size });
          }
          model.apply(changes);
          const data = frameOf(changes);
          book.applyLevels(data.bids, data.asks);
          for (const side of ['bid', 'ask'] as const) {
            const want = model.sorted(side).slice(0, topLevels).map(([p, s]): [number, number] => [Number(p), Number(s)]);
            expect(read(book, side, topLevels, 'view')).toEqual(want);
          }
          checkInvariants(book);
        }
      }),
      { seed: SEED + 1, numRuns: 150 },
    );
  });
});
