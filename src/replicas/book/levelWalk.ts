/**
 * Walking the levels of a number-path side best first: the window's occupancy bitset from
 * its best slot down, one word at a time, then the deep store from its top. Allocates nothing.
 */
import type { BookSide } from './BookSide';
import type { LevelCallback } from './BookSideReader';
import { small, type TopCache } from './TopCache';
import { lowerBoundFromTop } from './topSearch';

/**
 * Writes the prices and sizes of the best `count` levels of a number-path side (fewer when it
 * holds fewer) to `prices` / `sizes` from index 0, as small integers where they are ones;
 * returns how many it wrote.
 */
export function fillLevels(side: BookSide, count: number, prices: number[], sizes: number[]): number {
  const total = side.n < count ? side.n : count;
  let i = 0;
  const win = side.win;
  if (total > 0 && win.count > 0) {
    const wsizes = win.sizes;
    const occ = win.occ;
    const base = win.base;
    let w = win.top >>> 5;
    // The top is the highest set bit: the whole word is at or below it.
    let bits = occ[w]!;
    while (i < total) {
      while (bits === 0 && w > 0) bits = occ[--w]!;
      if (bits === 0) break;
      const b = 31 - Math.clz32(bits);
      bits ^= 1 << b;
      const slot = (w << 5) | b;
      prices[i] = small(side.keyOf(base + slot));
      sizes[i++] = small(wsizes[slot]!);
    }
  }
  const deep = side.deep;
  for (let j = deep.n - 1; i < total; i++, j--) {
    prices[i] = small(side.keyOf(deep.keys[j]!));
    sizes[i] = small(deep.sizes[j]!);
  }
  return total;
}

/** Calls `cb` for the best `count` levels of a number-path side (count <= its levels). */
export function walkLevels(side: BookSide, count: number, cb: LevelCallback): void {
  let i = 0;
  const win = side.win;
  if (win.count > 0) {
    const sizes = win.sizes;
    const occ = win.occ;
    const base = win.base;
    let w = win.top >>> 5;
    let bits = occ[w]!;
    while (i < count) {
      while (bits === 0 && w > 0) bits = occ[--w]!;
      if (bits === 0) break;
      const b = 31 - Math.clz32(bits);
      bits ^= 1 << b;
      const slot = (w << 5) | b;
      cb(side.keyOf(base + slot), sizes[slot]!, i++);
    }
  }
  const deep = side.deep;
  for (let j = deep.n - 1; i < count; i++, j--) cb(side.keyOf(deep.keys[j]!), deep.sizes[j]!, i);
}

/**
 * Pushes to `top` the best level of a number-path side ranked below `price` (the side must
 * hold one). `price` need not be a level: it may be one just removed, even above the window.
 */
export function levelBelow(side: BookSide, price: number, top: TopCache): void {
  const k = side.keyOf(price);
  const win = side.win;
  const deep = side.deep;
  const slot = k - win.base;
  if (slot >= 0) {
    const s = slot < win.size ? win.below(slot) : win.top;
    if (s >= 0) top.push(side.keyOf(win.base + s), win.sizes[s]!);
    else top.push(side.keyOf(deep.keys[deep.n - 1]!), deep.sizes[deep.n - 1]!);
    return;
  }
  const j = lowerBoundFromTop(deep.keys, deep.n, k) - 1;
  top.push(side.keyOf(deep.keys[j]!), deep.sizes[j]!);
}
