/** The non-allocating top-N reads: what they visit, and that they allocate nothing per read. */
import { getHeapSpaceStatistics } from 'node:v8';
import { OrderBook } from '../../../src/replicas/book';
import { L, askLadder, bidLadder } from './bookTestUtil';

const newSpaceUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;

/**
 * Bytes allocated by `n` calls of `fn`, measured on the young generation. A collection in
 * between makes the figure meaningless, so the run is retried (a few times) until none happened.
 */
function bytesAllocated(fn: () => void, n: number): number {
  for (let i = 0; i < n; i++) fn(); // warm up: compiled code, caches built
  let best = Infinity;
  for (let attempt = 0; attempt < 6; attempt++) {
    const before = newSpaceUsed();
    for (let i = 0; i < n; i++) fn();
    const after = newSpaceUsed();
    if (after >= before) best = Math.min(best, after - before);
  }
  return best;
}

describe('top-N reads', () => {
  // Levels 2 ticks apart on both sides, some beyond a small window (deep store).
  const book = OrderBook.fromSnapshot({ bids: bidLadder(10_000, 200, 2), asks: askLadder(10_001, 200, 3) }, { windowTicks: 64 });

  it('forEachLevel visits the best n levels of each side in order, across window and deep store', () => {
    const bids: number[] = [];
    const asks: number[] = [];
    expect(book.forEachLevel('bid', 50, (p, s, i) => bids.push(p, s, i))).toBe(50);
    expect(book.forEachLevel('ask', 50, (p, s, i) => asks.push(p, s, i))).toBe(50);
    expect(bids).toEqual(Array.from({ length: 50 }, (_, i) => [10_000 - 2 * i, i + 1, i]).flat());
    expect(asks).toEqual(Array.from({ length: 50 }, (_, i) => [10_001 + 3 * i, i + 1, i]).flat());
  });

  it('the readers give the same levels by rank, in any order', () => {
    for (const i of [0, 49, 3, 199, 1, 100]) {
      expect(book.bids.priceAt(i)).toBe(10_000 - 2 * i);
      expect(book.asks.sizeAt(i)).toBe(i + 1);
      expect(book.asks.levelAt(i)).toEqual(L(10_001 + 3 * i, i + 1));
    }
  });

  it('forEachLevel allocates nothing per read', () => {
    // The test's own sums stay small integers: a growing double would box on every update.
    let sum = 0;
    const cb = (price: number, size: number) => {
      sum = (sum + price - size) & 0xffff;
    };
    const perRead = bytesAllocated(() => {
      book.forEachLevel('bid', 10, cb);
      book.forEachLevel('ask', 10, cb);
    }, 20_000) / 20_000;
    expect(sum).not.toBe(0);
    expect(perRead).toBeLessThan(1);
  });

  it('rank reads allocate nothing per read once their cache is built', () => {
    const bids = book.bids;
    const asks = book.asks;
    let sum = 0;
    const perRead = bytesAllocated(() => {
      for (let i = 0; i < 10; i++) sum = (sum + bids.priceAt(i) + bids.sizeAt(i) - asks.priceAt(i) - asks.sizeAt(i)) & 0xffff;
    }, 20_000) / 20_000;
    expect(sum).not.toBe(0);
    expect(perRead).toBeLessThan(1);
  });

  it('rank reads after every update reuse their cache (no allocation per update either)', () => {
    const live = OrderBook.fromSnapshot({ bids: bidLadder(10_000, 100), asks: askLadder(10_001, 100) });
    let size = 1;
    let sum = 0;
    const perRound = bytesAllocated(() => {
      size = (size % 1000) + 1;
      live.applyLevel('bid', 9_995, size);
      for (let i = 0; i < 10; i++) sum = (sum + live.bids.priceAt(i) + live.bids.sizeAt(i)) & 0xffff;
    }, 20_000) / 20_000;
    expect(sum).not.toBe(0);
    expect(perRound).toBeLessThan(1);
  });
});
