/**
 * The best levels of a number-path side, best first, as two dense arrays (prices and sizes)
 * kept exact on every change: reading rank i is then one index, with no search, no bitset
 * scan and no callback, which is what a loop reading the top levels after every update needs.
 *
 * It keeps as many levels (`cap`) as the deepest read through it asked for, up to `limit`
 * (`OrderBookOptions.topLevels`), and none until a read asks: a book nobody reads by rank
 * pays nothing for it, and one read 10 deep moves at most 10 entries per change.
 *
 * The arrays are plain arrays of numbers, each value stored as the engine's small integer
 * when it is one ({@link small}): reading them then hands out values that need no boxing
 * wherever the reader stores or passes them, unlike a typed array's doubles. An array that
 * receives a larger value simply holds doubles from then on.
 *
 * Invariant (kept by `NumberLevels`): `n` is min(cap, levels of the side) and entries [0, n)
 * are the side's best `n` levels in rank order. A change ranked below a full cache costs the
 * caller one compare (`NumberLevels.topFloor`). A removal from a full cache leaves its last
 * slot for the caller to refill from its store: the side's best level below `refillBelow`.
 */
/** {@link TopCache.update}: only a size changed. */
export const SIZE_ONLY = 0;
/** {@link TopCache.update}: entries moved (the last entry may have changed). */
export const MOVED = 1;
/** {@link TopCache.update}: a removal left a full cache one short. */
export const SHORT = 2;

/** Levels in rank order written into arrays: how a {@link TopCache} or a view is filled. */
export interface LevelSource {
  /**
   * Writes the prices and sizes of the best `count` levels (fewer when there are fewer) to
   * `prices` / `sizes` from index 0, as small integers where they are ones ({@link small});
   * returns how many it wrote.
   * @throws BookPrecisionError when one of them is above 2^53 - 1.
   */
  fill(count: number, prices: number[], sizes: number[]): number;
}

export class TopCache {
  /** Most levels kept. */
  readonly limit: number;
  /** 1 for bids, -1 for asks: `sign * price` grows toward the best on both sides. */
  private readonly sign: number;
  /** Levels kept: 0 until a read asks, then the deepest such read's count (at most `limit`). */
  private _cap = 0;
  /** Entries held. */
  private _n = 0;
  /** Prices in rank order; entries at and beyond `n` are stale. */
  private _prices: number[] = [];
  /** Sizes in rank order, alongside `prices`. */
  private _sizes: number[] = [];
  /** After `update` asked for a refill: the price of the last entry before the removal. */
  private _refillBelow = 0;

  constructor(limit: number, isBid: boolean) {
    this.limit = limit;
    this.sign = isBid ? 1 : -1;
  }

  /** Levels kept: 0 until a read asks, then the deepest such read's count (at most `limit`). */
  get cap(): number {
    return this._cap;
  }

  /** Entries held. */
  get n(): number {
    return this._n;
  }

  /** Prices in rank order; entries at and beyond `n` are stale. */
  get prices(): readonly number[] {
    return this._prices;
  }

  /** Sizes in rank order, alongside `prices`. */
  get sizes(): readonly number[] {
    return this._sizes;
  }

  /** After `update` returned {@link SHORT}: the price of the last entry before the removal. */
  get refillBelow(): number {
    return this._refillBelow;
  }

  /** Refills every entry from the side's levels (after a resize, a load or a bulk change). */
  fill(source: LevelSource): void {
    this._n = source.fill(this._cap, this._prices, this._sizes);
  }

  /**
   * Keeps `cap` levels from now on and empties the cache (the caller then fills it). The
   * arrays grow when needed, by half at least, so a cache grown read by read settles fast.
   */
  resize(cap: number): void {
    this._cap = cap;
    this._n = 0;
    const room = this._prices.length;
    if (room < cap) {
      const grown = Math.min(this.limit, Math.max(cap, room + (room >> 1)));
      this._prices = zeros(grown);
      this._sizes = zeros(grown);
    }
  }

  /** Stops keeping levels (the side went exact). */
  drop(): void {
    this._cap = 0;
    this._n = 0;
  }

  /** Appends a level worse than every entry held (the caller guarantees the order and the room). */
  push(price: number, size: number): void {
    const n = this._n;
    this._prices[n] = small(price);
    this._sizes[n] = small(size);
    this._n = n + 1;
  }

  /**
   * Records that the side's level at `price` went from size `old` to `size` (0 = absent), for
   * a real change (`old !== size`) of a level ranked at or above the last entry of a full
   * cache (any level when the cache holds the whole side). Returns {@link SIZE_ONLY} when only
   * a size changed, {@link MOVED} when entries moved, {@link SHORT} when a removal left a full
   * cache one short: the caller then pushes the side's next level, if it has one.
   */
  update(price: number, size: number, old: number): number {
    const n = this._n;
    const prices = this._prices;
    const sizes = this._sizes;
    // Rank of `price`: the first entry not better than it. Changes cluster at the best, so a
    // scan from the front stops early; `sign` spares a branch on the side (updates alternate
    // between the sides at random).
    const sign = this.sign;
    const key = sign * price;
    let i = 0;
    while (i < n && sign * prices[i]! > key) i++;
    if (old !== 0) {
      // The level is held, at rank i: every level ranked at or above the last entry is.
      if (size !== 0) {
        sizes[i] = small(size);
        return SIZE_ONLY;
      }
      this._refillBelow = prices[n - 1]!;
      for (let j = i + 1; j < n; j++) {
        prices[j - 1] = prices[j]!;
        sizes[j - 1] = sizes[j]!;
      }
      this._n = n - 1;
      return n === this._cap ? SHORT : MOVED;
    }
    // A new level at rank i; in a full cache the last entry drops out (it stays in the store).
    const cap = this._cap;
    for (let j = n === cap ? n - 1 : n; j > i; j--) {
      prices[j] = prices[j - 1]!;
      sizes[j] = sizes[j - 1]!;
    }
    prices[i] = small(price);
    sizes[i] = small(size);
    if (n < cap) this._n = n + 1;
    return MOVED;
  }
}

/** A packed array of `n` small-integer zeros (packed: reads need no hole check). */
export function zeros(n: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(0);
  return a;
}

/**
 * `v` (an integer) as the engine's small integer when it is one, so an array that only ever
 * receives such values keeps them untagged-integer and hands them out without boxing.
 */
export function small(v: number): number {
  return (v | 0) === v ? v | 0 : v;
}
