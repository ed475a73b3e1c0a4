/**
 * Reads of one side, best level first (rank 0), on both representations. `forEach` walks the
 * window's bitset then the deep store and allocates nothing. Rank reads (`priceAt(i)`) of
 * window levels go through a small cache of the best levels in rank order, rebuilt after a
 * change (it allocates only when it must grow); deep levels are indexed directly.
 */
import type { BookSide } from './BookSide';
import { toExactNumber } from './BookPrecisionError';

/** Callback of the number read path: price in ticks, size in base lots, `i` = 0 for the best level. */
export type LevelCallback = (price: number, size: number, i: number) => void;
/** Callback of the exact read path. */
export type BigLevelCallback = (price: bigint, size: bigint, i: number) => void;

function checkRank(side: BookSide, i: number): void {
  const n = side.n;
  if (!(i >= 0 && i < n) || (i | 0) !== i) throw new RangeError(`level index ${i} is out of range (${side.side} side holds ${n} levels)`);
}

/** How many levels a read of `n` visits. */
function countOf(side: BookSide, n: number): number {
  const len = side.n;
  return n >= len ? len : n > 0 ? Math.floor(n) : 0;
}

/**
 * Makes the rank cache hold at least the best `i + 1` window levels: keys and sizes in rank
 * order, rebuilt after a change. It grows by doubling, so reading every rank in order costs
 * O(1) per level, and reading the top few after each update costs one walk of them.
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

/** Number-path key of rank `i`. */
function keyAt(side: BookSide, i: number): number {
  const win = side.win;
  if (i < win.count) {
    cacheRank(side, i);
    return side.cacheKeys[i]!;
  }
  const deep = side.deep;
  return deep.keys[deep.n - 1 - (i - win.count)]!;
}

/** Number-path size of rank `i`. */
function sizeOfRank(side: BookSide, i: number): number {
  const win = side.win;
  if (i < win.count) {
    cacheRank(side, i);
    return side.cacheSizes[i]!;
  }
  const deep = side.deep;
  return deep.sizes[deep.n - 1 - (i - win.count)]!;
}

/** True when rank `i` can be read from the rank cache as it is. */
function cached(side: BookSide, i: number): boolean {
  return (i | 0) === i && i >= 0 && i < side.cacheLength && side.cacheMutations === side.mutations;
}

export function priceAt(side: BookSide, i: number): number {
  if (cached(side, i)) return side.keyOf(side.cacheKeys[i]!);
  checkRank(side, i);
  if (!side.big) return side.keyOf(keyAt(side, i));
  const ex = side.exact;
  return toExactNumber('price', side.bigKeyOf(ex.keys[ex.n - 1 - i]!));
}

export function sizeAt(side: BookSide, i: number): number {
  if (cached(side, i)) return side.cacheSizes[i]!;
  checkRank(side, i);
  if (!side.big) return sizeOfRank(side, i);
  const ex = side.exact;
  return toExactNumber('size', ex.sizes[ex.n - 1 - i]!);
}

export function priceAtBig(side: BookSide, i: number): bigint {
  checkRank(side, i);
  if (!side.big) return BigInt(side.keyOf(keyAt(side, i)));
  const ex = side.exact;
  return side.bigKeyOf(ex.keys[ex.n - 1 - i]!);
}

export function sizeAtBig(side: BookSide, i: number): bigint {
  checkRank(side, i);
  if (!side.big) return BigInt(sizeOfRank(side, i));
  const ex = side.exact;
  return ex.sizes[ex.n - 1 - i]!;
}

/** Calls `cb` for the best `n` levels; returns how many. */
export function forEach(side: BookSide, n: number, cb: LevelCallback): number {
  const count = countOf(side, n);
  if (side.big) {
    const ex = side.exact;
    for (let i = 0; i < count; i++) {
      const j = ex.n - 1 - i;
      cb(toExactNumber('price', side.bigKeyOf(ex.keys[j]!)), toExactNumber('size', ex.sizes[j]!), i);
    }
    return count;
  }
  let i = 0;
  const win = side.win;
  if (count > 0 && win.count > 0) {
    // Walk the occupancy bitset down from the best slot, one word at a time.
    const sizes = win.sizes;
    const occ = win.occ;
    const base = win.base;
    const top = win.top;
    let w = top >>> 5;
    // Bits at or below the top's bit (the top is the highest set bit anyway).
    let bits = occ[w]!;
    for (;;) {
      while (bits === 0) {
        if (--w < 0) break;
        bits = occ[w]!;
      }
      if (w < 0) break;
      const b = 31 - Math.clz32(bits);
      bits ^= 1 << b;
      const slot = (w << 5) | b;
      cb(side.keyOf(base + slot), sizes[slot]!, i);
      if (++i === count) return count;
    }
  }
  const deep = side.deep;
  for (let j = deep.n - 1; i < count; i++, j--) cb(side.keyOf(deep.keys[j]!), deep.sizes[j]!, i);
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
