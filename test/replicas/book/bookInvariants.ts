/** Checks the internal invariants of a book's storage (test-only: reads private state). */
import type { Side } from '../../../src/protocol';
import type { OrderBook } from '../../../src/replicas/book';
import type { PriceWindow } from '../../../src/replicas/book/PriceWindow';
import type { SortedBigLevels } from '../../../src/replicas/book/SortedBigLevels';
import type { SortedLevels } from '../../../src/replicas/book/SortedLevels';
import type { TopCache } from '../../../src/replicas/book/TopCache';

/** The private state of a `NumberLevels` (names as in the class). */
interface NumberInternals {
  win: PriceWindow;
  deep: SortedLevels;
  top: TopCache;
  topFloor: number;
  keyOf(price: number): number;
}

/** The private state of a `BookSide` (names as in the class). */
export interface SideInternals {
  side: Side;
  big: boolean;
  num: NumberInternals;
  exact: SortedBigLevels;
}

/** A side's private state, for white-box checks. */
export function sideInternals(book: OrderBook, side: Side): SideInternals {
  const sides = book as unknown as { b: SideInternals; a: SideInternals };
  return side === 'bid' ? sides.b : sides.a;
}

/** The top cache must hold the side's best min(cap, n) levels, in rank order. */
function checkTopCache(s: SideInternals): void {
  const { top, win, deep } = s.num;
  if (s.big) {
    if (top.n !== 0) throw new Error(`${s.side}: top cache holds ${top.n} levels on the exact path`);
    return;
  }
  const n = win.count + deep.n;
  if (top.n !== Math.min(top.cap, n)) throw new Error(`${s.side}: top cache holds ${top.n} levels, keeps ${top.cap}, the side has ${n}`);
  const levels: [number, number][] = [];
  for (let slot = win.size - 1; slot >= 0 && levels.length < top.n; slot--) if (win.sizeAt(slot) !== 0) levels.push([s.num.keyOf(win.base + slot), win.sizeAt(slot)]);
  for (let j = deep.n - 1; j >= 0 && levels.length < top.n; j--) levels.push([s.num.keyOf(deep.keyAt(j)), deep.sizeAt(j)]);
  levels.forEach(([p, size], i) => {
    if (top.prices[i] !== p || top.sizes[i] !== size) {
      throw new Error(`${s.side}: top cache rank ${i} is ${top.prices[i]}@${top.sizes[i]}, the book holds ${p}@${size}`);
    }
  });
  // The one compare that lets a change skip the cache must match what the cache holds.
  const floor = top.cap === 0 ? Infinity : top.n < top.cap ? -1 : s.num.keyOf(top.prices[top.cap - 1]!);
  if (s.num.topFloor !== floor) throw new Error(`${s.side}: top floor ${s.num.topFloor}, expected ${floor}`);
}

function checkSide(s: SideInternals): void {
  checkTopCache(s);
  if (s.big) {
    const ex = s.exact;
    for (let j = 1; j < ex.n; j++) if (!(ex.keyAt(j - 1) < ex.keyAt(j))) throw new Error(`${s.side}: exact keys not ascending at ${j}`);
    for (let j = 0; j < ex.n; j++) if (ex.sizeAt(j) === 0n) throw new Error(`${s.side}: zero size stored`);
    return;
  }
  const { win, deep } = s.num;
  let count = 0;
  let top = -1;
  for (let slot = 0; slot < win.size; slot++) {
    const occupied = win.isOccupied(slot);
    if (occupied !== (win.sizeAt(slot) !== 0)) throw new Error(`${s.side}: bitset and sizes disagree at slot ${slot}`);
    if (occupied) {
      count++;
      top = slot;
    }
  }
  if (count !== win.count) throw new Error(`${s.side}: window count ${win.count}, holds ${count}`);
  if (top !== win.top) throw new Error(`${s.side}: window top ${win.top}, highest level at ${top}`);
  if (win.count === 0 && deep.n > 0) throw new Error(`${s.side}: empty window above ${deep.n} deep levels`);
  for (let j = 1; j < deep.n; j++) if (!(deep.keyAt(j - 1) < deep.keyAt(j))) throw new Error(`${s.side}: deep keys not ascending at ${j}`);
  if (deep.n > 0 && !(deep.keyAt(deep.n - 1) < win.base)) throw new Error(`${s.side}: deep level at or above the window`);
  for (let j = 0; j < deep.n; j++) if (deep.sizeAt(j) === 0) throw new Error(`${s.side}: zero size stored in deep`);
  // Reads by rank (the window's rank cache) must agree with the slots.
  for (let i = 0, slot = win.top; i < win.count; i++, slot = win.below(slot)) {
    if (win.keyAtRank(i) !== win.base + slot || win.sizeAtRank(i) !== win.sizeAt(slot)) throw new Error(`${s.side}: window rank ${i} disagrees with slot ${slot}`);
  }
}

export function checkInvariants(book: OrderBook): void {
  checkSide(sideInternals(book, 'bid'));
  checkSide(sideInternals(book, 'ask'));
}
