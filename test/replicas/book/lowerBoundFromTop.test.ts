import fc from 'fast-check';
import { gallopDownBig, lowerBoundFromTop, TOP_WINDOW } from '../../../src/replicas/book/lowerBoundFromTop';

/** The plain definition: first index whose key is >= k. */
const naive = (keys: ArrayLike<number | bigint>, n: number, k: number | bigint) => {
  let i = 0;
  while (i < n && keys[i]! < k) i++;
  return i;
};

describe('lowerBoundFromTop', () => {
  it('matches the definition for every size around the top window and every probe', () => {
    for (let n = 0; n <= 3 * TOP_WINDOW + 3; n++) {
      const keys = new Float64Array(n + 5).fill(-1); // slack beyond n must be ignored
      for (let i = 0; i < n; i++) keys[i] = 10 + 2 * i;
      const big = BigUint64Array.from(keys, (v) => BigInt(Math.max(0, v)));
      for (let k = 8; k <= 12 + 2 * n; k++) {
        expect(lowerBoundFromTop(keys, n, k)).toBe(naive(keys, n, k));
        expect(gallopDownBig(big, n, BigInt(k))).toBe(naive(big, n, BigInt(k)));
      }
    }
  });

  it('matches the definition on random ascending keys (negative ask keys included)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -1_000_000, max: 1_000_000 }), { maxLength: 300 }), fc.integer({ min: -1_000_001, max: 1_000_001 }), (values, k) => {
        const keys = Float64Array.from(values.sort((a, b) => a - b));
        expect(lowerBoundFromTop(keys, keys.length, k)).toBe(naive(keys, keys.length, k));
      }),
      { seed: 11, numRuns: 300 },
    );
  });
});
