/**
 * Parsing of the book's Uint64 decimal strings (prices in ticks, sizes in base lots) on the
 * hot path. The fast parser validates and converts in one pass without allocating; values
 * that do not fit a safe integer are reported so the caller switches to the exact bigint path.
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

/**
 * Converts a Uint64 decimal string to a safe integer without ever letting a wrong number in.
 *
 * The strings reach the book already checked as digit strings (the protocol's schema), so
 * the first try is the native conversion, taken only when its result is certainly exact: a
 * positive safe integer read from fewer than 16 characters (rounding needs at least 16
 * significant digits). A string that JS reads as exactly such an integer in another spelling
 * (`'5e2'`, `' 12'`) is taken at that exact value. Everything else (zero, long strings,
 * anything not an exact positive integer) goes through {@link parseDigits}, which accepts
 * digits only.
 *
 * @returns the value, {@link PARSE_INVALID} (not a string, empty, a non-digit character) or
 *   {@link PARSE_NOT_SAFE} (above 2^53 - 1: the caller takes the bigint path, never a rounded number).
 * @example parseSafeUint('00125') === 125; parseSafeUint('1.5') === PARSE_INVALID
 */
export function parseSafeUint(s: string): number {
  // The typeof guard costs nothing on strings and keeps a stray number or null out of the book.
  if (typeof s !== 'string') return PARSE_INVALID;
  const v = +s;
  if (v > 0 && v <= MAX_SAFE && v % 1 === 0 && s.length < 16) return v;
  return parseDigits(s);
}

/**
 * The strict path of {@link parseSafeUint}: digits only (leading zeros allowed), one pass.
 * @internal exported for tests
 */
export function parseDigits(s: string): number {
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
