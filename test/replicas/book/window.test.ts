/** The price window of the number path: raising, lowering, spilling to and pulling from the deep store. */
import fc from 'fast-check';
import type { Side } from '../../../src/protocol';
import { OrderBook } from '../../../src/replicas/book';
import { checkInvariants } from './bookInvariants';
import { L } from './bookTestUtil';

const W = { windowTicks: 64 };
const bidsOf = (book: OrderBook) => book.toSnapshot().bids.map((l) => Number(l.price_ticks));
const asksOf = (book: OrderBook) => book.toSnapshot().asks.map((l) => Number(l.price_ticks));

describe('price window', () => {
  it('raises itself for a better level and spills the levels that fall out to the deep store', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(1000, 1), L(990, 2), L(940, 3)], asks: [] }, W);
    book.applyLevels([L(1030, 4)], []); // 30 above the best: above the window
    checkInvariants(book);
    expect(bidsOf(book)).toEqual([1030, 1000, 990, 940]);
    book.applyLevels([L(100_000, 5)], []); // far above: everything spills
    checkInvariants(book);
    expect(bidsOf(book)).toEqual([100_000, 1030, 1000, 990, 940]);
    expect(book.bids.sizeAt(4)).toBe(3);
    // Removing the far best empties the window: it comes back down to the next best.
    book.applyLevels([L(100_000, 0)], []);
    checkInvariants(book);
    expect(bidsOf(book)).toEqual([1030, 1000, 990, 940]);
  });

  it('lowers itself when its best sinks into its lowest quarter', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(1000, 1), L(960, 2), L(900, 3), L(500, 4)], asks: [] }, W);
    book.applyLevels([L(1000, 0)], []); // best now 960, low in the window
    checkInvariants(book);
    expect(bidsOf(book)).toEqual([960, 900, 500]);
    book.applyLevels([L(960, 0), L(900, 0)], []); // window empties: the deep level comes up
    checkInvariants(book);
    expect(bidsOf(book)).toEqual([500]);
    expect(book.bestBid()).toBe(500);
  });

  it('works the same on the ask side (keys mirrored)', () => {
    const book = OrderBook.fromSnapshot({ bids: [], asks: [L(1000, 1), L(1010, 2), L(1060, 3), L(5000, 4)] }, W);
    book.applyLevels([], [L(970, 5)]); // better ask: raises the window
    book.applyLevels([], [L(1000, 0), L(970, 0), L(1010, 0)]);
    checkInvariants(book);
    expect(asksOf(book)).toEqual([1060, 5000]);
    expect(book.bestAsk()).toBe(1060);
    const seen: number[] = [];
    book.forEachLevel('ask', 5, (p) => seen.push(p));
    expect(seen).toEqual([1060, 5000]);
  });

  it('an empty side places its window on the first level wherever it is', () => {
    const book = new OrderBook(W);
    book.applyLevel('bid', 7, 1).applyLevel('bid', 1_000_000, 2).applyLevel('bid', 3, 1);
    checkInvariants(book);
    expect(bidsOf(book)).toEqual([1_000_000, 7, 3]);
    book.applyLevel('ask', Number.MAX_SAFE_INTEGER, 1).applyLevel('ask', 0, 0);
    checkInvariants(book);
    expect(book.bestAsk()).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('reads ranks in any order through the window and the deep store', () => {
    const prices = Array.from({ length: 300 }, (_, i) => 10_000 - 3 * i);
    const book = OrderBook.fromSnapshot({ bids: prices.map((p, i) => L(p, i + 1)), asks: [] }, { windowTicks: 64, depthLimit: 1000 });
    const order = [0, 5, 3, 299, 20, 21, 22, 1, 150];
    for (const i of order) {
      expect(book.bids.priceAt(i)).toBe(prices[i]);
      expect(book.bids.sizeAt(i)).toBe(i + 1);
    }
    book.applyLevels([L(prices[3]!, 0)], []);
    expect(book.bids.priceAt(3)).toBe(prices[4]);
  });

  it('rejects a window size that is not a power of two from 64', () => {
    expect(() => new OrderBook({ windowTicks: 100 })).toThrow(/windowTicks/);
    expect(() => new OrderBook({ windowTicks: 32 })).toThrow(/windowTicks/);
    expect(new OrderBook({ windowTicks: 1 << 20 }).options.windowTicks).toBe(1 << 20);
  });

  it('matches a sorted map under random updates on wide price ranges', () => {
    const opArb = fc.record({
      side: fc.constantFrom<Side>('bid', 'ask'),
      price: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 20_000 })),
      size: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 9 })),
    });
    fc.assert(
      fc.property(fc.constantFrom(64, 128), fc.array(opArb, { minLength: 50, maxLength: 400 }), (windowTicks, ops) => {
        const book = new OrderBook({ windowTicks });
        const model: Record<Side, Map<number, number>> = { bid: new Map(), ask: new Map() };
        for (const op of ops) {
          book.applyLevel(op.side, op.price, op.size);
          if (op.size === 0) model[op.side].delete(op.price);
          else model[op.side].set(op.price, op.size);
        }
        checkInvariants(book);
        // Both sides are independent here (the book is allowed to cross between checks).
        for (const side of ['bid', 'ask'] as const) {
          const sorted = [...model[side]].sort((x, y) => (side === 'bid' ? y[0] - x[0] : x[0] - y[0]));
          const seen: number[][] = [];
          book.forEachLevel(side, Infinity, (p, s) => seen.push([p, s]));
          expect(seen).toEqual(sorted);
          expect(book.depth(side)).toBe(sorted.length);
          sorted.slice(0, 5).forEach(([p, s], i) => {
            expect((side === 'bid' ? book.bids : book.asks).priceAt(i)).toBe(p);
            expect((side === 'bid' ? book.bids : book.asks).sizeAt(i)).toBe(s);
          });
        }
      }),
      { seed: 77, numRuns: 200 },
    );
  });
});
