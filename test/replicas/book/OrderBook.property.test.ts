/**
 * Property tests: random books, snapshots and delta sequences (removals, re-adds, levels
 * beyond the snapshot's boundary, values beyond 2^53 up to 2^64 - 1) give the same
 * presented book on the replica and on a simple model (bookModel.ts).
 */
import fc from 'fast-check';
import type { Side } from '../../../src/protocol';
import { BookPrecisionError, OrderBook } from '../../../src/replicas/book';
import { ReplicaIntegrityError } from '../../../src/replicas/ReplicaIntegrityError';
import { BookModel, frameOf, wire, type Change } from './bookModel';
import { checkInvariants } from './bookInvariants';
import { TWO_53, UINT64_MAX } from './bookTestUtil';

const SEED = 20240607;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const SIDES: Side[] = ['bid', 'ask'];

/** Mid prices chosen so the levels around them sit below, across and above 2^53, and at 2^64 - 1. */
const midArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(1_000n) },
  { weight: 1, arbitrary: fc.constantFrom(TWO_53 - 12n, TWO_53 + 9n, UINT64_MAX - 400n) },
);
/** Small windows make the window move and the deep store fill; 4096 is the default. */
const windowArb = fc.constantFrom(64, 128, 4096);
/** Small top caches fill up, drop levels off their end and refill from the window or the deep store. */
const topLevelsArb = fc.constantFrom(1, 2, 3, 5, 16);
const sizeArb = fc.oneof(
  { weight: 30, arbitrary: fc.bigInt(1n, 1_000n) },
  { weight: 1, arbitrary: fc.bigInt(TWO_53 - 3n, TWO_53 + 3n) },
  { weight: 1, arbitrary: fc.bigInt(1n, UINT64_MAX) },
);
/**
 * Offsets from the mid: bids at mid - off, asks at mid + off, so the model's truth never
 * crosses. Mostly near the mid, some far (beyond a small window).
 */
const offArb = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 24 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }) });
const sideLevelsArb = fc.uniqueArray(fc.record({ off: offArb, size: sizeArb }), { selector: (l) => l.off, maxLength: 16 });
/** A change at an offset, or (off 0) the removal of the side's current best level, which drains covered ranges. */
const changeArb = fc.record({
  side: fc.constantFrom<Side>('bid', 'ask'),
  off: fc.oneof({ weight: 4, arbitrary: offArb }, { weight: 1, arbitrary: fc.constant(0) }),
  size: fc.oneof({ weight: 1, arbitrary: fc.constant(0n) }, { weight: 1, arbitrary: sizeArb }),
});
const frameArb = fc.array(changeArb, { minLength: 1, maxLength: 4 });

/** Turns generated changes into a valid frame for the model's current book: one change per level. */
function resolve(model: BookModel, mid: bigint, frame: { side: Side; off: number; size: bigint }[]): Change[] {
  const out: Change[] = [];
  for (const c of frame) {
    const price = c.off === 0 ? model.sorted(c.side)[0]?.[0] : priceOf(mid, c.side, c.off);
    if (price === undefined || out.some((o) => o.side === c.side && o.price === price)) continue;
    out.push({ side: c.side, price, size: c.off === 0 ? 0n : c.size });
  }
  return out;
}

const priceOf = (mid: bigint, side: Side, off: number) => (side === 'bid' ? mid - BigInt(off) : mid + BigInt(off));

/** Checks every read of the replica against the model. */
function expectSame(book: OrderBook, model: BookModel): void {
  checkInvariants(book);
  const expected = { bids: model.presented('bid'), asks: model.presented('ask') };
  expect(book.toSnapshot()).toEqual({ bids: expected.bids.map(wire), asks: expected.asks.map(wire) });
  expect(book.top(3)).toEqual({ bids: expected.bids.slice(0, 3).map(wire), asks: expected.asks.slice(0, 3).map(wire) });
  expect(book.bestBidBig()).toBe(expected.bids[0]?.[0]);
  expect(book.bestAskBig()).toBe(expected.asks[0]?.[0]);
  for (const side of SIDES) {
    const levels = side === 'bid' ? expected.bids : expected.asks;
    const reader = side === 'bid' ? book.bids : book.asks;
    expect(book.depth(side)).toBe(levels.length);
    expect(reader.length).toBe(levels.length);
    const seen: bigint[][] = [];
    book.forEachLevelBig(side, 4, (p, s, i) => seen.push([p, s, BigInt(i)]));
    expect(seen).toEqual(levels.slice(0, 4).map(([p, s], i) => [p, s, BigInt(i)]));
    levels.slice(0, 4).forEach(([p, s], i) => {
      if (p <= MAX_SAFE) expect(reader.priceAt(i)).toBe(Number(p));
      else expect(() => reader.priceAt(i)).toThrow(BookPrecisionError);
      if (s <= MAX_SAFE) expect(reader.sizeAt(i)).toBe(Number(s));
      else expect(() => reader.sizeAt(i)).toThrow(BookPrecisionError);
    });
    if (levels.some(([p, s]) => p > MAX_SAFE || s > MAX_SAFE)) expect(reader.isBigint).toBe(true);
    if (!reader.isBigint) {
      const nums: number[] = [];
      book.forEachLevel(side, 4, (p, s) => nums.push(p, s));
      expect(nums).toEqual(levels.slice(0, 4).flatMap(([p, s]) => [Number(p), Number(s)]));
    }
    // The view at several depths: within the top cache's limit, at it and beyond it.
    for (const n of [1, 3, 6, 20]) {
      const want = levels.slice(0, n);
      if (want.some(([p, s]) => p > MAX_SAFE || s > MAX_SAFE)) {
        expect(() => book.topView(side, n)).toThrow(BookPrecisionError);
        continue;
      }
      const view = book.topView(side, n);
      expect(view.length).toBe(want.length);
      for (let i = 0; i < view.length; i++) expect([view.prices[i], view.sizes[i]]).toEqual([Number(want[i]![0]), Number(want[i]![1])]);
    }
  }
}

describe('OrderBook against the model', () => {
  it('presents exactly what the 500-level rule allows after any delta sequence (with resyncs)', () => {
    fc.assert(
      fc.property(
        midArb,
        fc.integer({ min: 1, max: 10 }),
        windowArb,
        topLevelsArb,
        sideLevelsArb,
        sideLevelsArb,
        fc.array(frameArb, { maxLength: 25 }),
        (mid, depthLimit, windowTicks, topLevels, bids, asks, frames) => {
          const model = new BookModel(depthLimit);
          for (const l of bids) model.truth.bid.set(priceOf(mid, 'bid', l.off), l.size);
          for (const l of asks) model.truth.ask.set(priceOf(mid, 'ask', l.off), l.size);
          let book = OrderBook.fromSnapshot(model.takeSnapshot(), { depthLimit, windowTicks, topLevels });
          expectSame(book, model);
          for (const frame of frames) {
            const changes = resolve(model, mid, frame);
            model.apply(changes);
            const data = frameOf(changes);
            const version = book.version;
            if (model.lostBest('bid') || model.lostBest('ask')) {
              expect(() => book.applyLevels(data.bids, data.asks)).toThrow(ReplicaIntegrityError);
              // What StreamSync does: a new book from a fresh snapshot.
              book = OrderBook.fromSnapshot(model.takeSnapshot(), { depthLimit, windowTicks, topLevels });
            } else {
              expect(book.applyLevels(data.bids, data.asks)).toBe(book);
              expect(book.version).toBe(version + 1);
            }
            expectSame(book, model);
          }
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });

  it('detects every crossed or locked result, and only those', () => {
    const nearArb = fc.record({ side: fc.constantFrom<Side>('bid', 'ask'), off: fc.integer({ min: -6, max: 6 }), size: fc.oneof(fc.constant(0n), sizeArb) });
    fc.assert(
      fc.property(
        midArb,
        sideLevelsArb,
        sideLevelsArb,
        fc.uniqueArray(nearArb, { selector: (c) => `${c.side}${c.off}`, minLength: 1, maxLength: 5 }),
        (mid, bids, asks, frame) => {
          const model = new BookModel(Number.MAX_SAFE_INTEGER);
          for (const l of bids) model.truth.bid.set(priceOf(mid, 'bid', l.off), l.size);
          for (const l of asks) model.truth.ask.set(priceOf(mid, 'ask', l.off), l.size);
          const book = OrderBook.fromSnapshot(model.takeSnapshot(), { depthLimit: Infinity });
          // Offsets may land on the other side of the mid: the result may cross.
          const changes: Change[] = frame.map((c) => ({ side: c.side, price: priceOf(mid, c.side, c.off), size: c.size }));
          model.apply(changes);
          const data = frameOf(changes);
          if (model.crossed()) {
            expect(() => book.applyLevels(data.bids, data.asks)).toThrow(/crossed or locked/);
            expect(book.isCrossed()).toBe(true);
          } else {
            book.applyLevels(data.bids, data.asks);
            expect(book.isCrossed()).toBe(false);
            expectSame(book, model);
          }
        },
      ),
      { seed: SEED + 1, numRuns: 200 },
    );
  });

  it('spread and mid agree with exact arithmetic or refuse to round', () => {
    fc.assert(
      fc.property(midArb, sideLevelsArb, sideLevelsArb, (mid, bids, asks) => {
        const model = new BookModel(1000);
        for (const l of bids) model.truth.bid.set(priceOf(mid, 'bid', l.off), l.size);
        for (const l of asks) model.truth.ask.set(priceOf(mid, 'ask', l.off), l.size);
        const book = OrderBook.fromSnapshot(model.takeSnapshot());
        const bid = model.sorted('bid')[0]?.[0];
        const ask = model.sorted('ask')[0]?.[0];
        if (bid === undefined || ask === undefined) {
          expect(book.spread()).toBeUndefined();
          expect(book.mid()).toBeUndefined();
          return;
        }
        expect(book.spreadBig()).toBe(ask - bid);
        expect(book.spread()).toBe(Number(ask - bid));
        if (bid + ask <= MAX_SAFE) expect(book.mid()).toBe(Number(bid + ask) / 2);
        else expect(() => book.mid()).toThrow(BookPrecisionError);
      }),
      { seed: SEED + 2, numRuns: 100 },
    );
  });
});
