/**
 * Levels as two parallel sorted typed arrays (keys ascending, sizes alongside) with the
 * BEST level at the END, so changes near the best move few elements. Holds the levels of the
 * number path that lie below the price window, and loads snapshots.
 */
import { lowerBoundFromTop } from './topSearch';

/** Below this many elements a hand loop moves faster than a `copyWithin` call. */
const SMALL_MOVE = 16;

export class SortedLevels {
  keys: Float64Array;
  sizes: Float64Array;
  n = 0;

  constructor(capacity = 16) {
    this.keys = new Float64Array(capacity);
    this.sizes = new Float64Array(capacity);
  }

  /** Empties the store and gives it room for `capacity` levels. */
  reserve(capacity: number): void {
    const cap = Math.max(16, capacity);
    this.n = 0;
    if (this.keys.length < cap) {
      this.keys = new Float64Array(cap);
      this.sizes = new Float64Array(cap);
    }
  }

  /** Sets a level's absolute size (0 removes it); returns the size it had (0 when absent). */
  set(k: number, size: number): number {
    const keys = this.keys;
    const sizes = this.sizes;
    const n = this.n;
    const i = lowerBoundFromTop(keys, n, k);
    const found = i < n && keys[i] === k;
    if (size === 0) {
      if (!found) return 0;
      const old = sizes[i]!;
      const last = n - 1;
      if (last - i <= SMALL_MOVE) {
        for (let j = i; j < last; j++) {
          keys[j] = keys[j + 1]!;
          sizes[j] = sizes[j + 1]!;
        }
      } else {
        keys.copyWithin(i, i + 1, n);
        sizes.copyWithin(i, i + 1, n);
      }
      this.n = last;
      return old;
    }
    if (found) {
      const old = sizes[i]!;
      sizes[i] = size;
      return old;
    }
    if (n === keys.length) this.grow(n + 1);
    const k2 = this.keys;
    const s2 = this.sizes;
    if (n - i <= SMALL_MOVE) {
      for (let j = n; j > i; j--) {
        k2[j] = k2[j - 1]!;
        s2[j] = s2[j - 1]!;
      }
    } else {
      k2.copyWithin(i + 1, i, n);
      s2.copyWithin(i + 1, i, n);
    }
    k2[i] = k;
    s2[i] = size;
    this.n = n + 1;
    return 0;
  }

  /** Appends a level better than every level held (the caller guarantees the order). */
  pushTop(k: number, size: number): void {
    const n = this.n;
    if (n === this.keys.length) this.grow(n + 1);
    this.keys[n] = k;
    this.sizes[n] = size;
    this.n = n + 1;
  }

  /** Grows by half (bounded slack keeps bytes per level low), keeping the levels. */
  private grow(min: number): void {
    const cap = this.keys.length;
    const next = Math.max(min, cap + (cap >> 1) + 16);
    const k = new Float64Array(next);
    const s = new Float64Array(next);
    k.set(this.keys.subarray(0, this.n));
    s.set(this.sizes.subarray(0, this.n));
    this.keys = k;
    this.sizes = s;
  }
}
