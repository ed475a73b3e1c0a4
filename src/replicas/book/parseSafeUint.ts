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

/**
 * Converts a Uint64 decimal string (digits only, `^[0-9]+$` as the protocol's `Uint64`: no
 * sign, space, exponent, point or `0x` / `0o` / `0b` prefix; leading zeros allowed) to a safe
 * integer, without ever letting a wrong number in: one pass over the characters, each
 * checked to be a digit.
 *
 * Why not the native conversion (`+s`): the strings the book receives are sliced out of the
 * frame text by the feed decoder (new strings, no cached hash), and on those `+s` is a call
 * into the runtime, about twice the cost of this loop (27 against 14 ns a value, measured
 * in benchmarks/README.md); it is faster only on strings whose integer value the engine has
 * cached (short strings from `JSON.parse`, which internalizes them), and it reads spellings
 * that are not Uint64 strings (`'1e3'`, `' 5'`), which then need a check of their own.
 * (Small on purpose: it is inlined twice into the frame loop.)
 *
 * @returns the value, {@link PARSE_INVALID} (not a string, empty, a non-digit character) or
 *   {@link PARSE_NOT_SAFE} (above 2^53 - 1: the caller takes the bigint path, never a rounded number).
 * @example parseSafeUint('00125') === 125; parseSafeUint('1e3') === PARSE_INVALID
 */
export function parseSafeUint(s: string): number {
  // The typeof guard costs nothing on strings and keeps a stray number or null out of the book.
  return typeof s === 'string' ? parseDigits(s) : PARSE_INVALID;
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
