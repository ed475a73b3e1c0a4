/** The reused top-N view and the top cache behind it: values, limits, the exact path, no allocation. */
import { getHeapSpaceStatistics } from 'node:v8';
import { InvalidParameterError } from '../../../src/errors';
import { BookPrecisionError, OrderBook, type BookTopView } from '../../../src/replicas/book';
import { checkInvariants, sideInternals } from './bookInvariants';
import { L, TWO_53, askLadder, bidLadder } from './bookTestUtil';

const newSpaceUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;

/** Bytes allocated per call of `fn` on the young generation; retried until no collection ran in between. */
function bytesPerCall(fn: () => void, n: number): number {
  for (let i = 0; i < n; i++) fn();
  let best = Infinity;
  for (let attempt = 0; attempt < 6; attempt++) {
    const before = newSpaceUsed();
    for (let i = 0; i < n; i++) fn();
    const after = newSpaceUsed();
    if (after >= before) best = Math.min(best, after - before);
  }
  return best / n;
}

const pairs = (v: BookTopView) => Array.from({ length: v.length }, (_, i) => [v.prices[i], v.sizes[i]]);

describe('topView', () => {
  it('shows the best n levels of each side, best first, in one reused object per side', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(1000, 30, 2), asks: askLadder(1001, 30, 3) });
    const bids = book.topView('bid', 5);
    expect(bids.side).toBe('bid');
    expect(pairs(bids)).toEqual([0, 1, 2, 3, 4].map((i) => [1000 - 2 * i, i + 1]));
    const asks = book.topView('ask', 3);
    expect(asks.side).toBe('ask');
    expect(pairs(asks)).toEqual([0, 1, 2].map((i) => [1001 + 3 * i, i + 1]));
    expect(book.topView('bid', 2)).toBe(bids);
    expect(book.bids.topView(7)).toBe(bids);
    expect(bids.length).toBe(7);
  });

  it('counts like forEachLevel: fewer when the side is shorter, none for n <= 0, n rounded down', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(100, 4), asks: [] });
    expect(book.topView('bid', 10).length).toBe(4);
    expect(book.topView('bid', Infinity).length).toBe(4);
    expect(book.topView('bid', 0).length).toBe(0);
    expect(book.topView('bid', -3).length).toBe(0);
    expect(book.topView('bid', 2.7).length).toBe(2);
    expect(book.topView('ask', 5).length).toBe(0);
  });

  it('follows every kind of change once read: new sizes, inserts, removals, at the top and below it', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(100, 12), asks: askLadder(200, 12) }, { topLevels: 4 });
    expect(pairs(book.topView('bid', 4))).toEqual([[100, 1], [99, 2], [98, 3], [97, 4]]);
    book.applyLevels([L(99, 50)], []); // new size inside
    book.applyLevels([L(101, 7)], []); // new best: the last entry drops out
    book.applyLevels([L(98, 0)], []); // removal inside: refilled from the book
    book.applyLevels([L(90, 0), L(95, 9)], []); // changes below the cache: no effect on it
    expect(pairs(book.topView('bid', 4))).toEqual([[101, 7], [100, 1], [99, 50], [97, 4]]);
    book.applyLevels([L(101, 0), L(100, 0), L(99, 0)], []); // three removals from the top
    expect(pairs(book.topView('bid', 4))).toEqual([[97, 4], [96, 5], [95, 9], [94, 7]]);
    checkInvariants(book);
  });

  it('keeps nothing until a read asks, then as many levels as the deepest read within topLevels', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(1000, 100), asks: askLadder(1001, 100) }, { topLevels: 8 });
    const bids = sideInternals(book, 'bid').num;
    expect(bids.top.cap).toBe(0);
    book.applyLevels([L(1000, 3)], []);
    expect(bids.top.cap).toBe(0);
    book.topView('bid', 3);
    expect(bids.top.cap).toBe(3);
    book.bids.priceAt(4);
    expect(bids.top.cap).toBe(6);
    book.forEachLevel('bid', 20, () => undefined); // beyond the limit: walks, keeps 6
    expect(bids.top.cap).toBe(6);
    expect(pairs(book.topView('bid', 20))).toEqual(Array.from({ length: 20 }, (_, i) => [1000 - i, i === 0 ? 3 : i + 1]));
    expect(sideInternals(book, 'ask').num.top.cap).toBe(0);
    checkInvariants(book);
  });

  it('reads beyond topLevels (own arrays) and back within it, across window and deep store', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(10_000, 200, 2), asks: askLadder(10_001, 200, 3) }, { windowTicks: 64, topLevels: 4 });
    const deep = book.topView('ask', 150);
    expect(pairs(deep)).toEqual(Array.from({ length: 150 }, (_, i) => [10_001 + 3 * i, i + 1]));
    const near = book.topView('ask', 3);
    expect(near).toBe(deep);
    expect(pairs(near)).toEqual([0, 1, 2].map((i) => [10_001 + 3 * i, i + 1]));
    checkInvariants(book);
  });

  it('on the exact path gives numbers while they are safe and throws BookPrecisionError otherwise', () => {
    const big = TWO_53 + 10n;
    const book = OrderBook.fromSnapshot({ bids: [L(500, 1), L(400, 2)], asks: [L(big, 3), L(big + 1n, 4)] });
    expect(book.asks.isBigint).toBe(true);
    expect(() => book.topView('ask', 1)).toThrow(BookPrecisionError);
    expect(pairs(book.topView('bid', 5))).toEqual([[500, 1], [400, 2]]);
    // A bid side switched to bigints by a huge size, its best levels still safe.
    book.applyLevels([L(300, TWO_53 + 1n)], []);
    expect(book.bids.isBigint).toBe(true);
    expect(pairs(book.topView('bid', 2))).toEqual([[500, 1], [400, 2]]);
    expect(() => book.topView('bid', 3)).toThrow(BookPrecisionError);
    checkInvariants(book);
  });

  it('stays right when a side turns exact after its cache was built, and on a resync', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(100, 10), asks: askLadder(101, 10) });
    book.topView('bid', 5);
    book.applyLevels([L(50, TWO_53 + 2n)], []);
    expect(sideInternals(book, 'bid').num.top.cap).toBe(0);
    expect(pairs(book.topView('bid', 3))).toEqual([[100, 1], [99, 2], [98, 3]]);
    checkInvariants(book);
  });

  it('allocates nothing per read, after changes that reached the cached levels', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(10_000, 100), asks: askLadder(10_001, 100) });
    book.topView('bid', 10);
    book.topView('ask', 10);
    book.applyLevels([L(9_995, 0), L(10_000, 7)], [L(10_001, 0), L(10_003, 9)]);
    let sum = 0;
    const perRead = bytesPerCall(() => {
      const b = book.topView('bid', 10);
      for (let i = 0; i < b.length; i++) sum = (sum + b.prices[i]! - b.sizes[i]!) & 0xffff;
      const a = book.topView('ask', 10);
      for (let i = 0; i < a.length; i++) sum = (sum + a.prices[i]! - a.sizes[i]!) & 0xffff;
    }, 20_000);
    expect(sum).not.toBe(0);
    expect(perRead).toBeLessThan(1);
  });

  it('keeping the cache allocates nothing per update either (new sizes, removals, inserts)', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(10_000, 100), asks: askLadder(10_001, 100) });
    let sum = 0;
    let size = 1;
    const perRound = bytesPerCall(() => {
      size = (size % 1000) + 1;
      // Bids only: their keys are their prices (an ask's key is a double above 2^31, which the
      // engine may box on its own in some compilations of the caller; nothing the book allocates).
      book.applyLevel('bid', 9_995, size % 10 === 0 ? 0 : size);
      book.applyLevel('bid', 9_998, size);
      const b = book.topView('bid', 10);
      for (let i = 0; i < b.length; i++) sum = (sum + b.prices[i]! - b.sizes[i]!) & 0xffff;
      const a = book.topView('ask', 10);
      for (let i = 0; i < a.length; i++) sum = (sum + a.prices[i]! - a.sizes[i]!) & 0xffff;
    }, 20_000);
    expect(sum).not.toBe(0);
    expect(perRound).toBeLessThan(1);
  });

  it('rejects a topLevels that is not an integer from 1 to 1024', () => {
    expect(() => new OrderBook({ topLevels: 0 })).toThrow(InvalidParameterError);
    expect(() => new OrderBook({ topLevels: 1.5 })).toThrow(/topLevels/);
    expect(() => new OrderBook({ topLevels: 1025 })).toThrow(/topLevels/);
    expect(new OrderBook({ topLevels: 1 }).options.topLevels).toBe(1);
    expect(new OrderBook().options.topLevels).toBe(64);
  });
});
