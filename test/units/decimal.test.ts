/** Exact decimal helpers: parsing, rounding division, ratio printing. */
import fc from 'fast-check';
import { InvalidParameterError } from '../../src/errors';
import { divideRounded, formatRatio, formatScaled, parseDecimal, ROUNDING_MODES, toBigInt } from '../../src/units';

const RUNS = { seed: 20240611, numRuns: 300 } as const;
const big = fc.bigInt(-(1n << 80n), 1n << 80n);
const positive = fc.bigInt(1n, 1n << 70n);
const abs = (v: bigint) => (v < 0n ? -v : v);

/** value of decimal text as a reduced-free rational [num, den]. */
function rational(text: string): [bigint, bigint] {
  const { units, scale } = parseDecimal(text);
  return [units, 10n ** BigInt(scale)];
}

describe('parseDecimal / formatScaled', () => {
  test('round-trip through canonical text (no trailing zeros, no leading zeros, no "-0")', () => {
    fc.assert(
      fc.property(big, fc.nat(30), (units, scale) => {
        const text = formatScaled(units, scale);
        expect(text).toMatch(/^-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/);
        const [n, d] = rational(text);
        expect(n * 10n ** BigInt(scale)).toBe(units * d);
      }),
      RUNS,
    );
  });

  test('accepts digits with an optional sign and fraction only', () => {
    expect(parseDecimal('-0012.3400')).toEqual({ units: -123400n, scale: 4 });
    expect(parseDecimal('7')).toEqual({ units: 7n, scale: 0 });
    for (const bad of ['', '1.', '.5', '+1', '1e5', ' 1', '1 ', '--1', '1,5', 'abc', '0x10', 'NaN', 'Infinity']) {
      expect(() => parseDecimal(bad, 'price')).toThrow(InvalidParameterError);
    }
    expect(() => parseDecimal(12 as unknown as string, 'price')).toThrow(/price/);
  });

  test('toBigInt takes bigint, integer text, or a safe-integer number (what the book returns)', () => {
    expect(toBigInt('-18446744073709551617')).toBe(-18446744073709551617n);
    expect(toBigInt(5n)).toBe(5n);
    expect(toBigInt(64994)).toBe(64994n);
    expect(toBigInt(-Number.MAX_SAFE_INTEGER)).toBe(-9007199254740991n);
    expect(() => toBigInt('1.0', 'ticks')).toThrow(/ticks/);
    // A number that may already have lost precision, or is not an integer, is refused by name.
    expect(() => toBigInt(2 ** 53, 'ticks')).toThrow(/invalid ticks 9007199254740992: expected an integer as bigint, decimal text or a safe-integer number/);
    expect(() => toBigInt(1.5, 'ticks')).toThrow(InvalidParameterError);
    expect(() => toBigInt(Number.NaN, 'ticks')).toThrow(InvalidParameterError);
  });
});

describe('divideRounded', () => {
  test('every mode returns one of the two integers around the exact quotient, as specified', () => {
    fc.assert(
      fc.property(big, positive, fc.boolean(), (n, d, negDen) => {
        const den = negDen ? -d : d;
        const floor = n >= 0n === den > 0n || n % den === 0n ? n / den : n / den - 1n; // mathematical floor
        expect(divideRounded(n, den, 'floor')).toBe(floor);
        const exact = floor * den === n;
        expect(divideRounded(n, den, 'ceil')).toBe(exact ? floor : floor + 1n);
        expect(divideRounded(n, den, 'trunc')).toBe(n / den);
        // Distance from the exact value in units of 1/(2|den|): compare 2|n - q*den| with |den|.
        const absDen = abs(den);
        for (const mode of ['half-up', 'half-even'] as const) {
          const q = divideRounded(n, den, mode);
          const twiceDist = 2n * abs(n - q * den);
          expect(twiceDist <= absDen).toBe(true);
          if (twiceDist === absDen) {
            if (mode === 'half-even') expect(q % 2n).toBe(0n);
            else expect(abs(q * den) > abs(n)).toBe(true); // half-up: away from zero
          }
        }
      }),
      RUNS,
    );
  });

  test('ties', () => {
    expect([5n, -5n, 7n, -7n].map((n) => divideRounded(n, 2n, 'half-up'))).toEqual([3n, -3n, 4n, -4n]);
    expect([5n, -5n, 7n, -7n].map((n) => divideRounded(n, 2n, 'half-even'))).toEqual([2n, -2n, 4n, -4n]);
    expect([5n, -5n].map((n) => divideRounded(n, 2n, 'floor'))).toEqual([2n, -3n]);
    expect([5n, -5n].map((n) => divideRounded(n, 2n, 'ceil'))).toEqual([3n, -2n]);
  });
});

describe('formatRatio', () => {
  test('exact whenever the denominator has only the prime factors 2 and 5', () => {
    fc.assert(
      fc.property(big, fc.nat(40), fc.nat(40), (n, a, b) => {
        const d = 2n ** BigInt(a) * 5n ** BigInt(b);
        const [pn, pd] = rational(formatRatio(n, d));
        expect(pn * d).toBe(n * pd);
      }),
      RUNS,
    );
  });

  test('a ratio without a finite expansion throws unless maxDecimals is given', () => {
    expect(() => formatRatio(1n, 3n, {}, 'price')).toThrow(/price.*maxDecimals/);
    expect(formatRatio(1n, 3n, { maxDecimals: 4 })).toBe('0.3333');
    expect(formatRatio(2n, 3n, { maxDecimals: 4 })).toBe('0.6667');
    expect(formatRatio(2n, 3n, { maxDecimals: 4, rounding: 'floor' })).toBe('0.6666');
    expect(formatRatio(-2n, 3n, { maxDecimals: 0, rounding: 'trunc' })).toBe('0');
    expect(formatRatio(1n, 8n, { maxDecimals: 2 })).toBe('0.12');
    expect(formatRatio(1n, 8n, { maxDecimals: 5 })).toBe('0.125');
    expect(() => formatRatio(1n, 0n)).toThrow(InvalidParameterError);
    expect(() => formatRatio(1n, 3n, { maxDecimals: -1 })).toThrow(/maxDecimals/);
  });

  test('with maxDecimals the result is within one last-place unit, on the side the mode asks', () => {
    fc.assert(
      fc.property(big, positive, fc.nat(12), fc.constantFrom(...ROUNDING_MODES), (n, d, max, rounding) => {
        const [rn, rd] = rational(formatRatio(n, d, { maxDecimals: max, rounding }));
        expect(rd <= 10n ** BigInt(max)).toBe(true);
        // |rn/rd - n/d| < 10^-max  <=>  |rn*d - n*rd| * 10^max < rd*d
        const diff = rn * d - n * rd;
        expect(abs(diff) * 10n ** BigInt(max) < rd * d).toBe(true);
        if (rounding === 'floor') expect(diff <= 0n).toBe(true);
        if (rounding === 'ceil') expect(diff >= 0n).toBe(true);
      }),
      RUNS,
    );
  });
});
