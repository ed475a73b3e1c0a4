/**
 * The price window of the number path: the levels whose key lies in [base, base + size),
 * stored by tick (slot = key - base) in a plain array of sizes, with an occupancy bitset.
 * Setting a level is then an index, not a search: no compare chain, no mispredicted branch,
 * which is what makes the hot path fast. The best level is the highest occupied slot,
 * tracked in `top`; the next one down is found by scanning the bitset a word at a time.
 *
 * Invariant: `sizes[slot] !== 0` exactly when bit `slot` of `occ` is set; `count` is the
 * number of such slots and `top` the highest (-1 when none).
 */
export class PriceWindow {
  /** Number of slots (ticks): a power of two, at least 64. */
  readonly size: number;
  /** Key of slot 0. */
  base = 0;
  count = 0;
  top = -1;
  readonly sizes: Float64Array;
  readonly occ: Uint32Array;

  constructor(size: number) {
    this.size = size;
    this.sizes = new Float64Array(size);
    this.occ = new Uint32Array(size >>> 5);
  }

  /** Sets the size at a slot (0 removes); returns the size it held (0 when it held no level). */
  set(slot: number, size: number): number {
    const sizes = this.sizes;
    const old = sizes[slot]!;
    sizes[slot] = size;
    if (size !== 0) {
      if (old === 0) {
        this.occ[slot >>> 5]! |= 1 << (slot & 31);
        this.count++;
        if (slot > this.top) this.top = slot;
      }
    } else if (old !== 0) {
      this.occ[slot >>> 5]! &= ~(1 << (slot & 31));
      this.count--;
      if (slot === this.top) this.top = this.below(slot);
    }
    return old;
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

  /** Moves the window up by `shift` slots (a multiple of 32); slots [0, shift) must be empty. */
  shiftUp(shift: number): void {
    const w = this.size;
    this.sizes.copyWithin(0, shift, w);
    this.sizes.fill(0, w - shift);
    this.occ.copyWithin(0, shift >>> 5);
    this.occ.fill(0, (w - shift) >>> 5);
    this.base += shift;
    if (this.top >= 0) this.top -= shift;
  }

  /** Moves the window down by `shift` slots (a multiple of 32); `top + shift` must stay inside. */
  shiftDown(shift: number): void {
    const w = this.size;
    this.sizes.copyWithin(shift, 0, w - shift);
    this.sizes.fill(0, 0, shift);
    this.occ.copyWithin(shift >>> 5, 0, (w - shift) >>> 5);
    this.occ.fill(0, 0, shift >>> 5);
    this.base -= shift;
    if (this.top >= 0) this.top += shift;
  }

  /** Empties the window and moves it so that slot 0 holds key `base`. */
  reset(base: number): void {
    if (this.count > 0) {
      this.sizes.fill(0);
      this.occ.fill(0);
      this.count = 0;
      this.top = -1;
    }
    this.base = base;
  }
}
