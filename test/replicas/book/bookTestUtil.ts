/** Helpers shared by the order book tests. */
import type { PriceLevel } from '../../../src/protocol';

/** A wire level from numbers or bigints. */
export const L = (price: number | bigint | string, size: number | bigint | string): PriceLevel => ({
  price_ticks: String(price),
  size_base_lots: String(size),
});

/** `n` bid levels starting at `top` going down by `step`, sizes 1, 2, 3, ... */
export function bidLadder(top: number, n: number, step = 1): PriceLevel[] {
  return Array.from({ length: n }, (_, i) => L(top - i * step, i + 1));
}

/** `n` ask levels starting at `top` going up by `step`, sizes 1, 2, 3, ... */
export function askLadder(top: number, n: number, step = 1): PriceLevel[] {
  return Array.from({ length: n }, (_, i) => L(top + i * step, i + 1));
}

export const TWO_53 = 2n ** 53n;
export const UINT64_MAX = 2n ** 64n - 1n;
