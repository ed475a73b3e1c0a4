/** Scalar wire types: every valid value accepted (boundaries included), everything else refused. */
import fc from 'fast-check';
import {
  Address,
  encodeBase58,
  Int32,
  Int64,
  INT64_MAX,
  INT64_MIN,
  isBase58OfLength,
  NonNegInt32,
  OrderId,
  PositiveInt32,
  TimestampNs,
  Uint64,
  UINT64_MAX,
} from '../../src/protocol';

const RUNS = { seed: 7011, numRuns: 400 } as const;
const ok = (schema: { safeParse(v: unknown): { success: boolean } }, v: unknown) => schema.safeParse(v).success;

/** Text that is not an optionally signed run of digits. */
const nonNumeric = fc.oneof(
  fc.constantFrom('', ' ', '1 ', ' 1', '+1', '1.0', '1e3', '0x10', '1_000', '--1', '-', 'NaN', 'Infinity', '١٢', '12a'),
  fc.string().filter((s) => !/^-?[0-9]+$/.test(s)),
);

describe('Uint64 and TimestampNs', () => {
  test.each([
    ['Uint64', Uint64],
    ['TimestampNs', TimestampNs],
  ])('%s accepts every value in [0, 2^64-1] as decimal text', (_, schema) => {
    fc.assert(fc.property(fc.bigInt(0n, UINT64_MAX), (v) => ok(schema, v.toString())), RUNS);
    expect(ok(schema, '0')).toBe(true);
    expect(ok(schema, UINT64_MAX.toString())).toBe(true);
    expect(ok(schema, '9007199254740993')).toBe(true); // 2^53 + 1: kept as text, exact
  });

  test.each([
    ['Uint64', Uint64],
    ['TimestampNs', TimestampNs],
  ])('%s refuses values above 2^64-1, negatives, non-numeric text and non-strings', (_, schema) => {
    fc.assert(fc.property(fc.bigInt(UINT64_MAX + 1n, UINT64_MAX << 64n), (v) => !ok(schema, v.toString())), RUNS);
    fc.assert(fc.property(fc.bigInt(-(1n << 70n), -1n), (v) => !ok(schema, v.toString())), RUNS);
    fc.assert(fc.property(nonNumeric, (s) => !ok(schema, s)), RUNS);
    expect(ok(schema, '18446744073709551616')).toBe(false);
    expect(ok(schema, '-0')).toBe(false);
    for (const v of [0, 1, 1n, null, undefined, {}, []]) expect(ok(schema, v)).toBe(false);
  });
});

describe('Int64', () => {
  test('accepts every value in [-2^63, 2^63-1]', () => {
    fc.assert(fc.property(fc.bigInt(INT64_MIN, INT64_MAX), (v) => ok(Int64, v.toString())), RUNS);
    expect(ok(Int64, INT64_MIN.toString())).toBe(true);
    expect(ok(Int64, INT64_MAX.toString())).toBe(true);
  });

  test('refuses values out of range and non-numeric text', () => {
    fc.assert(fc.property(fc.bigInt(INT64_MAX + 1n, 1n << 100n), (v) => !ok(Int64, v.toString()) && !ok(Int64, (-v - 1n).toString())), RUNS);
    fc.assert(fc.property(nonNumeric, (s) => !ok(Int64, s)), RUNS);
    expect(ok(Int64, (INT64_MIN - 1n).toString())).toBe(false);
    expect(ok(Int64, (INT64_MAX + 1n).toString())).toBe(false);
    expect(ok(Int64, 5)).toBe(false);
  });
});

describe('JSON integers', () => {
  test('Int32, NonNegInt32 and PositiveInt32 bounds', () => {
    fc.assert(fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (v) => ok(Int32, v) && ok(NonNegInt32, v) === v >= 0 && ok(PositiveInt32, v) === v >= 1), RUNS);
    for (const v of [2 ** 31, -(2 ** 31) - 1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1', 1n]) expect(ok(Int32, v)).toBe(false);
  });
});

describe('base58 identifiers', () => {
  const bytesOf = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
  const otherLength = (n: number) => fc.integer({ min: 0, max: 64 }).filter((l) => l !== n).chain((l) => bytesOf(l));

  test('Address accepts base58 of exactly 32 bytes (leading zero bytes included)', () => {
    fc.assert(fc.property(bytesOf(32), (b) => ok(Address, encodeBase58(b))), RUNS);
    expect(ok(Address, encodeBase58(new Uint8Array(32)))).toBe(true);
    expect(ok(Address, encodeBase58(new Uint8Array(32).fill(255)))).toBe(true);
  });

  test('Address refuses other byte lengths and non-base58 text', () => {
    fc.assert(fc.property(otherLength(32), (b) => !ok(Address, encodeBase58(b))), RUNS);
    const valid = encodeBase58(new Uint8Array(32).fill(7));
    for (const ch of ['0', 'O', 'I', 'l', '+', '/', ' ']) expect(ok(Address, valid.slice(0, -1) + ch)).toBe(false);
    expect(ok(Address, '')).toBe(false);
    expect(ok(Address, 42)).toBe(false);
  });

  test('OrderId accepts exactly 28 bytes and refuses other lengths', () => {
    fc.assert(fc.property(bytesOf(28), (b) => ok(OrderId, encodeBase58(b))), RUNS);
    fc.assert(fc.property(otherLength(28), (b) => !ok(OrderId, encodeBase58(b))), RUNS);
    expect(ok(OrderId, encodeBase58(new Uint8Array(32).fill(1)))).toBe(false);
  });

  test('only the canonical encoding is accepted', () => {
    fc.assert(
      fc.property(bytesOf(32), (b) => {
        const s = encodeBase58(b);
        // An extra leading '1' is a leading zero byte: 33 bytes, so refused.
        return isBase58OfLength(s, 32) && !isBase58OfLength(`1${s}`, 32);
      }),
      RUNS,
    );
  });
});
