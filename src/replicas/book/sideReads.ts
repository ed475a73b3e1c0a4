/**
 * Reads of one side, best level first (rank 0), on both representations.
 *
 * Number path: reads of up to `topLevels` levels go through the side's {@link TopCache}
 * (kept exact on every change, grown to the deepest such read): plain indexing. Deeper
 * reads walk the window's bitset then the deep store (allocating nothing), except rank
 * reads (`priceAt(i)`) of window levels beyond the top cache, which go through a rank cache
 * rebuilt after a change (it allocates only when it must grow); deep levels are indexed
 * directly. Exact path: the sorted bigint store is indexed directly.
 */
import type { BookSide } from './BookSide';
import type { BigLevelCallback, BookTopView, LevelCallback } from './BookSideReader';
import { toExactNumber } from './BookPrecisionError';
import { fillLevels, walkLevels } from './levelWalk';

function checkRank(side: BookSide, i: number): void {
  const n = side.n;
  if (!(i >= 0 && i < n) || (i | 0) !== i) throw new RangeError(`level index ${i} is out of range (${side.side} side holds ${n} levels)`);
}

/** How many levels a read of `n` visits. */
export function countOf(side: BookSide, n: number): number {
  const len = side.n;
  return n >= len ? len : n > 0 ? Math.floor(n) : 0;
}

// ---- the top cache ----

/**
 * Makes the top cache of a number-path side keep at least `count` levels when `count` is
 * within its limit, growing to twice what it kept at least (so reading rank after rank
 * settles fast); false when `count` is beyond the limit.
 */
export function keepTop(side: BookSide, count: number): boolean {
  const top = side.top;
  if (count <= top.cap) return true;
  if (count > top.limit) return false;
  const twice = 2 * top.cap;
  top.resize(Math.min(top.limit, count > twice ? count : twice));
  fillTop(side);
  return true;
}

/** Refills the top cache of a number-path side from its levels (after a resize or a load). */
export function fillTop(side: BookSide): void {
  const top = side.top;
  top.n = fillLevels(side, top.cap, top.prices, top.sizes);
  side.syncTopFloor();
}

/** The reused view of the best `n` levels (see `BookSideReader.topView`). */
export function topView(side: BookSide, n: number): BookTopView {
  const view = side.view;
  const count = countOf(side, n);
  const top = side.top;
  if (count <= top.n || (!side.big && keepTop(side, count))) view.show(top.prices, top.sizes, count);
  else view.fill(side, count);
  return view;
}

// ---- rank reads beyond the top cache ----

/**
 * Makes the rank cache hold at least the best `i + 1` window levels: keys and sizes in rank
 * order, rebuilt after a change. It grows by doubling, so reading every rank in order costs
 * O(1) per level, and reading a few ranks after each update costs one walk of them.
 */
function cacheRank(side: BookSide, i: number): void {
  const valid = side.cacheMutations === side.mutations;
  if (valid && i < side.cacheLength) return;
  const win = side.win;
  // Doubling only while the cache is valid: after a change, rebuild just what is read.
  const want = Math.min(win.count, Math.max(16, i + 1, valid ? 2 * side.cacheLength : 0));
  if (side.cacheKeys.length < want) {
    side.cacheKeys = new Float64Array(want);
    side.cacheSizes = new Float64Array(want);
  }
  const keys = side.cacheKeys;
  const sizes = side.cacheSizes;
  const occ = win.occ;
  const base = win.base;
  let w = win.top >>> 5;
  let bits = occ[w]!;
  for (let r = 0; r < want; r++) {
    while (bits === 0) bits = occ[--w]!;
    const b = 31 - Math.clz32(bits);
    bits ^= 1 << b;
    const slot = (w << 5) | b;
    keys[r] = base + slot;
    sizes[r] = win.sizes[slot]!;
  }
  side.cacheLength = want;
  side.cacheMutations = side.mutations;
}

/** Number-path key of rank `i` (valid) beyond the top cache's limit. */
function keyAt(side: BookSide, i: number): number {
  const win = side.win;
  if (i < win.count) {
    cacheRank(side, i);
    return side.cacheKeys[i]!;
  }
  const deep = side.deep;
  return deep.keys[deep.n - 1 - (i - win.count)]!;
}

/** Number-path size of rank `i` (valid) beyond the top cache's limit. */
function sizeOfRank(side: BookSide, i: number): number {
  const win = side.win;
  if (i < win.count) {
    cacheRank(side, i);
    return side.cacheSizes[i]!;
  }
  const deep = side.deep;
  return deep.sizes[deep.n - 1 - (i - win.count)]!;
}

/** True when rank `i` is a valid index of a number-path side within the top cache's limit (then kept). */
function inTop(side: BookSide, i: number): boolean {
  // `i >>> 0 === i`: a non-negative integer below 2^32. The cache is empty on the exact path.
  return i >>> 0 === i && (i < side.top.n || (i < side.n && !side.big && keepTop(side, i + 1)));
}

export function priceAt(side: BookSide, i: number): number {
  if (inTop(side, i)) return side.top.prices[i]!;
  checkRank(side, i);
  if (!side.big) return side.keyOf(keyAt(side, i));
  const ex = side.exact;
  return toExactNumber('price', side.bigKeyOf(ex.keys[ex.n - 1 - i]!));
}

export function sizeAt(side: BookSide, i: number): number {
  if (inTop(side, i)) return side.top.sizes[i]!;
  checkRank(side, i);
  if (!side.big) return sizeOfRank(side, i);
  const ex = side.exact;
  return toExactNumber('size', ex.sizes[ex.n - 1 - i]!);
}

export function priceAtBig(side: BookSide, i: number): bigint {
  if (!side.big) return BigInt(priceAt(side, i));
  checkRank(side, i);
  const ex = side.exact;
  return side.bigKeyOf(ex.keys[ex.n - 1 - i]!);
}

export function sizeAtBig(side: BookSide, i: number): bigint {
  if (!side.big) return BigInt(sizeAt(side, i));
  checkRank(side, i);
  const ex = side.exact;
  return ex.sizes[ex.n - 1 - i]!;
}

// ---- callbacks ----

/** Calls `cb` for the best `n` levels; returns how many. */
export function forEach(side: BookSide, n: number, cb: LevelCallback): number {
  const count = countOf(side, n);
  const top = side.top;
  if (count <= top.n || (!side.big && keepTop(side, count))) {
    const prices = top.prices;
    const sizes = top.sizes;
    for (let i = 0; i < count; i++) cb(prices[i]!, sizes[i]!, i);
    return count;
  }
  if (side.big) {
    const ex = side.exact;
    for (let i = 0; i < count; i++) {
      const j = ex.n - 1 - i;
      cb(toExactNumber('price', side.bigKeyOf(ex.keys[j]!)), toExactNumber('size', ex.sizes[j]!), i);
    }
    return count;
  }
  walkLevels(side, count, cb);
  return count;
}

/** {@link forEach} with exact values. */
export function forEachBig(side: BookSide, n: number, cb: BigLevelCallback): number {
  const count = countOf(side, n);
  if (side.big) {
    const ex = side.exact;
    for (let i = 0; i < count; i++) {
      const j = ex.n - 1 - i;
      cb(side.bigKeyOf(ex.keys[j]!), ex.sizes[j]!, i);
    }
    return count;
  }
  return forEach(side, count, (p, s, i) => cb(BigInt(p), BigInt(s), i));
}
