/**
 * Scalar wire types of the exchange API (section 2.1 of exchange-api-v1.md).
 *
 * Quantities travel as decimal strings and stay strings in every record: nothing in this
 * module converts them to `number`, so no precision is ever lost. Use `units/` (bigint)
 * to compute with them. Schemas are zod/mini (functional API, so a bundle keeps only what it uses).
 */
import bs58 from 'bs58';
import { isBase58OfByteLength } from './base58Length';
import * as z from 'zod/mini';

export const UINT64_MAX = (1n << 64n) - 1n;
export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

const UINT64_RE = /^[0-9]+$/;
const INT64_RE = /^-?[0-9]+$/;
const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]+$/;

/** True when `s` is a decimal string of an unsigned 64-bit integer. */
export function isUint64String(s: string): boolean {
  if (!UINT64_RE.test(s)) return false;
  // 20 digits is the widest value below 2^64; longer strings may still be small with leading zeros.
  if (s.length < 20) return true;
  return BigInt(s) <= UINT64_MAX;
}

/** True when `s` is a decimal string of a signed 64-bit integer. */
/**
 * A validated unsigned wire integer (decimal digits) as a bigint. Up to 15 digits the value
 * is exact as a double, and `BigInt(number)` costs a third of `BigInt(string)`: the common
 * case of a seq on the hot path.
 */
export function uint64FromDigits(digits: string): bigint {
  return digits.length <= 15 ? BigInt(+digits) : BigInt(digits);
}

export function isInt64String(s: string): boolean {
  if (!INT64_RE.test(s)) return false;
  if (s.length < 19) return true;
  const v = BigInt(s);
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** Decodes base58 text to bytes, or returns undefined when it is not base58. */
export function decodeBase58(s: string): Uint8Array | undefined {
  if (!BASE58_RE.test(s)) return undefined;
  try {
    return bs58.decode(s);
  } catch {
    return undefined;
  }
}

/** Encodes bytes as base58 text. */
export function encodeBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/**
 * True when `s` is canonical base58 of exactly `length` bytes, by decoding and re-encoding
 * with bs58. The schemas use the allocation-free {@link isBase58OfByteLength}, which a
 * property test checks against this one.
 */
export function isBase58OfLength(s: string, length: number): boolean {
  const bytes = decodeBase58(s);
  return bytes !== undefined && bytes.length === length && bs58.encode(bytes) === s;
}

export const Uint64 = z.string().check(
  z.refine(isUint64String, { message: 'expected an unsigned 64-bit integer as a decimal string (0 to 18446744073709551615)' }),
);
export type Uint64 = z.infer<typeof Uint64>;

export const Int64 = z.string().check(
  z.refine(isInt64String, { message: 'expected a signed 64-bit integer as a decimal string (-9223372036854775808 to 9223372036854775807)' }),
);
export type Int64 = z.infer<typeof Int64>;

export const TimestampNs = z.string().check(z.refine(isUint64String, { message: 'expected Unix nanoseconds as an unsigned 64-bit decimal string' }));
export type TimestampNs = z.infer<typeof TimestampNs>;

export const NullableUint64 = z.nullable(Uint64);
export type NullableUint64 = z.infer<typeof NullableUint64>;

export const ADDRESS_BYTES = 32;
export const ORDER_ID_BYTES = 28;

export const Address = z.string().check(
  z.refine((s) => isBase58OfByteLength(s, ADDRESS_BYTES), { message: 'expected an address: base58 text that decodes to exactly 32 bytes' }),
);
export type Address = z.infer<typeof Address>;

export const OrderId = z.string().check(
  z.refine((s) => isBase58OfByteLength(s, ORDER_ID_BYTES), { message: 'expected an order id: canonical base58 of exactly 28 bytes' }),
);
export type OrderId = z.infer<typeof OrderId>;

export const TokenId = z.string().check(z.minLength(1, 'expected a non-empty token id'));
export type TokenId = z.infer<typeof TokenId>;

export const Cursor = z.string().check(z.minLength(1, 'expected a non-empty opaque cursor'));
export type Cursor = z.infer<typeof Cursor>;

/** An integer within [min, max] (classic zod's `z.number().int().min(min).max(max)`). */
function integerIn(min: number, max: number) {
  return z.number().check(z.int(), z.gte(min), z.lte(max));
}

export const Int32 = integerIn(INT32_MIN, INT32_MAX);
export const NonNegInt32 = integerIn(0, INT32_MAX);
export const PositiveInt32 = integerIn(1, INT32_MAX);
/** int64 carried as a JSON number (Unix ms); kept within the safe-integer range. */
export const Int64Number = integerIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
export const NonNegInteger = integerIn(0, Number.MAX_SAFE_INTEGER);
