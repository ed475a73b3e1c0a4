/** Helpers shared by the order book tests. */
import fc from 'fast-check';
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

/**
 * Strings close to numbers: digits with every character JS's number conversion accepts
 * (exponents, points, signs, spaces, `0x` / `0o` / `0b` prefixes and their digits).
 */
export const weirdNumberArb = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'0123456789012345678901234567890123456789.eE+-xXoObBaAfF \t\n\u00a0_'), minLength: 1, maxLength: 17 }),
  // The forms most likely to pass a digit-count check: exponents that append zeros, prefixes.
  fc.tuple(fc.integer({ min: 1, max: 99_999 }), fc.constantFrom('e2', 'E3', 'e+2', 'e004', '.5e4', '.0e3', '.25e6', '00'), fc.constantFrom('', ' ', '\n')).map(([m, e, w]) => `${m}${e}${w}`),
  fc.tuple(fc.constantFrom('0x', '0X', '0o', '0b', ' 0x', '\u00a00x', '+', ' ', '-'), fc.bigInt(1n, 2n ** 60n)).map(([p, v]) => `${p}${p.includes('x') || p.includes('X') ? v.toString(16) : p.includes('o') ? v.toString(8) : p.includes('b') ? v.toString(2) : v}`),
);
