/**
 * The price window of the number path: the levels whose key lies in [base, base + size),
 * stored by tick (slot = key - base) in a plain array of sizes, with an occupancy bitset.
 * Setting a level is then an index, not a search: no compare chain, no mispredicted branch,
 * which is what makes the hot path fast. The best level is the highest occupied slot,
 * tracked in `top`; the next one down is found by scanning the bitset a word at a time.
 *
 * Reads by rank (the best level is rank 0) go through a rank cache: the keys and sizes of the
 * best levels in rank order, filled by the one walk of the bitset ({@link rankTo}) and
 * dropped by any change. It grows by doubling while it stays valid, so reading every rank in
 * order costs O(1) per level, and reading a few ranks after each update costs one walk of them.
 *
 * Invariant: `sizes[slot] !== 0` exactly when bit `slot` of `occ` is set; `count` is the
 * number of such slots and `top` the highest (-1 when none). Only this class writes its state.
 */
export class PriceWindow {
  /** Number of slots (ticks): a power of two, at least 64. */
  readonly size: number;
  private _base = 0;
  private _count = 0;
  private _top = -1;
  private readonly sizes: Float64Array;
  private readonly occ: Uint32Array;
  /** Ranks [0, ranked) of the rank cache are valid; 0 after any change. */
  private ranked = 0;
  private rankKeys = new Float64Array(0);
  private rankSizes = new Float64Array(0);

  constructor(size: number) {
    this.size = size;
    this.sizes = new Float64Array(size);
    this.occ = new Uint32Array(size >>> 5);
  }

  /** Key of slot 0. */
  get base(): number {
    return this._base;
  }

  /** Occupied slots (levels held). */
  get count(): number {
    return this._count;
  }

  /** Highest occupied slot (the best level), -1 when empty. */
  get top(): number {
    return this._top;
  }

  /** Size at a slot (0: no level). */
  sizeAt(slot: number): number {
    return this.sizes[slot]!;
  }

  /** True when bit `slot` of the occupancy bitset is set (for invariant checks). */
  isOccupied(slot: number): boolean {
    return ((this.occ[slot >>> 5]! >>> (slot & 31)) & 1) === 1;
  }

  /** Sets the size at a slot (0 removes); returns the size it held (0 when it held no level). */
  set(slot: number, size: number): number {
    const sizes = this.sizes;
    const old = sizes[slot]!;
    sizes[slot] = size;
    this.ranked = 0;
    if ((old === 0) !== (size === 0)) this.flip(slot, size !== 0);
    return old;
  }

  /** A level appeared at `slot` (`added`) or left it: its bit, the count and the top follow. */
  private flip(slot: number, added: boolean): void {
    this.occ[slot >>> 5]! ^= 1 << (slot & 31);
    if (added) {
      this._count++;
      if (slot > this._top) this._top = slot;
    } else {
      this._count--;
      if (slot === this._top) this._top = this.below(slot);
    }
  }

  /** Highest occupied slot below `slot`, or -1. */
  below(slot: number): number {
    const occ = this.occ;
    let w = slot >>> 5;
    const bit = slot & 31;
    // Keep only the bits strictly below `bit` in the first word.
    let bits = bit === 0 ? 0 : occ[w]! & (0xffffffff >>> (32 - bit));
    while (bits === 0) {
      if (--w < 0) return -1;
      bits = occ[w]!;
    }
    return (w << 5) | (31 - Math.clz32(bits));
  }

  /** Lowest occupied slot at or above `slot` and below `end`, or -1. */
  atOrAbove(slot: number, end: number): number {
    if (slot >= end) return -1;
    const occ = this.occ;
    let w = slot >>> 5;
    let bits = occ[w]! & (0xffffffff << (slot & 31));
    const lastWord = (end - 1) >>> 5;
    for (;;) {
      if (bits !== 0) {
        const found = (w << 5) | (31 - Math.clz32(bits & -bits));
        return found < end ? found : -1;
      }
      if (++w > lastWord) return -1;
      bits = occ[w]!;
    }
  }

  // ---- reads by rank ----

  /** Key of the level of rank `i` (0 = best; `i < count`). */
  keyAtRank(i: number): number {
    if (i >= this.ranked) this.rankTo(i);
    return this.rankKeys[i]!;
  }

  /** Size of the level of rank `i` (`i < count`). */
  sizeAtRank(i: number): number {
    if (i >= this.ranked) this.rankTo(i);
    return this.rankSizes[i]!;
  }

  /** Fills the rank cache through rank `i` at least: the walk of the bitset, best slot down. */
  private rankTo(i: number): void {
    // Doubling only while the cache is valid: after a change, rebuild just what is read.
    const want = Math.min(this._count, Math.max(16, i + 1, 2 * this.ranked));
    if (this.rankKeys.length < want) {
      this.rankKeys = new Float64Array(want);
      this.rankSizes = new Float64Array(want);
    }
    const keys = this.rankKeys;
    const sizes = this.rankSizes;
    const wsizes = this.sizes;
    const occ = this.occ;
    const base = this._base;
    let w = this._top >>> 5;
    // The top is the highest set bit: the whole word is at or below it.
    let bits = occ[w]!;
    for (let r = 0; r < want; r++) {
      while (bits === 0) bits = occ[--w]!;
      const b = 31 - Math.clz32(bits);
      bits ^= 1 << b;
      const slot = (w << 5) | b;
      keys[r] = base + slot;
      sizes[r] = wsizes[slot]!;
    }
    this.ranked = want;
  }

  // ---- moves ----

  /**
   * Moves the window up by `shift` slots (a multiple of 32), dropping the `dropped` levels of
   * slots [0, shift) (the caller has kept them elsewhere).
   */
  shiftUp(shift: number, dropped: number): void {
    if (dropped === this._count) {
      this.reset(this._base + shift);
      return;
    }
    // A level above slot `shift` stays: the shift is within the window.
    const w = this.size;
    this.sizes.copyWithin(0, shift, w);
    this.sizes.fill(0, w - shift);
    this.occ.copyWithin(0, shift >>> 5);
    this.occ.fill(0, (w - shift) >>> 5);
    this._base += shift;
    this._count -= dropped;
    this._top -= shift;
    this.ranked = 0;
  }

  /** Moves the window down by `shift` slots (a multiple of 32); `top + shift` must stay inside. */
  shiftDown(shift: number): void {
    const w = this.size;
    this.sizes.copyWithin(shift, 0, w - shift);
    this.sizes.fill(0, 0, shift);
    this.occ.copyWithin(shift >>> 5, 0, (w - shift) >>> 5);
    this.occ.fill(0, 0, shift >>> 5);
    this._base -= shift;
    if (this._top >= 0) this._top += shift;
    this.ranked = 0;
  }

  /** Empties the window and moves it so that slot 0 holds key `base`. */
  reset(base: number): void {
    if (this._count > 0) {
      this.sizes.fill(0);
      this.occ.fill(0);
      this._count = 0;
      this._top = -1;
    }
    this._base = base;
    this.ranked = 0;
  }
}
