/** Market and token unit conversions: exact round trips, no precision loss beyond 2^53, clear refusals. */
import fc from 'fast-check';
import { InvalidParameterError } from '../../src/errors';
import {
  amountToAtoms,
  atomsToAmount,
  baseLotsToSize,
  priceToTicks,
  quoteAmountToQuoteLots,
  quoteLotsToQuoteAmount,
  sizeToBaseLots,
  ticksToPrice,
  type MarketScales,
} from '../../src/units';

const RUNS = { seed: 424242, numRuns: 300 } as const;
const U64_MAX = (1n << 64n) - 1n;
const u64 = fc.bigInt(0n, U64_MAX);
/** Amounts that may be far beyond 2^53 (and beyond u64: the helpers are not limited to it). */
const wide = fc.bigInt(-(1n << 96n), 1n << 96n);
/** Scale factors made of 2s and 5s (every ratio has a finite decimal expansion), as real markets use. */
const decimalScale = fc.tuple(fc.nat(18), fc.nat(18)).map(([a, b]) => 2n ** BigInt(a) * 5n ** BigInt(b));
const anyScale = fc.bigInt(1n, U64_MAX);

const market = (blpbu: bigint, qlpqu: bigint, perTick: bigint): MarketScales => ({
  base_lots_per_base_unit: String(blpbu),
  quote_lots_per_quote_unit: String(qlpqu),
  quote_lots_per_base_unit_per_tick: String(perTick),
});

/** SOL-PERP-like: 1000 lots per SOL, 10^6 quote lots per USDC, one tick = 0.001 USDC. */
const SOL = market(1000n, 1_000_000n, 1000n);

/** The value of decimal text as a fraction, computed independently of the module. */
function fraction(text: string): [bigint, bigint] {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text)!;
  const frac = m[3] ?? '';
  const n = BigInt(m[2]! + frac);
  return [m[1] ? -n : n, 10n ** BigInt(frac.length)];
}

describe('prices', () => {
  test('examples', () => {
    expect(ticksToPrice(SOL, 123450n)).toBe('123.45');
    expect(ticksToPrice(SOL, '1')).toBe('0.001');
    // What `bestBid()` returns on the number path: a safe-integer count of ticks.
    expect(ticksToPrice(SOL, 64994)).toBe('64.994');
    expect(baseLotsToSize(SOL, 1500)).toBe(baseLotsToSize(SOL, 1500n));
    expect(ticksToPrice(SOL, 0n)).toBe('0');
    expect(priceToTicks(SOL, '123.45')).toBe(123450n);
    expect(priceToTicks(SOL, '123.4500000')).toBe(123450n);
    expect(ticksToPrice(SOL, U64_MAX)).toBe('18446744073709551.615');
    expect(priceToTicks(SOL, '18446744073709551.615')).toBe(U64_MAX);
  });

  test('ticks -> price -> ticks is the identity, and the price is exactly ticks * perTick / qlpqu', () => {
    fc.assert(
      fc.property(u64, decimalScale, anyScale, (ticks, qlpqu, perTick) => {
        const m = market(1n, qlpqu, perTick);
        const price = ticksToPrice(m, ticks);
        const [n, d] = fraction(price);
        expect(n * qlpqu).toBe(ticks * perTick * d);
        expect(priceToTicks(m, price)).toBe(ticks);
      }),
      RUNS,
    );
  });

  test('price text -> ticks is exact or refused, never silently rounded', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 1n << 70n), fc.nat(12), (units, scale) => {
        const text = scale ? `${units / 10n ** BigInt(scale)}.${(units % 10n ** BigInt(scale)).toString().padStart(scale, '0')}` : String(units);
        const [n, d] = fraction(text);
        const isMultiple = (n * 1_000_000n) % (d * 1000n) === 0n;
        if (isMultiple) {
          const ticks = priceToTicks(SOL, text);
          expect(ticks * 1000n * d).toBe(n * 1_000_000n);
        } else {
          expect(() => priceToTicks(SOL, text)).toThrow(InvalidParameterError);
        }
      }),
      RUNS,
    );
  });

  test('an off-tick price names the value and the tick size; a rounding mode snaps it', () => {
    let err: unknown;
    try {
      priceToTicks(SOL, '123.4567');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidParameterError);
    expect((err as InvalidParameterError).param).toBe('price');
    expect((err as Error).message).toContain('123.4567');
    expect((err as Error).message).toContain('0.001');
    expect(priceToTicks(SOL, '123.4567', { rounding: 'floor' })).toBe(123456n);
    expect(priceToTicks(SOL, '123.4567', { rounding: 'ceil' })).toBe(123457n);
    expect(priceToTicks(SOL, '123.4565', { rounding: 'half-even' })).toBe(123456n);
  });

  test('a tick whose price has no finite expansion throws unless maxDecimals is given', () => {
    const thirds = market(1n, 3n, 1n);
    expect(() => ticksToPrice(thirds, 1n)).toThrow(/maxDecimals/);
    expect(ticksToPrice(thirds, 1n, { maxDecimals: 6 })).toBe('0.333333');
    expect(ticksToPrice(thirds, 3n)).toBe('1');
    expect(priceToTicks(thirds, '1')).toBe(3n);
    expect(() => priceToTicks(thirds, '0.5')).toThrow(/1\/3/);
  });
});

describe('sizes and quote amounts', () => {
  test('lots -> decimal -> lots is the identity for any lot count, including beyond 2^53', () => {
    fc.assert(
      fc.property(wide, decimalScale, (lots, scale) => {
        const m = market(scale, scale, 1n);
        const size = baseLotsToSize(m, lots);
        expect(sizeToBaseLots(m, size)).toBe(lots);
        const [n, d] = fraction(size);
        expect(n * scale).toBe(lots * d);
        const quote = quoteLotsToQuoteAmount(m, String(lots));
        expect(quote).toBe(size);
        expect(quoteAmountToQuoteLots(m, quote)).toBe(lots);
      }),
      RUNS,
    );
  });

  test('examples and refusals', () => {
    expect(baseLotsToSize(SOL, 1500n)).toBe('1.5');
    expect(sizeToBaseLots(SOL, '0.001')).toBe(1n);
    expect(() => sizeToBaseLots(SOL, '0.0005')).toThrow(/size 0.0005 is not a whole multiple of the base lot size \(0.001\)/);
    expect(sizeToBaseLots(SOL, '0.0005', { rounding: 'half-up' })).toBe(1n);
    expect(quoteLotsToQuoteAmount(SOL, -2_500_000n)).toBe('-2.5');
    expect(quoteAmountToQuoteLots(SOL, '-2.5')).toBe(-2_500_000n);
    expect(() => quoteAmountToQuoteLots(SOL, '1.0000001')).toThrow(InvalidParameterError);
    expect(() => baseLotsToSize(SOL, '1.5')).toThrow(/base lots/);
    expect(() => sizeToBaseLots(SOL, '1e3')).toThrow(/size/);
  });

  test('a market with a zero or malformed scale is refused, naming the field', () => {
    expect(() => baseLotsToSize(market(0n, 1n, 1n), 1n)).toThrow(/base_lots_per_base_unit/);
    expect(() => ticksToPrice({ ...SOL, quote_lots_per_quote_unit: '-1' }, 1n)).toThrow(/quote_lots_per_quote_unit/);
  });
});

describe('token atoms', () => {
  test('atoms -> amount -> atoms is the identity, and the amount is atoms / 10^decimals', () => {
    fc.assert(
      fc.property(wide, fc.nat(36), (atoms, decimals) => {
        const amount = atomsToAmount(atoms, decimals);
        expect(amountToAtoms(amount, decimals)).toBe(atoms);
        const [n, d] = fraction(amount);
        expect(n * 10n ** BigInt(decimals)).toBe(atoms * d);
      }),
      RUNS,
    );
  });

  test('examples and refusals', () => {
    expect(atomsToAmount(1_500_000n, 6)).toBe('1.5');
    expect(atomsToAmount('18446744073709551615', 9)).toBe('18446744073.709551615');
    expect(amountToAtoms('18446744073.709551615', 9)).toBe(U64_MAX);
    expect(atomsToAmount(1_234_567n, 6, { maxDecimals: 2 })).toBe('1.23');
    expect(() => amountToAtoms('1.0000001', 6)).toThrow(/amount 1.0000001/);
    expect(amountToAtoms('1.0000001', 6, { rounding: 'ceil' })).toBe(1_000_001n);
    expect(() => atomsToAmount(1n, -1)).toThrow(/decimals/);
    expect(() => amountToAtoms('1', 1.5)).toThrow(/decimals/);
  });
});
