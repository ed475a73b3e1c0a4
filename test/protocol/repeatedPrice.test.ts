/**
 * The check behind both decode paths' rejection of a book side that lists a price twice
 * (repeatedPrice.ts), against a plain reference: prices compared as numbers (BigInt), every
 * strategy of the check reached (pairwise for a few levels, one ordered pass, the Set).
 */
import fc from 'fast-check';
import type { PriceLevel } from '../../src/protocol';
import { hasRepeatedPrice, repeatedPriceAt, repeatedPriceMessage } from '../../src/protocol/repeatedPrice';

const L = (p: string, s = '1'): PriceLevel => ({ price_ticks: p, size_base_lots: s });
const side = (...prices: (string | number)[]): PriceLevel[] => prices.map((p) => L(String(p)));

/** The reference: the index of the first level whose value an earlier level has, or -1. */
function reference(levels: readonly PriceLevel[]): number {
  const seen = new Set<bigint>();
  for (let i = 0; i < levels.length; i++) {
    const v = BigInt(levels[i]!.price_ticks);
    if (seen.has(v)) return i;
    seen.add(v);
  }
  return -1;
}

const MAX = ((1n << 64n) - 1n).toString();
const range = (from: number, n: number, step: number) => Array.from({ length: n }, (_, i) => from + i * step);

describe('hasRepeatedPrice / repeatedPriceAt', () => {
  test.each<[string, PriceLevel[], number]>([
    ['no level', [], -1],
    ['one level', side(5), -1],
    ['two equal', side(5, 5), 1],
    ['a few, the repeat apart', side(9, 3, 7, 3), 3],
    ['a few, spelled with leading zeros', side(7, 8, '007'), 2],
    ['zero and its padded spellings', side('0', '1', '00'), 2],
    ['the same padding twice', side('010', '010'), 1],
    ['2^64 - 1 and a padded 2^64 - 1', side(MAX, '1', `0${MAX}`), 2],
    ['equal text lengths, different values', side(12, 21, 13, 31), -1],
    ['many, best first (descending), no repeat', side(...range(1000, 40, -3)), -1],
    ['many, ascending, no repeat', side(...range(1000, 40, 7)), -1],
    ['many, descending, the last one repeats the first', side(...range(1000, 39, -3), 1000), 39],
    ['many, descending, a repeat next to its twin', side(...range(1000, 20, -3), 943, ...range(900, 19, -3)), 20],
    ['many, unordered, no repeat', side(...range(1, 40, 1).map((i) => (i * 7919) % 1009)), -1],
    ['many, unordered, a repeat', side(...range(1, 40, 1).map((i) => (i * 7919) % 1009), (5 * 7919) % 1009), 40],
    ['many, ordered, a padded repeat', side(...range(1000, 30, 1), '01010'), 30],
    ['many, ordered, a padded value but no repeat', side('0999', ...range(1000, 30, 1)), -1],
  ])('%s', (_what, levels, at) => {
    expect(reference(levels)).toBe(at);
    expect(hasRepeatedPrice(levels)).toBe(at >= 0);
    expect(repeatedPriceAt(levels)).toBe(at);
  });

  it('agrees with the reference on any side: short or long, ordered or not, leading zeros or not', () => {
    const value = fc.oneof(fc.integer({ min: 0, max: 60 }).map(BigInt), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }));
    const spelled = fc.tuple(value, fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 4 })).map(([v, zeros, pad]) => (pad === 0 ? '0'.repeat(zeros) : '') + v.toString());
    const arb = fc.record({ prices: fc.array(spelled, { maxLength: 40 }), order: fc.constantFrom('as is', 'ascending', 'descending') });
    fc.assert(
      fc.property(arb, ({ prices, order }) => {
        const sorted = order === 'as is' ? prices : [...prices].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
        const levels = side(...(order === 'descending' ? sorted.reverse() : sorted));
        const at = reference(levels);
        expect(hasRepeatedPrice(levels)).toBe(at >= 0);
        expect(repeatedPriceAt(levels)).toBe(at);
      }),
      { seed: 20261128, numRuns: 2000 },
    );
  });
});

describe('repeatedPriceMessage', () => {
  it('names the side, the price and where it is listed', () => {
    expect(repeatedPriceMessage('bids', side(99, 98, 99), 2)).toBe('price 99 appears twice in bids (bids[0] and bids[2]); a book lists each price at most once per side');
  });

  it('shows both spellings when they differ, the price without its leading zeros', () => {
    expect(repeatedPriceMessage('asks', side(5, '007', 7), 2)).toBe('price 7 appears twice in asks (asks[1] "007" and asks[2] "7"); a book lists each price at most once per side');
  });
});
