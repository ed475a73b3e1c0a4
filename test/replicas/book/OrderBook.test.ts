import { InvalidParameterError } from '../../../src/errors';
import type { PriceLevel } from '../../../src/protocol';
import { OrderBook, BookPrecisionError } from '../../../src/replicas/book';
import { ReplicaIntegrityError } from '../../../src/replicas/ReplicaIntegrityError';
import { checkInvariants } from './bookInvariants';
import { L, TWO_53, UINT64_MAX, askLadder, bidLadder } from './bookTestUtil';

const snap = () => ({ bids: [L(100, 5), L(99, 6), L(97, 7)], asks: [L(101, 1), L(103, 2), L(104, 3)] });

describe('OrderBook: snapshot and updates', () => {
  it('builds from a snapshot, best first on both sides', () => {
    const book = OrderBook.fromSnapshot(snap());
    expect(book.toSnapshot()).toEqual(snap());
    expect(book.bestBid()).toBe(100);
    expect(book.bestAsk()).toBe(101);
    expect(book.bestBidSize()).toBe(5);
    expect(book.bestAskSize()).toBe(1);
    expect(book.spread()).toBe(1);
    expect(book.mid()).toBe(100.5);
    expect(book.depth('bid')).toBe(3);
    expect(book.depth('ask')).toBe(3);
    expect(book.isCrossed()).toBe(false);
    expect(book.version).toBe(0);
  });

  it('an empty book has no best prices', () => {
    const book = new OrderBook();
    expect(book.bestBid()).toBeUndefined();
    expect(book.bestAskSize()).toBeUndefined();
    expect(book.spread()).toBeUndefined();
    expect(book.mid()).toBeUndefined();
    expect(book.bestBidBig()).toBeUndefined();
    expect(book.toSnapshot()).toEqual({ bids: [], asks: [] });
  });

  it('sets absolute sizes, inserts, removes with "0", ignores removal of an unknown level', () => {
    const book = OrderBook.fromSnapshot(snap());
    book.applyLevels([L(99, 60), L(98, 1), L(100, 0), L(50, 0)], [L(102, 9), L(104, 0)]);
    expect(book.toSnapshot()).toEqual({
      bids: [L(99, 60), L(98, 1), L(97, 7)],
      asks: [L(101, 1), L(102, 9), L(103, 2)],
    });
    expect(book.version).toBe(1);
    // A new best bid; a new size at the best ask.
    book.applyLevels([L(100, 3)], [L(101, 4)]);
    expect(book.bestAsk()).toBe(101);
    expect(book.bestAskSize()).toBe(4);
    expect(book.bestBid()).toBe(100);
    expect(book.bestBidSize()).toBe(3);
  });

  it('grows past its initial capacity and shrinks back', () => {
    const book = new OrderBook();
    for (let i = 0; i < 1000; i++) book.applyLevel('bid', 5000 - 2 * i, i + 1);
    for (let i = 0; i < 1000; i++) book.applyLevel('ask', 6000 + 2 * i, i + 1);
    // Interleave inserts at every depth.
    for (let i = 0; i < 1000; i++) book.applyLevel('bid', 5001 - 2 * i, 1);
    book.assertConsistent();
    expect(book.depth('bid')).toBe(2000);
    expect(book.bids.priceAt(0)).toBe(5001);
    expect(book.bids.priceAt(1999)).toBe(5000 - 2 * 999);
    for (let i = 0; i < 1000; i++) book.applyLevel('bid', 5001 - 2 * i, 0);
    expect(book.depth('bid')).toBe(1000);
    expect(book.bids.priceAt(999)).toBe(5000 - 2 * 999);
  });

  it('rejects a snapshot that is not best first or is crossed', () => {
    expect(() => OrderBook.fromSnapshot({ bids: [L(99, 1), L(100, 1)], asks: [] })).toThrow(ReplicaIntegrityError);
    expect(() => OrderBook.fromSnapshot({ bids: [], asks: [L(5, 1), L(5, 2)] })).toThrow(ReplicaIntegrityError);
    expect(() => OrderBook.fromSnapshot({ bids: [L(101, 1)], asks: [L(101, 1)] })).toThrow(/crossed or locked/);
    expect(() => OrderBook.fromSnapshot({ bids: [L(1, 'x')], asks: [] })).toThrow(ReplicaIntegrityError);
  });

  it('rejects a depth limit that is not a positive integer or Infinity', () => {
    for (const depthLimit of [0, -1, 1.5, NaN]) expect(() => new OrderBook({ depthLimit })).toThrow(/depthLimit/);
    expect(new OrderBook({ depthLimit: Infinity }).options.depthLimit).toBe(Infinity);
    expect(new OrderBook({ depthLimit: undefined }).options.depthLimit).toBe(500);
  });

  it('skips zero-size snapshot levels', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(10, 1), L(9, 0), L(8, 2)], asks: [L(11, 0)] });
    expect(book.toSnapshot()).toEqual({ bids: [L(10, 1), L(8, 2)], asks: [] });
  });
});

describe('OrderBook: integrity', () => {
  it('throws ReplicaIntegrityError on a crossed or locked result', () => {
    const locked = OrderBook.fromSnapshot(snap());
    expect(() => locked.applyLevels([L(101, 1)], [])).toThrow(ReplicaIntegrityError);
    expect(locked.isCrossed()).toBe(true);
    const crossed = OrderBook.fromSnapshot(snap());
    expect(() => crossed.applyLevels([], [L(50, 1)])).toThrow(/crossed or locked: best bid 100 >= best ask 50/);
  });

  it('a frame may pass through a crossed state as long as its result is not crossed', () => {
    const book = OrderBook.fromSnapshot(snap());
    // The bid moves up to 101 while the ask at 101 goes away in the same frame.
    book.applyLevels([L(101, 2)], [L(101, 0)]);
    expect(book.bestBid()).toBe(101);
    expect(book.bestAsk()).toBe(103);
  });

  it.each([
    ['size', L(100, '1.5')],
    ['size', L(100, '-1')],
    ['size', L(100, '-0')],
    ['size', L(100, '')],
    ['size', L(100, ' ')],
    ['size', L(100, '1e-400')],
    ['size', L(100, '1.0000000000000001')],
    ['size', L(100, '18446744073709551616')],
    ['size', L(100, '9007199254740993.5')],
    ['price', L('abc', 1)],
    ['price', L('NaN', 1)],
    ['price', L('Infinity', 1)],
  ])('an invalid %s leaves the book untouched (%j)', (_what, bad) => {
    const book = OrderBook.fromSnapshot(snap());
    expect(() => book.applyLevels([L(98, 4), bad], [L(102, 1)])).toThrow(ReplicaIntegrityError);
    expect(() => book.applyLevels([L(98, 4)], [L(102, 1), bad])).toThrow(ReplicaIntegrityError);
    expect(book.toSnapshot()).toEqual(snap());
    expect(book.version).toBe(0);
    expect(book.bids.isBigint).toBe(false);
  });

  it('a frame with an invalid value changes nothing: inserts, removals, new sizes, both sides, window and deep store', () => {
    const base = { bids: [L(100, 5), L(99, 6), L(40, 1)], asks: [L(101, 1), L(103, 2), L(900, 3)] };
    const book = OrderBook.fromSnapshot(base, { windowTicks: 64 });
    const bad = L(1, 'x');
    // Every kind of change before the bad value: new size, removal, insert, deep insert, and
    // levels above the window that move it (crossing does not matter: the frame is undone).
    expect(() => book.applyLevels([L(100, 7), L(99, 0), L(98, 1), L(30, 2), L(130, 1)], [L(101, 0), L(102, 4), L(950, 1), L(50, 1), bad])).toThrow(
      ReplicaIntegrityError,
    );
    expect(book.toSnapshot()).toEqual(base);
    checkInvariants(book);
    expect(() => book.applyLevels([L(100, 0), L(40, 0), L(99, 0), bad], [])).toThrow(ReplicaIntegrityError);
    expect(book.toSnapshot()).toEqual(base);
    checkInvariants(book);
  });

  it('a value above 2^53 in the middle of a frame takes the exact path for the whole frame', () => {
    const book = OrderBook.fromSnapshot(snap());
    book.applyLevels([L(98, 4), L(97, TWO_53 + 1n), L(100, 0)], [L(102, 9)]);
    expect(book.bids.isBigint).toBe(true);
    expect(book.asks.isBigint).toBe(false);
    expect(book.toSnapshot()).toEqual({
      bids: [L(99, 6), L(98, 4), L(97, TWO_53 + 1n)],
      asks: [L(101, 1), L(102, 9), L(103, 2), L(104, 3)],
    });
    expect(book.version).toBe(1);
  });

  it('a level that is not an object is rejected without changing the book', () => {
    const book = OrderBook.fromSnapshot(snap());
    expect(() => book.applyLevels([L(98, 4), null as unknown as PriceLevel], [])).toThrow(ReplicaIntegrityError);
    expect(() => book.applyLevels([], [L(102, 4), undefined as unknown as PriceLevel])).toThrow(ReplicaIntegrityError);
    expect(book.toSnapshot()).toEqual(snap());
  });

  it('a value that is not a string at all is rejected too', () => {
    const book = OrderBook.fromSnapshot(snap());
    const bad = { price_ticks: 98 as unknown as string, size_base_lots: '1' };
    expect(() => book.applyLevels([bad], [])).toThrow(ReplicaIntegrityError);
    expect(book.toSnapshot()).toEqual(snap());
  });

  it('applyLevel checks its numbers; applyLevelBig its bigints', () => {
    const book = new OrderBook();
    expect(() => book.applyLevel('bid', 1.5, 1)).toThrow(InvalidParameterError);
    expect(() => book.applyLevel('bid', -1, 1)).toThrow(InvalidParameterError);
    expect(() => book.applyLevel('bid', 1, NaN)).toThrow(InvalidParameterError);
    expect(() => book.applyLevel('bid', 2 ** 53, 1)).toThrow(InvalidParameterError);
    expect(() => book.applyLevelBig('ask', UINT64_MAX + 1n, 1n)).toThrow(InvalidParameterError);
    expect(() => book.applyLevelBig('ask', 1n, -1n)).toThrow(InvalidParameterError);
    expect(book.version).toBe(0);
  });
});

describe('OrderBook: exact values beyond 2^53', () => {
  it('switches a side to bigints when a price crosses 2^53, exactly', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(TWO_53 - 2n, 1)], asks: [L(TWO_53 - 1n, 2)] });
    expect(book.asks.isBigint).toBe(false);
    book.applyLevels([], [L(TWO_53 + 1n, 3), L(TWO_53 + 2n, 4)]);
    expect(book.asks.isBigint).toBe(true);
    expect(book.bids.isBigint).toBe(false);
    expect(book.toSnapshot()).toEqual({
      bids: [L(TWO_53 - 2n, 1)],
      asks: [L(TWO_53 - 1n, 2), L(TWO_53 + 1n, 3), L(TWO_53 + 2n, 4)],
    });
    // Safe values still read as numbers; unsafe ones throw instead of rounding.
    expect(book.bestAsk()).toBe(Number(TWO_53 - 1n));
    expect(book.asks.priceAt(0)).toBe(Number(TWO_53 - 1n));
    expect(() => book.asks.priceAt(1)).toThrow(BookPrecisionError);
    expect(book.asks.priceAtBig(1)).toBe(TWO_53 + 1n);
    expect(book.spreadBig()).toBe(1n);
    expect(book.spread()).toBe(1);
    expect(() => book.mid()).toThrow(BookPrecisionError);
    // Removing the big levels keeps the side exact and correct.
    book.applyLevels([], [L(TWO_53 + 1n, 0), L(TWO_53 - 1n, 0)]);
    expect(book.toSnapshot().asks).toEqual([L(TWO_53 + 2n, 4)]);
    expect(() => book.bestAsk()).toThrow(BookPrecisionError);
    expect(book.bestAskBig()).toBe(TWO_53 + 2n);
  });

  it('switches when a size crosses 2^53 and compares mixed sides exactly', () => {
    const book = OrderBook.fromSnapshot(snap());
    book.applyLevels([L(100, TWO_53 + 1n)], []);
    expect(book.bids.isBigint).toBe(true);
    expect(book.asks.isBigint).toBe(false);
    expect(book.bids.sizeAtBig(0)).toBe(TWO_53 + 1n);
    expect(() => book.bestBidSize()).toThrow(BookPrecisionError);
    expect(book.bestBid()).toBe(100);
    expect(() => book.applyLevels([], [L(100, 1)])).toThrow(ReplicaIntegrityError);
  });

  it('loads a snapshot with values up to 2^64 - 1 and keeps order on both sides', () => {
    const top = UINT64_MAX;
    const book = OrderBook.fromSnapshot({
      bids: [L(top - 10n, top), L(top - 11n, 1)],
      asks: [L(top - 1n, 2), L(top, 3)],
    });
    expect(book.bids.isBigint && book.asks.isBigint).toBe(true);
    book.applyLevels([L(top - 9n, 5)], [L(top - 5n, 6), L(top, 0)]);
    expect(book.toSnapshot()).toEqual({
      bids: [L(top - 9n, 5), L(top - 10n, top), L(top - 11n, 1)],
      asks: [L(top - 5n, 6), L(top - 1n, 2)],
    });
    expect(() => book.applyLevels([L(top - 5n, 1)], [])).toThrow(/crossed or locked/);
  });

  it('applyLevelBig keeps the number path while values are safe', () => {
    const book = new OrderBook();
    book.applyLevelBig('bid', 10n, 1n);
    expect(book.bids.isBigint).toBe(false);
    book.applyLevelBig('bid', TWO_53, 1n);
    expect(book.bids.isBigint).toBe(true);
    expect(book.bids.priceAtBig(0)).toBe(TWO_53);
    book.applyLevel('bid', 11, 2);
    expect(book.toSnapshot().bids).toEqual([L(TWO_53, 1), L(11, 2), L(10, 1)]);
  });
});

describe('OrderBook: reads', () => {
  const book = OrderBook.fromSnapshot({ bids: bidLadder(1000, 30), asks: askLadder(1001, 30, 2) });

  it('forEachLevel visits the best n levels in order and reports the count', () => {
    const seen: number[][] = [];
    const cb = (price: number, size: number, i: number) => seen.push([price, size, i]);
    expect(book.forEachLevel('bid', 3, cb)).toBe(3);
    expect(book.forEachLevel('ask', 2, cb)).toBe(2);
    expect(seen).toEqual([
      [1000, 1, 0],
      [999, 2, 1],
      [998, 3, 2],
      [1001, 1, 0],
      [1003, 2, 1],
    ]);
    expect(book.forEachLevel('ask', 100, () => undefined)).toBe(30);
    expect(book.forEachLevel('ask', 0, () => undefined)).toBe(0);
    expect(book.forEachLevel('ask', -5, () => undefined)).toBe(0);
    expect(book.forEachLevel('ask', NaN, () => undefined)).toBe(0);
  });

  it('forEachLevelBig gives exact values', () => {
    const seen: bigint[] = [];
    book.forEachLevelBig('ask', 2, (p, s) => seen.push(p, s));
    expect(seen).toEqual([1001n, 1n, 1003n, 2n]);
  });

  it('the side readers index from the best level and check their range', () => {
    const asks = book.asks;
    expect(asks.side).toBe('ask');
    expect(asks.length).toBe(30);
    expect(asks.priceAt(0)).toBe(1001);
    expect(asks.sizeAt(29)).toBe(30);
    expect(asks.levelAt(1)).toEqual(L(1003, 2));
    expect(() => asks.priceAt(30)).toThrow(InvalidParameterError);
    expect(() => asks.priceAt(-1)).toThrow(InvalidParameterError);
    expect(() => asks.sizeAt(0.5)).toThrow(InvalidParameterError);
    expect(book.top(2)).toEqual({ bids: [L(1000, 1), L(999, 2)], asks: [L(1001, 1), L(1003, 2)] });
  });

  it('readers are live and keep their identity across updates and the switch to bigints', () => {
    const b = OrderBook.fromSnapshot(snap());
    const bids = b.bids;
    b.applyLevels([L(100, 0)], []);
    expect(b.bids).toBe(bids);
    expect(bids.priceAt(0)).toBe(99);
    b.applyLevels([L(98, TWO_53)], []);
    expect(b.bids).toBe(bids);
    expect(bids.isBigint).toBe(true);
    expect(bids.priceAt(1)).toBe(98);
  });

  it('ask price 0 and bid price 0 read back as 0', () => {
    const b = OrderBook.fromSnapshot({ bids: [L(0, 1)], asks: [] });
    expect(Object.is(b.bestBid(), 0)).toBe(true);
    const a = OrderBook.fromSnapshot({ bids: [], asks: [L(0, 1)] });
    expect(Object.is(a.bestAsk(), 0)).toBe(true);
    expect(Object.is(a.asks.priceAt(0), 0)).toBe(true);
    expect(a.toSnapshot().asks).toEqual([L(0, 1)]);
  });
});

describe('OrderBook: large moves', () => {
  it('inserts and removes deep levels (bulk moves) on both paths', () => {
    for (const [base, windowTicks] of [[0n, 4096], [0n, 64], [TWO_53, 4096]] as const) {
      const bids = Array.from({ length: 100 }, (_, i) => L(base + BigInt(10_000 - 2 * i), i + 1));
      const book = OrderBook.fromSnapshot({ bids, asks: [] }, { depthLimit: 1000, windowTicks });
      book.applyLevels([L(base + 9_803n, 7)], []); // insert near the bottom: 99 levels move
      book.applyLevels([L(base + 9_998n, 0)], []); // remove near the top
      book.applyLevels([L(base + 9_806n, 0)], []); // remove near the bottom: 97 levels move
      const expected = bids.filter((l) => l.price_ticks !== String(base + 9_998n) && l.price_ticks !== String(base + 9_806n));
      expected.splice(expected.length - 1, 0, L(base + 9_803n, 7));
      expect(book.toSnapshot().bids).toEqual(expected);
      checkInvariants(book);
    }
  });

  it('number reads of a bigint side give numbers while values are safe', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(TWO_53 + 1n, 1), L(5, 2), L(4, 3)], asks: [] });
    book.applyLevels([L(TWO_53 + 1n, 0)], []);
    expect(book.bids.isBigint).toBe(true);
    const seen: number[] = [];
    book.forEachLevel('bid', 5, (p, s) => seen.push(p, s));
    expect(seen).toEqual([5, 2, 4, 3]);
    expect(book.bestBidSize()).toBe(2);
  });
});

describe('OrderBook: exact path growth', () => {
  it('grows an exact side level by level and keeps it sorted', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(TWO_53 + 1n, 1)], asks: [] });
    for (let i = 2; i <= 60; i++) book.applyLevelBig('bid', TWO_53 + BigInt((i * 37) % 61) + 100n, BigInt(i));
    checkInvariants(book);
    const prices = book.toSnapshot().bids.map((l) => BigInt(l.price_ticks));
    expect(prices).toEqual([...prices].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
    expect(prices).toHaveLength(60);
  });
});
