/**
 * One side of the order book. Levels are ordered by a KEY that grows toward the best price
 * on both sides (a bid's key is its price; an ask's key is its price mirrored), so one set
 * of routines serves bids and asks.
 *
 * Two representations, chosen per side:
 * - the number path, while every value is a safe integer: a {@link PriceWindow} indexed by
 *   tick holds the levels near the best (where nearly every update lands: setting one is an
 *   index, not a search), and a {@link SortedLevels} store holds the deeper ones. Every deep
 *   key is below the window. The window follows the market: a level above it raises it
 *   (the levels that fall out go to the top end of the deep store), and when its best sinks
 *   into its lowest quarter it is lowered (pulling deep levels back in);
 * - the exact path ({@link SortedBigLevels}), from the moment a value exceeds 2^53 - 1. A
 *   side never goes back to numbers (a resync builds a new book).
 */
import { UINT64_MAX, type PriceLevel, type Side } from '../../protocol';
import { PriceWindow } from './PriceWindow';
import { SortedBigLevels } from './SortedBigLevels';
import { SortedLevels } from './SortedLevels';
import * as reads from './sideReads';
import type { BigLevelCallback, LevelCallback } from './sideReads';

export type { BigLevelCallback, LevelCallback } from './sideReads';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * Read access to one side of a live book, best level first (index 0). The object is the
 * same for the book's whole life and reads the current levels: keep it, do not copy it.
 * Number-path reads allocate nothing per read: `forEach` walks the levels; `priceAt(i)` /
 * `sizeAt(i)` read a cache of the best levels in rank order, rebuilt once after each change
 * (so reading ranks 0..n-1 after an update costs one walk of n levels). Number accessors
 * throw `BookPrecisionError` for a value above 2^53 - 1 (never a rounded value); the
 * `...Big` accessors always work.
 *
 * @example
 * const asks = book.asks;                       // keep it: it is live
 * for (let i = 0; i < Math.min(5, asks.length); i++) quote(asks.priceAt(i), asks.sizeAt(i));
 */
export interface BookSideReader {
  /** `'bid'` or `'ask'`. */
  readonly side: Side;
  /** Number of levels presented. */
  readonly length: number;
  /** True once this side holds a value above 2^53 - 1 (number reads may then throw). */
  readonly isBigint: boolean;
  /** True when the snapshot held the whole depth limit: levels beyond `boundaryPrice` are unknown. */
  readonly isTruncated: boolean;
  /** The deepest price the snapshot covered when truncated, else undefined. */
  readonly boundaryPrice: bigint | undefined;
  /** Price of the i-th best level. @throws RangeError when `i` is out of range. */
  priceAt(i: number): number;
  /** Size of the i-th best level. @throws RangeError when `i` is out of range. */
  sizeAt(i: number): number;
  priceAtBig(i: number): bigint;
  sizeAtBig(i: number): bigint;
  /** The i-th best level in wire form (allocates). */
  levelAt(i: number): PriceLevel;
  /** Calls `cb` for the best `n` levels (fewer if the side is shorter); returns how many. */
  forEach(n: number, cb: LevelCallback): number;
  forEachBig(n: number, cb: BigLevelCallback): number;
}

/** Options of a side's price window. */
export interface BookSideOptions {
  /** Ticks the window spans: a power of two, 64 or more. */
  windowTicks: number;
}

/** The storage of one side. Mutators are for `OrderBook` only; the public face is {@link BookSideReader}. */
export class BookSide implements BookSideReader {
  readonly side: Side;
  readonly isBid: boolean;
  /** Representation in use: false = `win` + `deep`, true = `exact`. */
  big = false;
  win: PriceWindow;
  deep = new SortedLevels();
  exact: SortedBigLevels;
  truncated = false;
  /** Keys below this lie beyond the snapshot's coverage (number path; meaningful when truncated). */
  boundaryKey = 0;
  /** Same for the exact path. */
  bBoundaryKey = 0n;
  /** Incremented by every change: invalidates the rank cache. */
  mutations = 0;
  /** Rank cache of the number path (see sideReads.ts): valid while `mutations` equals `cacheMutations`. */
  cacheMutations = -1;
  cacheLength = 0;
  cacheKeys = new Float64Array(0);
  cacheSizes = new Float64Array(0);
  private boundary: bigint | undefined = undefined;
  /** Slot where a moved window puts the best level (three quarters up). */
  private readonly target: number;
  /** A best below this slot lowers the window. */
  private readonly lowWater: number;

  constructor(side: Side, opts: BookSideOptions) {
    this.side = side;
    this.isBid = side === 'bid';
    this.win = new PriceWindow(opts.windowTicks);
    this.target = ((opts.windowTicks * 3) >>> 2) - 1;
    this.lowWater = opts.windowTicks >>> 2;
    this.exact = new SortedBigLevels(0);
  }

  // ---- keys ----

  /** Number-path key of a price (and its own inverse: the price of a key). */
  keyOf(price: number): number {
    return this.isBid ? price : MAX_SAFE - price;
  }

  /** Exact-path key of a price (and its own inverse). */
  bigKeyOf(price: bigint): bigint {
    return this.isBid ? price : UINT64_MAX - price;
  }

  // ---- size and best ----

  /** Number of levels. */
  get n(): number {
    return this.big ? this.exact.n : this.win.count + this.deep.n;
  }

  /** Best key on the number path (side non-empty). */
  bestKey(): number {
    const win = this.win;
    return win.count > 0 ? win.base + win.top : this.deep.keys[this.deep.n - 1]!;
  }

  /** Best key on the number path, or -1 when the side is empty (keys are >= 0). */
  bestKeyOrEmpty(): number {
    const win = this.win;
    if (win.count > 0) return win.base + win.top;
    const deep = this.deep;
    return deep.n > 0 ? deep.keys[deep.n - 1]! : -1;
  }

  /** Best price on the number path (side non-empty). */
  bestPrice(): number {
    return this.keyOf(this.bestKey());
  }

  /** Size at the best level on the number path (side non-empty). */
  bestSize(): number {
    const win = this.win;
    return win.count > 0 ? win.sizes[win.top]! : this.deep.sizes[this.deep.n - 1]!;
  }

  /** Exact best price (side non-empty). */
  bestBig(): bigint {
    return this.big ? this.bigKeyOf(this.exact.keys[this.exact.n - 1]!) : BigInt(this.bestPrice());
  }

  /** Exact size at the best level (side non-empty). */
  bestSizeBig(): bigint {
    return this.big ? this.exact.sizes[this.exact.n - 1]! : BigInt(this.bestSize());
  }

  // ---- loading ----

  /** Called by the loader once `deep` (number path) or `exact` holds the snapshot's levels. */
  loaded(big: boolean): void {
    this.big = big;
    if (big) this.dropNumberPath();
    else {
      this.win.reset(0);
      this.recenter();
    }
    this.mutations++;
  }

  /** Frees the number-path storage once the side is exact. */
  private dropNumberPath(): void {
    this.deep = new SortedLevels(0);
    this.win = new PriceWindow(64);
  }

  /** Marks the side as truncated at `price`, the deepest price the snapshot covered. */
  setBoundary(price: bigint): void {
    this.truncated = true;
    this.boundary = price;
    this.bBoundaryKey = this.bigKeyOf(price);
    // Only meaningful on the number path, where every price is safe.
    this.boundaryKey = this.keyOf(Number(price));
  }

  /** Switches this side to the exact representation, converting every level exactly. */
  toBig(): void {
    if (this.big) return;
    const exact = new SortedBigLevels(this.n + (this.n >> 2));
    const deep = this.deep;
    for (let j = 0; j < deep.n; j++) exact.pushTop(this.bigKeyOf(BigInt(this.keyOf(deep.keys[j]!))), BigInt(deep.sizes[j]!));
    const win = this.win;
    if (win.count > 0) {
      for (let s = win.atOrAbove(0, win.size); s >= 0; s = win.atOrAbove(s + 1, win.size)) {
        exact.pushTop(this.bigKeyOf(BigInt(this.keyOf(win.base + s))), BigInt(win.sizes[s]!));
      }
    }
    this.exact = exact;
    this.dropNumberPath();
    this.big = true;
    this.mutations++;
  }

  // ---- mutation ----

  /**
   * Sets a level's absolute size (0 removes it); returns the size it had (0 when absent), so
   * a caller can undo. Number path only; values are safe integers.
   */
  set(price: number, size: number): number {
    const k = this.isBid ? price : MAX_SAFE - price;
    const win = this.win;
    const slot = k - win.base;
    let old = 0;
    if (slot >= 0 && slot < win.size) {
      old = win.set(slot, size);
      if (size === 0 && old !== 0 && win.top < this.lowWater) this.recenter();
    } else if (slot < 0 && win.count > 0) {
      old = this.deep.set(k, size);
    } else if (size !== 0) {
      // Above the window, or the side is empty (an empty window means an empty side).
      this.raiseTo(k);
      win.set(k - win.base, size);
    }
    this.mutations++;
    return old;
  }

  /** Sets a level's absolute size (0n removes it). Exact path only. */
  setBig(price: bigint, size: bigint): void {
    this.exact.set(this.bigKeyOf(price), size);
    this.mutations++;
  }

  /** Moves the window so that key `k` (above it, or anywhere when it is empty) sits at the target slot. */
  private raiseTo(k: number): void {
    const win = this.win;
    if (win.count === 0) {
      win.reset(k - this.target);
      return;
    }
    // A multiple of 32 keeps the bitset's words aligned.
    const shift = Math.ceil((k - this.target - win.base) / 32) * 32;
    // The slots that fall below the new base are better than every deep level: append them.
    const end = Math.min(shift, win.size);
    let moved = 0;
    for (let s = win.atOrAbove(0, end); s >= 0; s = win.atOrAbove(s + 1, end)) {
      this.deep.pushTop(win.base + s, win.sizes[s]!);
      moved++;
    }
    if (moved === win.count) {
      // Not `k - target`: the new base must stay above every level just spilled.
      win.reset(win.base + shift);
    } else {
      win.count -= moved;
      win.shiftUp(shift);
    }
  }

  /** Lowers the window so its best sits near the target slot, pulling deep levels back in. */
  private recenter(): void {
    const win = this.win;
    const deep = this.deep;
    if (win.count === 0) {
      if (deep.n === 0) return;
      win.reset(deep.keys[deep.n - 1]! - this.target);
    } else {
      const shift = ((this.target - win.top) >>> 5) << 5;
      if (shift === 0) return;
      win.shiftDown(shift);
    }
    const base = win.base;
    const keys = deep.keys;
    while (deep.n > 0 && keys[deep.n - 1]! >= base) {
      const j = --deep.n;
      win.set(keys[j]! - base, deep.sizes[j]!);
    }
  }

  // ---- integrity ----

  /**
   * False when this side is truncated and no level at or better than the boundary remains:
   * its best price is then unknown (an unseen level beyond the boundary may be better than
   * any level an update created there).
   */
  hasCoveredTop(): boolean {
    if (!this.truncated) return true;
    if (this.n === 0) return false;
    return this.big ? this.exact.keys[this.exact.n - 1]! >= this.bBoundaryKey : this.bestKey() >= this.boundaryKey;
  }

  // ---- reads (see sideReads.ts) ----

  get length(): number {
    return this.n;
  }

  get isBigint(): boolean {
    return this.big;
  }

  get isTruncated(): boolean {
    return this.truncated;
  }

  get boundaryPrice(): bigint | undefined {
    return this.boundary;
  }

  priceAt(i: number): number {
    return reads.priceAt(this, i);
  }

  sizeAt(i: number): number {
    return reads.sizeAt(this, i);
  }

  priceAtBig(i: number): bigint {
    return reads.priceAtBig(this, i);
  }

  sizeAtBig(i: number): bigint {
    return reads.sizeAtBig(this, i);
  }

  levelAt(i: number): PriceLevel {
    return { price_ticks: String(this.priceAtBig(i)), size_base_lots: String(this.sizeAtBig(i)) };
  }

  forEach(n: number, cb: LevelCallback): number {
    return reads.forEach(this, n, cb);
  }

  forEachBig(n: number, cb: BigLevelCallback): number {
    return reads.forEachBig(this, n, cb);
  }

  /** The best `depth` levels in wire form, best first (allocates). */
  toLevels(depth: number): PriceLevel[] {
    const out: PriceLevel[] = [];
    reads.forEachBig(this, depth, (p, s) => out.push({ price_ticks: String(p), size_base_lots: String(s) }));
    return out;
  }
}
