/**
 * The exact (bigint) store of a side: keys and sizes as sorted BigUint64Arrays, best level
 * at the end. A side uses it from the moment one of its values exceeds 2^53 - 1.
 *
 * The bigint twin of `SortedLevels`, with the same methods. They stay two classes: one
 * store serving both would see numbers and bigints at every compare and element access,
 * which V8 then compiles as generic operations on the number path too. What does not touch
 * elements is shared ({@link grownCapacity}). Moves are `copyWithin` only: reading a bigint
 * element allocates, so the number store's hand loop for short moves would be slower here.
 */
import { gallopDownBig, gallopUpBig } from './lowerBoundFromTop';
import { grownCapacity } from './SortedLevels';

export class SortedBigLevels {
  private keys: BigUint64Array;
  private sizes: BigUint64Array;
  private _n = 0;

  constructor(capacity = 16) {
    const cap = Math.max(16, capacity);
    this.keys = new BigUint64Array(cap);
    this.sizes = new BigUint64Array(cap);
  }

  /** Levels held. */
  get n(): number {
    return this._n;
  }

  /** Key of the level at index `j` (ascending: index n - 1 is the best). */
  keyAt(j: number): bigint {
    return this.keys[j]!;
  }

  /** Size of the level at index `j`. */
  sizeAt(j: number): bigint {
    return this.sizes[j]!;
  }

  /** Sets a level's absolute size (0n removes it). */
  set(k: bigint, size: bigint): void {
    const n = this._n;
    const i = gallopDownBig(this.keys, n, k);
    const found = i < n && this.keys[i] === k;
    if (size === 0n) {
      if (!found) return;
      this.keys.copyWithin(i, i + 1, n);
      this.sizes.copyWithin(i, i + 1, n);
      this._n = n - 1;
      return;
    }
    if (found) {
      this.sizes[i] = size;
      return;
    }
    if (n === this.keys.length) this.grow(n + 1);
    this.keys.copyWithin(i + 1, i, n);
    this.sizes.copyWithin(i + 1, i, n);
    this.keys[i] = k;
    this.sizes[i] = size;
    this._n = n + 1;
  }

  /**
   * Sets many levels at once (see `SortedLevels.merge`): `ck[0..m)` ascending and distinct
   * keys, `cs` their sizes (0n removes). Overwrites `ck` / `cs` (scratch).
   */
  merge(ck: BigUint64Array, cs: BigUint64Array, m: number): void {
    if (m === 0) return;
    const keys = this.keys;
    const sizes = this.sizes;
    const n = this._n;
    let r = 0;
    let w = 0;
    let ins = 0;
    for (let j = 0; j < m; j++) {
      const k = ck[j]!;
      const s = cs[j]!;
      const p = gallopUpBig(keys, r, n, k);
      if (p < n && keys[p] === k) {
        if (s !== 0n) sizes[p] = s;
        else {
          if (w !== r) {
            keys.copyWithin(w, r, p);
            sizes.copyWithin(w, r, p);
          }
          w += p - r;
          r = p + 1;
        }
      } else if (s !== 0n) {
        ck[ins] = k;
        cs[ins++] = s;
      }
    }
    if (w !== r) {
      keys.copyWithin(w, r, n);
      sizes.copyWithin(w, r, n);
    }
    const len = w + n - r;
    this._n = len;
    if (ins === 0) return;
    if (len + ins > keys.length) this.grow(len + ins);
    const k2 = this.keys;
    const s2 = this.sizes;
    let rr = len;
    let ww = len + ins;
    for (let j = ins - 1; j >= 0; j--) {
      const k = ck[j]!;
      const p = gallopDownBig(k2, rr, k);
      ww -= rr - p;
      k2.copyWithin(ww, p, rr);
      s2.copyWithin(ww, p, rr);
      rr = p;
      k2[--ww] = k;
      s2[ww] = cs[j]!;
    }
    this._n = len + ins;
  }

  /** Appends a level better than every level held (the caller guarantees the order). */
  pushTop(k: bigint, size: bigint): void {
    const n = this._n;
    if (n === this.keys.length) this.grow(n + 1);
    this.keys[n] = k;
    this.sizes[n] = size;
    this._n = n + 1;
  }

  private grow(min: number): void {
    const next = grownCapacity(this.keys.length, min);
    const k = new BigUint64Array(next);
    const s = new BigUint64Array(next);
    k.set(this.keys.subarray(0, this._n));
    s.set(this.sizes.subarray(0, this._n));
    this.keys = k;
    this.sizes = s;
  }
}
