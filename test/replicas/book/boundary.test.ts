/** The 500-level rule (streaming-protocol.md section 5) and its edge cases. */
import { OrderBook } from '../../../src/replicas/book';
import { ReplicaIntegrityError } from '../../../src/replicas/ReplicaIntegrityError';
import { L, TWO_53, askLadder, bidLadder } from './bookTestUtil';

describe('500-level rule', () => {
  it('a side holding exactly the depth limit is truncated at its deepest price; a shorter side is whole', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(1000, 500), asks: askLadder(1001, 499) });
    expect(book.options.depthLimit).toBe(500);
    expect(book.bids.isTruncated).toBe(true);
    expect(book.bids.boundaryPrice).toBe(501n);
    expect(book.asks.isTruncated).toBe(false);
    expect(book.asks.boundaryPrice).toBeUndefined();
  });

  it('a level beyond the boundary appears only once an update sets it', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(100, 5), asks: askLadder(101, 5) }, { depthLimit: 5 });
    expect(book.bids.boundaryPrice).toBe(96n);
    expect(book.asks.boundaryPrice).toBe(105n);
    // Removing a level beyond the boundary that was never presented changes nothing.
    book.applyLevels([L(90, 0)], [L(110, 0)]);
    expect(book.depth('bid')).toBe(5);
    // An update creates levels beyond the boundary: they are presented, counted, iterated.
    book.applyLevels([L(90, 7)], [L(110, 8)]);
    expect(book.depth('bid')).toBe(6);
    expect(book.toSnapshot().bids.at(-1)).toEqual(L(90, 7));
    expect(book.toSnapshot().asks.at(-1)).toEqual(L(110, 8));
    const prices: number[] = [];
    book.forEachLevel('bid', 10, (p) => prices.push(p));
    expect(prices).toEqual([100, 99, 98, 97, 96, 90]);
    // And removed again by an update.
    book.applyLevels([L(90, 0)], []);
    expect(book.depth('bid')).toBe(5);
  });

  it('removals inside the covered range shrink the presented depth; the boundary stays and nothing is invented', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(100, 5), asks: askLadder(101, 5) }, { depthLimit: 5 });
    book.applyLevels([L(96, 0), L(97, 0)], [L(105, 0)]);
    expect(book.bids.boundaryPrice).toBe(96n);
    expect(book.toSnapshot()).toEqual({
      bids: [L(100, 1), L(99, 2), L(98, 3)],
      asks: [L(101, 1), L(102, 2), L(103, 3), L(104, 4)],
    });
    // A level re-added at the boundary is inside the covered range again.
    book.applyLevels([L(96, 9)], []);
    expect(book.toSnapshot().bids.at(-1)).toEqual(L(96, 9));
  });

  it('a truncated side with no level left at or better than its boundary has an unknown best: resync', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(100, 3), asks: askLadder(101, 2) }, { depthLimit: 3 });
    book.applyLevels([L(90, 1)], []); // created beyond the boundary (98)
    book.applyLevels([L(100, 0), L(99, 0)], []);
    expect(book.bestBid()).toBe(98);
    // The last covered level goes: only the created level at 90 is left, but unseen levels
    // between 90 and 98 may exist, so the best bid is unknown.
    expect(() => book.applyLevels([L(98, 0)], [])).toThrow(ReplicaIntegrityError);
    expect(() => book.assertConsistent()).toThrow(/no level is left at or better than the snapshot's boundary 98/);
  });

  it('a truncated side emptied completely also asks for a resync; a whole side may empty', () => {
    const truncated = OrderBook.fromSnapshot({ bids: [L(10, 1)], asks: [L(11, 1)] }, { depthLimit: 1 });
    expect(() => truncated.applyLevels([], [L(11, 0)])).toThrow(/best ask is unknown/);
    const whole = OrderBook.fromSnapshot({ bids: [L(10, 1)], asks: [L(11, 1)] }, { depthLimit: 2 });
    whole.applyLevels([L(10, 0)], [L(11, 0)]);
    expect(whole.toSnapshot()).toEqual({ bids: [], asks: [] });
  });

  it('a snapshot with more levels than the limit is truncated at its deepest level', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(100, 8), asks: [] }, { depthLimit: 5 });
    expect(book.depth('bid')).toBe(8);
    expect(book.bids.boundaryPrice).toBe(93n);
  });

  it('a zero-size deepest snapshot level still marks the covered range', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(100, 1), L(99, 2), L(98, 0)], asks: [] }, { depthLimit: 3 });
    expect(book.bids.boundaryPrice).toBe(98n);
    expect(book.depth('bid')).toBe(2);
    // The side is then known to be empty down to 98 and unknown beyond: the best bid is unknown.
    expect(() => book.applyLevels([L(100, 0), L(99, 0)], [L(101, 1)])).toThrow(ReplicaIntegrityError);
  });

  it('the boundary is exact beyond 2^53 on both paths', () => {
    const book = OrderBook.fromSnapshot(
      { bids: [L(TWO_53 + 5n, 1), L(TWO_53 + 3n, 1)], asks: [L(TWO_53 + 6n, 1), L(TWO_53 + 8n, 1)] },
      { depthLimit: 2 },
    );
    expect(book.bids.boundaryPrice).toBe(TWO_53 + 3n);
    expect(book.asks.boundaryPrice).toBe(TWO_53 + 8n);
    book.applyLevels([L(TWO_53 + 5n, 0)], [L(TWO_53 + 6n, 0), L(TWO_53 + 9n, 2)]);
    expect(book.toSnapshot()).toEqual({ bids: [L(TWO_53 + 3n, 1)], asks: [L(TWO_53 + 8n, 1), L(TWO_53 + 9n, 2)] });
    expect(() => book.applyLevels([], [L(TWO_53 + 8n, 0)])).toThrow(ReplicaIntegrityError);
  });

  it('a number-path side keeps its boundary when it switches to bigints', () => {
    const book = OrderBook.fromSnapshot({ bids: bidLadder(100, 3), asks: askLadder(101, 3) }, { depthLimit: 3 });
    book.applyLevels([L(99, TWO_53 + 1n)], []);
    expect(book.bids.isBigint).toBe(true);
    book.applyLevels([L(100, 0), L(99, 0)], []);
    expect(book.bids.boundaryPrice).toBe(98n);
    expect(() => book.applyLevels([L(98, 0), L(50, 1)], [])).toThrow(ReplicaIntegrityError);
  });
});
