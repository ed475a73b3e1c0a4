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
 *   into its lowest quarter it is lowered (pulling deep levels back in). On top of both, a
 *   {@link TopCache} keeps the best levels in rank order (as many as reads ask for), so
 *   top-N reads are indexing;
 * - the exact path ({@link SortedBigLevels}), from the moment a value exceeds 2^53 - 1. A
 *   side never goes back to numbers (a resync builds a new book).
 */
import { UINT64_MAX, type PriceLevel, type Side } from '../../protocol';
import type { BigLevelCallback, BookSideReader, BookTopView, LevelCallback } from './BookSideReader';
import { PriceWindow } from './PriceWindow';
import { SortedBigLevels } from './SortedBigLevels';
import { SortedLevels } from './SortedLevels';
import { SHORT, SIZE_ONLY, TopCache, small } from './TopCache';
import { TopView } from './TopView';
import { levelBelow } from './levelWalk';
import { sortBigChanges, sortChanges } from './sortChanges';
import { lowerWindow, raiseWindow } from './windowMoves';
import * as reads from './sideReads';

export type { BigLevelCallback, BookSideReader, BookTopView, LevelCallback } from './BookSideReader';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** {@link BookSide.setMany}'s buffers for frames of up to this many changes (larger ones allocate theirs). */
const SCRATCH = 256;
const scratchKeys = new Float64Array(SCRATCH);
const scratchSizes = new Float64Array(SCRATCH);

/** Options of a side's storage. */
export interface BookSideOptions {
  /** Ticks the window spans: a power of two, 64 or more. */
  windowTicks: number;
  /** Most levels kept in rank order (the {@link TopCache}), 1 or more. */
  topLevels: number;
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
  /** The best levels in rank order, kept exact on every change (number path; empty on the exact path). */
  readonly top: TopCache;
  /**
   * Changes at keys below this cannot reach the top cache: +Infinity while it keeps nothing,
   * -1 while it holds the whole side, else the key of its last entry. One compare per change.
   */
  topFloor = Infinity;
  /** The view `topView` returns, reused. */
  readonly view: TopView;
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
    this.top = new TopCache(opts.topLevels, this.isBid);
    this.view = new TopView(side);
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
      lowerWindow(this.win, this.deep, this.target);
      reads.fillTop(this);
    }
    this.mutations++;
  }

  /** Frees the number-path storage once the side is exact. */
  private dropNumberPath(): void {
    this.deep = new SortedLevels(0);
    this.win = new PriceWindow(64);
    this.top.drop();
    this.topFloor = Infinity;
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
   * Sets a level's absolute size (0 removes it) and keeps the top cache exact; returns the
   * size the level had (0 when absent). Number path only; values are safe integers.
   */
  set(price: number, size: number): number {
    const k = this.isBid ? price : MAX_SAFE - price;
    const win = this.win;
    const slot = k - win.base;
    let old = 0;
    if (slot >= 0 && slot < win.size) {
      old = win.set(slot, size);
      if (size === 0 && old !== 0 && win.top < this.lowWater) lowerWindow(this.win, this.deep, this.target);
    } else if (slot < 0 && win.count > 0) {
      // `base + slot` (= k) rather than `k`: with `k` handed to a call, the optimizing compiler
      // was seen boxing an ask's key (a double above 2^31) where it is computed, on every call.
      old = this.deep.set(win.base + slot, size);
    } else if (size !== 0) {
      // Above the window, or the side is empty (an empty window means an empty side).
      raiseWindow(win, this.deep, slot, this.target);
      win.set(k - win.base, size);
    }
    this.mutations++;
    // `small`: passed on as a small integer, not as a double the call would box.
    if (k >= this.topFloor && old !== size) this.touchTop(small(price), size, old);
    return old;
  }

  /**
   * Sets the levels of a large frame at once (number path; values are safe integers):
   * `pairs[off..off + 2 * count)` holds price, size, price, size, ... in frame order. Same
   * result as {@link set} level by level (the last change of a repeated price wins), at
   * O(k log k) for k changes plus one pass over the deep levels from the lowest change up,
   * instead of a move of those levels per change. The window moves at most twice (up to the
   * best new level, down when its best sank low) and the top cache is refilled once.
   */
  setMany(pairs: Float64Array, off: number, count: number): void {
    if (count === 0) return;
    const fits = count <= SCRATCH;
    const keys = fits ? scratchKeys : new Float64Array(count);
    const sizes = fits ? scratchSizes : new Float64Array(count);
    for (let j = 0; j < count; j++) {
      keys[j] = this.keyOf(pairs[off + 2 * j]!);
      sizes[j] = pairs[off + 2 * j + 1]!;
    }
    const m = sortChanges(keys, sizes, count);
    const win = this.win;
    // The best key the frame gives a level to: the window must reach it.
    let j = m - 1;
    while (j >= 0 && sizes[j] === 0) j--;
    if (j >= 0 && (win.count === 0 || keys[j]! - win.base >= win.size)) raiseWindow(win, this.deep, keys[j]! - win.base, this.target);
    const base = win.base;
    const highest = keys[m - 1]!;
    let below = 0;
    while (below < m && keys[below]! < base) below++;
    // (Overwrites keys / sizes [0, below) as scratch.)
    this.deep.merge(keys, sizes, below);
    const size = win.size;
    for (let i = below; i < m; i++) {
      const slot = keys[i]! - base;
      // Beyond the window: only removals of levels the side does not hold.
      if (slot < size) win.set(slot, sizes[i]!);
    }
    if (win.top < this.lowWater) lowerWindow(win, this.deep, this.target);
    this.mutations++;
    if (highest >= this.topFloor) reads.fillTop(this);
  }

  /** Brings the top cache up to date with a change that reaches it. */
  private touchTop(price: number, size: number, old: number): void {
    const top = this.top;
    const moved = top.update(price, size, old);
    if (moved === SIZE_ONLY) return;
    // A removal emptied the last slot of a full cache: the side's next level, if any, fills it.
    if (moved === SHORT && this.n >= top.cap) levelBelow(this, top.refillBelow, top);
    this.syncTopFloor();
  }

  /** Recomputes {@link topFloor} after the top cache changed. */
  syncTopFloor(): void {
    const top = this.top;
    this.topFloor = top.cap === 0 ? Infinity : top.n < top.cap ? -1 : this.keyOf(top.prices[top.cap - 1]!);
  }

  /** Sets a level's absolute size (0n removes it). Exact path only. */
  setBig(price: bigint, size: bigint): void {
    this.exact.set(this.bigKeyOf(price), size);
    this.mutations++;
  }

  /**
   * {@link setMany} on the exact path: `pairs` holds price, size, price, size, ... in frame
   * order (the last change of a repeated price wins).
   */
  setManyBig(pairs: readonly bigint[]): void {
    const count = pairs.length >> 1;
    const keys = new BigUint64Array(count);
    const sizes = new BigUint64Array(count);
    for (let j = 0; j < count; j++) {
      keys[j] = this.bigKeyOf(pairs[2 * j]!);
      sizes[j] = pairs[2 * j + 1]!;
    }
    this.exact.merge(keys, sizes, sortBigChanges(keys, sizes, count));
    this.mutations++;
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

  topView(n: number): BookTopView {
    const top = this.top;
    // The hot case in two compares: no more levels than the top cache holds.
    if (n >>> 0 === n && n <= top.n) {
      this.view.show(top.prices, top.sizes, n);
      return this.view;
    }
    return reads.topView(this, n);
  }

  /** The best `depth` levels in wire form, best first (allocates). */
  toLevels(depth: number): PriceLevel[] {
    const out: PriceLevel[] = [];
    reads.forEachBig(this, depth, (p, s) => out.push({ price_ticks: String(p), size_base_lots: String(s) }));
    return out;
  }
}
