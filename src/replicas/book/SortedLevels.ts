/**
 * Levels as two parallel sorted typed arrays (keys ascending, sizes alongside) with the
 * BEST level at the END, so changes near the best move few elements. Holds the levels of the
 * number path that lie below the price window, and loads snapshots.
 */
import { gallopDown, gallopUp, lowerBoundFromTop } from './lowerBoundFromTop';

/** Below this many elements a hand loop moves faster than a `copyWithin` call. */
const SMALL_MOVE = 16;

/**
 * The capacity a full store of either representation grows to for at least `min` levels:
 * by half plus 16 (bounded slack keeps bytes per level low).
 */
export function grownCapacity(capacity: number, min: number): number {
  return Math.max(min, capacity + (capacity >> 1) + 16);
}

export class SortedLevels {
  private keys: Float64Array;
  private sizes: Float64Array;
  private _n = 0;

  constructor(capacity = 16) {
    this.keys = new Float64Array(capacity);
    this.sizes = new Float64Array(capacity);
  }

  /** Levels held. */
  get n(): number {
    return this._n;
  }

  /** Key of the level at index `j` (ascending: index n - 1 is the best). */
  keyAt(j: number): number {
    return this.keys[j]!;
  }

  /** Size of the level at index `j`. */
  sizeAt(j: number): number {
    return this.sizes[j]!;
  }

  /** Key of the best level, -1 when empty (keys are >= 0). */
  topKeyOrEmpty(): number {
    const n = this._n;
    return n > 0 ? this.keys[n - 1]! : -1;
  }

  /** Index of the highest level whose key is below `k`, -1 when none is. */
  below(k: number): number {
    return lowerBoundFromTop(this.keys, this._n, k) - 1;
  }

  /** Removes the best level (the store is not empty). */
  popTop(): void {
    this._n--;
  }

  /** Empties the store and gives it room for `capacity` levels. */
  reserve(capacity: number): void {
    const cap = Math.max(16, capacity);
    this._n = 0;
    if (this.keys.length < cap) {
      this.keys = new Float64Array(cap);
      this.sizes = new Float64Array(cap);
    }
  }

  /** Sets a level's absolute size (0 removes it); returns the size it had (0 when absent). */
  set(k: number, size: number): number {
    const keys = this.keys;
    const sizes = this.sizes;
    const n = this._n;
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
      this._n = last;
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
    this._n = n + 1;
    return 0;
  }

  /**
   * Sets many levels at once: `ck[0..m)` ascending and distinct keys, `cs` their sizes (0
   * removes; removing an absent level does nothing). Overwrites `ck` / `cs` (scratch).
   *
   * Two passes, each moving the levels between consecutive changes as one block: upward
   * from the lowest change, removals close their gaps; then downward from the top,
   * insertions open theirs. A level moves at most twice whatever the number of changes,
   * where setting them one by one moved the levels above each insertion again for every
   * one. O(m log(n / m)) searches plus the levels from the lowest change to the top.
   */
  merge(ck: Float64Array, cs: Float64Array, m: number): void {
    if (m === 0) return;
    const keys = this.keys;
    const sizes = this.sizes;
    const n = this._n;
    // Pass 1: removals and new sizes; insertions are collected at the front of ck / cs.
    let r = 0; // [r, n): not yet visited (unmoved)
    let w = 0; // [0, w): final
    let ins = 0;
    for (let j = 0; j < m; j++) {
      const k = ck[j]!;
      const s = cs[j]!;
      const p = gallopUp(keys, r, n, k);
      if (p < n && keys[p] === k) {
        if (s !== 0) sizes[p] = s;
        else {
          moveDown(keys, sizes, w, r, p);
          w += p - r;
          r = p + 1;
        }
      } else if (s !== 0) {
        ck[ins] = k;
        cs[ins++] = s;
      }
    }
    moveDown(keys, sizes, w, r, n);
    const len = w + n - r;
    this._n = len;
    if (ins === 0) return;
    // Pass 2: insertions, from the top down, into the room above the levels.
    if (len + ins > keys.length) this.grow(len + ins);
    const k2 = this.keys;
    const s2 = this.sizes;
    let rr = len; // [0, rr): not yet moved
    let ww = len + ins; // [ww, len + ins): final
    for (let j = ins - 1; j >= 0; j--) {
      const k = ck[j]!;
      const p = gallopDown(k2, rr, k);
      const run = rr - p;
      ww -= run;
      moveUp(k2, s2, ww, p, rr);
      rr = p;
      k2[--ww] = k;
      s2[ww] = cs[j]!;
    }
    this._n = len + ins;
  }

  /** Appends a level better than every level held (the caller guarantees the order). */
  pushTop(k: number, size: number): void {
    const n = this._n;
    if (n === this.keys.length) this.grow(n + 1);
    this.keys[n] = k;
    this.sizes[n] = size;
    this._n = n + 1;
  }

  /** Grows (see {@link grownCapacity}), keeping the levels. */
  private grow(min: number): void {
    const next = grownCapacity(this.keys.length, min);
    const k = new Float64Array(next);
    const s = new Float64Array(next);
    k.set(this.keys.subarray(0, this._n));
    s.set(this.sizes.subarray(0, this._n));
    this.keys = k;
    this.sizes = s;
  }
}

/** Moves levels [from, end) down to `to` (to <= from). */
function moveDown(keys: Float64Array, sizes: Float64Array, to: number, from: number, end: number): void {
  if (to === from) return;
  if (end - from <= SMALL_MOVE) {
    for (let i = from; i < end; i++, to++) {
      keys[to] = keys[i]!;
      sizes[to] = sizes[i]!;
    }
  } else {
    keys.copyWithin(to, from, end);
    sizes.copyWithin(to, from, end);
  }
}

/** Moves levels [from, end) up to `to` (to > from). */
function moveUp(keys: Float64Array, sizes: Float64Array, to: number, from: number, end: number): void {
  if (end - from <= SMALL_MOVE) {
    for (let i = end - 1, t = to + (end - from) - 1; i >= from; i--, t--) {
      keys[t] = keys[i]!;
      sizes[t] = sizes[i]!;
    }
  } else {
    keys.copyWithin(to, from, end);
    sizes.copyWithin(to, from, end);
  }
}
