/**
 * Parsing of the book's Uint64 decimal strings (prices in ticks, sizes in base lots) on the
 * hot path. The fast parser validates and converts without allocating; values that do not
 * fit a safe integer are reported so the caller switches to the exact bigint path. Valid
 * text is what the protocol's `Uint64` accepts (`isUint64String`): `^[0-9]+$`, at most
 * 2^64 - 1.
 */
import { isUint64String, UINT64_MAX } from '../../protocol';

/** Returned by {@link parseSafeUint} when the text is not a decimal integer at all. */
export const PARSE_INVALID = -1;
/** Returned by {@link parseSafeUint} when the text is a decimal integer above 2^53 - 1. */
export const PARSE_NOT_SAFE = -2;

/**
 * 2^53 - 1 as a literal: no global (`Number`, `Math`) is read per call. Where the code runs
 * in a `vm` context (jest runs tests in one), every global read goes through the context's
 * interceptor, which made parsing (and loading a 250,000-level snapshot) about 20 times slower.
 */
const MAX_SAFE = 9007199254740991;

/** 10^i for i <= 16: the least value with i + 1 digits. */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16];

/**
 * Converts a Uint64 decimal string (digits only, `^[0-9]+$` as the protocol's `Uint64`: no
 * sign, space, exponent, point or `0x` / `0o` / `0b` prefix; leading zeros allowed) to a safe
 * integer, without ever letting a wrong number in.
 *
 * The first try is the native conversion (`+s`, the fastest), taken only when the text is
 * certainly plain digits of that value: the first character is a digit 1-9 (no sign, space,
 * prefix or leading zero), and the value is at most 2^53 - 1, has at least as many digits as
 * the text has characters and is not a multiple of 100. Every other spelling JS reads as a
 * number spends a character without adding a digit (a point, a space), or is an exponent
 * form: `'1e2'`, `'1.5e4'`, `'1e004'` keep the digit count only because the exponent appends
 * at least two zeros, hence the multiple of 100. Everything else (zero, leading zeros, long
 * strings, multiples of 100, anything invalid) goes through {@link parseDigits}, which reads
 * digits only. (Small on purpose: it is inlined four times into the frame loop.)
 *
 * @returns the value, {@link PARSE_INVALID} (not a string, empty, a non-digit character) or
 *   {@link PARSE_NOT_SAFE} (above 2^53 - 1: the caller takes the bigint path, never a rounded number).
 * @example parseSafeUint('00125') === 125; parseSafeUint('1e3') === PARSE_INVALID
 */
export function parseSafeUint(s: string): number {
  // The typeof guard costs nothing on strings and keeps a stray number or null out of the book.
  if (typeof s === 'string') {
    const c = s.charCodeAt(0);
    const v = +s;
    if (c > 48 && c < 58 && v <= MAX_SAFE && v >= POW10[s.length - 1]! && v % 100 !== 0) return v;
  }
  return parseDigits(s);
}

/**
 * The strict path of {@link parseSafeUint}: digits only (leading zeros allowed), one pass;
 * {@link PARSE_INVALID} for what is not a string.
 * @internal exported for tests
 */
export function parseDigits(s: string): number {
  if (typeof s !== 'string') return PARSE_INVALID;
  const len = s.length;
  if (len === 0) return PARSE_INVALID;
  let v = 0;
  for (let i = 0; i < len; i++) {
    const d = s.charCodeAt(i) - 48;
    // One unsigned compare rejects every non-digit.
    if (d >>> 0 > 9) return PARSE_INVALID;
    // Exact while v stays <= MAX_SAFE; once above, later steps only grow it (no wrap back).
    v = v * 10 + d;
  }
  return v <= MAX_SAFE ? v : PARSE_NOT_SAFE;
}

/**
 * Parses a Uint64 decimal string exactly, or returns undefined when it is not one
 * (not digits only, or above 2^64 - 1).
 */
export function parseBigUint(s: string): bigint | undefined {
  return isUint64String(s) ? BigInt(s) : undefined;
}

/** True when `v` is an unsigned 64-bit integer. */
export function isUint64Bigint(v: bigint): boolean {
  return v >= 0n && v <= UINT64_MAX;
}
