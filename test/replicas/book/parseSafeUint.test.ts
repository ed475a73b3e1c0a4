import fc from 'fast-check';
import { PARSE_INVALID, PARSE_NOT_SAFE, parseBigUint, parseDigits, parseSafeUint } from '../../../src/replicas/book/parseSafeUint';
import { weirdNumberArb } from './bookTestUtil';

describe('parseSafeUint', () => {
  it('parses digit strings, leading zeros included', () => {
    expect(parseSafeUint('0')).toBe(0);
    expect(parseSafeUint('000')).toBe(0);
    expect(parseSafeUint('7')).toBe(7);
    expect(parseSafeUint('00125')).toBe(125);
    expect(parseSafeUint('123456789012345')).toBe(123456789012345);
    expect(parseSafeUint('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('reports values above 2^53 - 1 instead of rounding them', () => {
    expect(parseSafeUint('9007199254740992')).toBe(PARSE_NOT_SAFE);
    expect(parseSafeUint('9007199254740993')).toBe(PARSE_NOT_SAFE);
    expect(parseSafeUint('18446744073709551615')).toBe(PARSE_NOT_SAFE);
    expect(parseSafeUint('1'.repeat(400))).toBe(PARSE_NOT_SAFE);
  });

  it.each(['', ' ', '-1', '-0', '1.5', '0.0', '1.0000000000000001', '1e-400', 'NaN', 'Infinity', '1_000', '１'])('rejects %j', (s) => {
    expect(parseSafeUint(s)).toBe(PARSE_INVALID);
  });

  // Spellings JS reads as exact integers: none is a Uint64 string (issue item 11).
  it.each([
    ['0x10', 16],
    ['1e3', 1000],
    [' 20', 20],
    ['0b11', 3],
    ['0o17', 15],
    ['+5', 5],
    ['5 ', 5],
    ['\n7', 7],
    ['\u00a012', 12],
    ['1.0', 1],
    ['12.', 12],
    ['.5e1', 5],
    ['5e2', 500],
    ['1.5e4', 15000],
    ['1e004', 10000],
    ['1.234567e10', 12345670000],
    ['0xFFFFFFFFFFFFF', 0xfffffffffffff],
    ['\u00a00xFFFFFFFFFF', 0xffffffffff],
    ['1E2', 100],
    ['1e+3', 1000],
  ])('rejects %j (which JS reads as %d)', (s, asNumber) => {
    expect(Number(s)).toBe(asNumber);
    expect(parseSafeUint(s)).toBe(PARSE_INVALID);
  });

  it('rejects what is not a string', () => {
    expect(parseSafeUint(12 as unknown as string)).toBe(PARSE_INVALID);
    expect(parseSafeUint(null as unknown as string)).toBe(PARSE_INVALID);
  });

  it('parses multiples of 100 and every length exactly', () => {
    expect(parseSafeUint('100')).toBe(100);
    expect(parseSafeUint('1000000')).toBe(1_000_000);
    expect(parseSafeUint('900719925474000')).toBe(900719925474000);
    for (let len = 1; len <= 16; len++) expect(parseSafeUint('9'.repeat(len))).toBe(Number('9'.repeat(len)) <= Number.MAX_SAFE_INTEGER ? Number('9'.repeat(len)) : PARSE_NOT_SAFE);
  });

  it('agrees with the strict digit parser on every digit string, and never returns a wrong value', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,22}$/), (s) => {
        expect(parseSafeUint(s)).toBe(parseDigits(s));
        const v = parseSafeUint(s);
        if (v >= 0) expect(BigInt(v)).toBe(BigInt(s));
        else expect(BigInt(s) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
      }),
      { seed: 5, numRuns: 500 },
    );
    // Any short string: a value is returned only for digits only, at their exact value.
    fc.assert(
      fc.property(weirdNumberArb, (s) => {
        const v = parseSafeUint(s);
        if (v >= 0) {
          expect(s).toMatch(/^[0-9]+$/);
          expect(BigInt(v)).toBe(BigInt(s));
        } else expect(v === PARSE_NOT_SAFE).toBe(/^[0-9]+$/.test(s));
      }),
      { seed: 6, numRuns: 20_000 },
    );
  });
});

describe('parseSafeUint on values sliced out of a text (what the feed decoder hands the book)', () => {
  it('agrees with a BigInt model: values, leading zeros, beyond 2^53 up to 2^64 - 1', () => {
    const valueArb = fc.oneof(
      fc.bigInt(0n, 2_000_000n),
      fc.bigInt(BigInt(Number.MAX_SAFE_INTEGER) - 5n, BigInt(Number.MAX_SAFE_INTEGER) + 5n),
      fc.bigInt(0n, 2n ** 64n - 1n),
    );
    const textArb = fc.array(fc.record({ v: valueArb, zeros: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(textArb, (vals) => {
        const text = vals.map(({ v, zeros }) => '0'.repeat(zeros) + v.toString()).join(',');
        let pos = 0;
        for (const { v } of vals) {
          const end = text.indexOf(',', pos);
          const s = text.slice(pos, end < 0 ? text.length : end);
          pos = (end < 0 ? text.length : end) + 1;
          expect(parseSafeUint(s)).toBe(v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : PARSE_NOT_SAFE);
        }
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});

describe('parseBigUint', () => {
  it('parses any Uint64 exactly and rejects the rest', () => {
    expect(parseBigUint('18446744073709551615')).toBe(2n ** 64n - 1n);
    expect(parseBigUint('9007199254740993')).toBe(9007199254740993n);
    expect(parseBigUint('18446744073709551616')).toBeUndefined();
    expect(parseBigUint('1e3')).toBeUndefined();
    expect(parseBigUint('')).toBeUndefined();
    expect(parseBigUint('-1')).toBeUndefined();
  });
});
