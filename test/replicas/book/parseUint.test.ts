import fc from 'fast-check';
import { PARSE_INVALID, PARSE_NOT_SAFE, parseBigUint, parseDigits, parseSafeUint } from '../../../src/replicas/book/parseUint';

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

  it('rejects what is not a string', () => {
    expect(parseSafeUint(12 as unknown as string)).toBe(PARSE_INVALID);
    expect(parseSafeUint(null as unknown as string)).toBe(PARSE_INVALID);
  });

  it('takes another spelling only at its exact value', () => {
    expect(parseSafeUint('5e2')).toBe(500);
    expect(parseSafeUint(' 12')).toBe(12);
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
    // Any short string: a value is returned only when the string denotes exactly that integer.
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789.eE+-x '), maxLength: 17 }), (s) => {
        const v = parseSafeUint(s);
        if (v >= 0) {
          expect(Number.isSafeInteger(v)).toBe(true);
          expect(Number(s)).toBe(v);
          if (v === 0) expect(s).toMatch(/^0+$/);
        }
      }),
      { seed: 6, numRuns: 2000 },
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
