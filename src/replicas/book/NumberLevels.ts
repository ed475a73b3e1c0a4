/**
 * The number path of one side: its levels while every value is a safe integer. Levels are
 * ordered by a KEY that grows toward the best price on both sides (a bid's key is its price;
 * an ask's key is its price mirrored, `2^53 - 1 - price`), so one set of routines serves bids
 * and asks.
 *
 * - A {@link PriceWindow} indexed by tick holds the levels near the best (where nearly every
 *   update lands: setting one is an index, not a search), and a {@link SortedLevels} store
 *   holds the deeper ones. Every deep key is below the window. The window follows the
 *   market: a level above it raises it (the levels that fall out go to the top end of the
 *   deep store), and when its best sinks into its lowest quarter it is lowered (pulling deep
 *   levels back in). Moves are multiples of 32 slots, which keeps the bitset's words aligned.
 * - A {@link TopCache} keeps the best levels in rank order (as many as reads ask for, up to
 *   its limit), exact on every change, so top-N reads are indexing. `topFloor` spares a
 *   change ranked below it any work beyond one compare.
 * - Reads beyond the top cache go by rank: the window's rank cache, then the deep store,
 *   which is indexed directly.
 *
 * Only this class touches its window, deep store and top cache.
 */
import type { LevelCallback } from './BookSideReader';
import { PriceWindow } from './PriceWindow';
import { SortedLevels } from './SortedLevels';
import { SHORT, SIZE_ONLY, TopCache, small, type LevelSource } from './TopCache';
import type { TopView } from './TopView';
import { sortChanges } from './sortChanges';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * From this many changes on a side, a frame's changes are set together (sorted, then merged
 * in one pass: {@link NumberLevels.setLevels}) rather than one by one. One by one, every new
 * level below the window moves the deep levels above it: a frame of k such levels moved them
 * k times, quadratic in a large frame (a 250,000-level update took seconds). Together they
 * move once. Below this, frames (nearly all carry 1-3 changes) keep the per-level path,
 * whose cost per change is an index or a short move near the best.
 */
export const BULK = 32;

/** The bulk path's buffers for frames of up to this many changes (larger ones allocate theirs). */
const SCRATCH = 256;
const scratchKeys = new Float64Array(SCRATCH);
const scratchSizes = new Float64Array(SCRATCH);

export class NumberLevels implements LevelSource {
  private readonly isBid: boolean;
  private win: PriceWindow;
  private deep = new SortedLevels();
  private readonly top: TopCache;
  /**
   * Changes at keys below this cannot reach the top cache: +Infinity while it keeps nothing,
   * -1 while it holds the whole side, else the key of its last entry. One compare per change.
   */
  private topFloor = Infinity;
  /** Slot where a moved window puts the best level (three quarters up). */
  private readonly target: number;
  /** A best below this slot lowers the window. */
  private readonly lowWater: number;

  /**
   * @param windowTicks ticks the window spans: a power of two, 64 or more.
   * @param topLevels most levels kept in rank order (the {@link TopCache}), 1 or more.
   */
  constructor(isBid: boolean, windowTicks: number, topLevels: number) {
    this.isBid = isBid;
    this.win = new PriceWindow(windowTicks);
    this.target = ((windowTicks * 3) >>> 2) - 1;
    this.lowWater = windowTicks >>> 2;
    this.top = new TopCache(topLevels, isBid);
  }

  /** Key of a price (and its own inverse: the price of a key). */
  keyOf(price: number): number {
    return this.isBid ? price : MAX_SAFE - price;
  }

  /** Number of levels. */
  get n(): number {
    return this.win.count + this.deep.n;
  }

  /** Best key, or -1 when the side is empty (keys are >= 0). */
  bestKeyOrEmpty(): number {
    const win = this.win;
    return win.count > 0 ? win.base + win.top : this.deep.topKeyOrEmpty();
  }

  /** Size at the best level (side non-empty). */
  bestSize(): number {
    const win = this.win;
    return win.count > 0 ? win.sizeAt(win.top) : this.deep.sizeAt(this.deep.n - 1);
  }

  // ---- loading ----

  /**
   * Loads the levels of a snapshot side into this (empty) store: `pairs[0..2 * count)` holds
   * price, size, ... best first; zero sizes are skipped. False, having loaded nothing, when
   * the prices are not strictly best first.
   */
  load(pairs: Float64Array, count: number): boolean {
    let live = 0;
    for (let j = 0; j < count; j++) {
      if (j > 0 && this.keyOf(pairs[2 * j]!) >= this.keyOf(pairs[2 * j - 2]!)) return false;
      if (pairs[2 * j + 1] !== 0) live++;
    }
    // A quarter of slack: room for new levels without pushing bytes per level far past 16.
    const deep = this.deep;
    deep.reserve(live + (live >> 2));
    for (let j = count - 1; j >= 0; j--) {
      const size = pairs[2 * j + 1]!;
      if (size !== 0) deep.pushTop(this.keyOf(pairs[2 * j]!), size);
    }
    this.win.reset(0);
    this.lowerWindow();
    this.fillTop();
    return true;
  }

  /** Calls `cb` for every level, worst first (to convert the side to the exact path). */
  forEachWorstFirst(cb: (price: number, size: number) => void): void {
    const deep = this.deep;
    for (let j = 0; j < deep.n; j++) cb(this.keyOf(deep.keyAt(j)), deep.sizeAt(j));
    const win = this.win;
    for (let s = win.atOrAbove(0, win.size); s >= 0; s = win.atOrAbove(s + 1, win.size)) cb(this.keyOf(win.base + s), win.sizeAt(s));
  }

  /** Frees the storage (the side went exact): the store is empty and small from then on. */
  free(): void {
    this.deep = new SortedLevels(0);
    this.win = new PriceWindow(64);
    this.top.drop();
    this.topFloor = Infinity;
  }

  // ---- mutation ----

  /**
   * Sets a level's absolute size (0 removes it) and keeps the top cache exact; returns the
   * size the level had (0 when absent). Values are safe integers.
   */
  set(price: number, size: number): number {
    const k = this.isBid ? price : MAX_SAFE - price;
    const win = this.win;
    const slot = k - win.base;
    let old: number;
    if (slot >= 0 && slot < win.size) {
      old = win.set(slot, size);
      if (size === 0 && old !== 0 && win.top < this.lowWater) this.lowerWindow();
    } else old = this.setOutside(slot, size);
    // `small`: passed on as a small integer, not as a double the call would box.
    if (k >= this.topFloor && old !== size) this.touchTop(small(price), size, old);
    return old;
  }

  /**
   * {@link set} for a key outside the window, `slot` slots from its base: the deep store, or
   * a raised window. (Out of `set`, which stays small enough to be inlined into the frame
   * loop; a slot is passed, not the key: an ask's key is a double above 2^31, which the call
   * would box.)
   */
  private setOutside(slot: number, size: number): number {
    const win = this.win;
    if (slot < 0 && win.count > 0) return this.deep.set(win.base + slot, size);
    if (size !== 0) {
      // Above the window, or the side is empty (an empty window means an empty side).
      const base = win.base;
      this.raiseWindow(slot);
      win.set(base + slot - win.base, size);
    }
    return 0;
  }

  /**
   * Sets the levels of a frame (values are safe integers): `pairs[off..off + 2 * count)`
   * holds price, size, price, size, ... in frame order. Level by level with {@link set}, or
   * from {@link BULK} levels on all at once (same result: the last change of a repeated price
   * wins), at O(k log k) for k changes plus one pass over the deep levels from the lowest
   * change up, instead of a move of those levels per change. The window then moves at most
   * twice (up to the best new level, down when its best sank low) and the top cache is
   * refilled once.
   */
  setLevels(pairs: Float64Array, off: number, count: number): void {
    if (count >= BULK) this.setMany(pairs, off, count);
    else for (let j = off, end = off + 2 * count; j < end; j += 2) this.set(pairs[j]!, pairs[j + 1]!);
  }

  /** {@link setLevels} at once. */
  private setMany(pairs: Float64Array, off: number, count: number): void {
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
    if (j >= 0 && (win.count === 0 || keys[j]! - win.base >= win.size)) this.raiseWindow(keys[j]! - win.base);
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
    if (win.top < this.lowWater) this.lowerWindow();
    if (highest >= this.topFloor) this.fillTop();
  }

  /**
   * Moves the window so that the key at `rel` slots from its base (above it, or anywhere when
   * it is empty) sits at slot `target`. (A slot offset, not the key: an ask's key is a double
   * above 2^31, which a caller passing it would box on every call of its hot path.)
   */
  private raiseWindow(rel: number): void {
    const win = this.win;
    if (win.count === 0) {
      win.reset(win.base + rel - this.target);
      return;
    }
    const shift = Math.ceil((rel - this.target) / 32) * 32;
    // The slots that fall below the new base are better than every deep level: append them.
    const end = Math.min(shift, win.size);
    const deep = this.deep;
    let moved = 0;
    for (let s = win.atOrAbove(0, end); s >= 0; s = win.atOrAbove(s + 1, end)) {
      deep.pushTop(win.base + s, win.sizeAt(s));
      moved++;
    }
    // When every level fell out, the new base is still `base + shift`, not `k - target`: it
    // must stay above every level just spilled.
    win.shiftUp(shift, moved);
  }

  /** Lowers the window so its best sits near slot `target`, pulling deep levels back in. */
  private lowerWindow(): void {
    const win = this.win;
    const deep = this.deep;
    if (win.count === 0) {
      if (deep.n === 0) return;
      win.reset(deep.keyAt(deep.n - 1) - this.target);
    } else {
      const shift = ((this.target - win.top) >>> 5) << 5;
      if (shift === 0) return;
      win.shiftDown(shift);
    }
    const base = win.base;
    for (let j = deep.n - 1; j >= 0 && deep.keyAt(j) >= base; j--) {
      win.set(deep.keyAt(j) - base, deep.sizeAt(j));
      deep.popTop();
    }
  }

  // ---- the top cache ----

  /** Brings the top cache up to date with a change that reaches it. */
  private touchTop(price: number, size: number, old: number): void {
    const top = this.top;
    const moved = top.update(price, size, old);
    if (moved === SIZE_ONLY) return;
    // A removal emptied the last slot of a full cache: the side's next level, if any, fills it.
    if (moved === SHORT && this.n >= top.cap) this.pushBelow(top.refillBelow);
    this.syncTopFloor();
  }

  /**
   * Pushes to the top cache the best level ranked below `price` (the side must hold one).
   * `price` need not be a level: it may be one just removed, even above the window.
   */
  private pushBelow(price: number): void {
    const k = this.keyOf(price);
    const win = this.win;
    const deep = this.deep;
    const slot = k - win.base;
    if (slot >= 0) {
      const s = slot < win.size ? win.below(slot) : win.top;
      if (s >= 0) {
        this.top.push(this.keyOf(win.base + s), win.sizeAt(s));
        return;
      }
    }
    // Below the window, or no window level below `price`: the deep store's best below it.
    const j = slot >= 0 ? deep.n - 1 : deep.below(k);
    this.top.push(this.keyOf(deep.keyAt(j)), deep.sizeAt(j));
  }

  /** Recomputes {@link topFloor} after the top cache changed. */
  private syncTopFloor(): void {
    const top = this.top;
    this.topFloor = top.cap === 0 ? Infinity : top.n < top.cap ? -1 : this.keyOf(top.prices[top.cap - 1]!);
  }

  /** Refills the top cache from the levels (after a resize, a load or a bulk change). */
  private fillTop(): void {
    this.top.fill(this);
    this.syncTopFloor();
  }

  /**
   * Makes the top cache keep at least `count` levels when `count` is within its limit,
   * growing to twice what it kept at least (so reading rank after rank settles fast); false
   * when `count` is beyond the limit.
   */
  private keepTop(count: number): boolean {
    const top = this.top;
    if (count <= top.cap) return true;
    if (count > top.limit) return false;
    const twice = 2 * top.cap;
    top.resize(Math.min(top.limit, count > twice ? count : twice));
    this.fillTop();
    return true;
  }

  // ---- reads, best level first (rank 0); a `count` is at most `n`, a rank below it ----

  /** Shows the best `n` levels in `view` when the top cache holds them (the hot case, two compares); else false. */
  showTop(n: number, view: TopView): boolean {
    const top = this.top;
    if (n >>> 0 === n && n <= top.n) {
      view.show(top.prices, top.sizes, n);
      return true;
    }
    return false;
  }

  /** Shows the best `count` levels in `view`: the top cache's arrays when within its limit, else a copy. */
  view(count: number, view: TopView): void {
    const top = this.top;
    if (count <= top.n || this.keepTop(count)) view.show(top.prices, top.sizes, count);
    else view.fill(this, count);
  }

  /** Price of rank `i`. */
  priceAt(i: number): number {
    if (i < this.top.n || this.keepTop(i + 1)) return this.top.prices[i]!;
    return this.keyOf(this.keyAtRank(i));
  }

  /** Size of rank `i`. */
  sizeAt(i: number): number {
    if (i < this.top.n || this.keepTop(i + 1)) return this.top.sizes[i]!;
    return this.sizeAtRank(i);
  }

  /** Calls `cb` for the best `count` levels. */
  forEach(count: number, cb: LevelCallback): void {
    const top = this.top;
    if (count <= top.n || this.keepTop(count)) {
      const prices = top.prices;
      const sizes = top.sizes;
      for (let i = 0; i < count; i++) cb(prices[i]!, sizes[i]!, i);
      return;
    }
    for (let i = 0; i < count; i++) cb(this.keyOf(this.keyAtRank(i)), this.sizeAtRank(i), i);
  }

  /** {@link LevelSource.fill}: the best `count` levels (fewer when the side holds fewer), by rank. */
  fill(count: number, prices: number[], sizes: number[]): number {
    const total = this.n < count ? this.n : count;
    for (let i = 0; i < total; i++) {
      prices[i] = small(this.keyOf(this.keyAtRank(i)));
      sizes[i] = small(this.sizeAtRank(i));
    }
    return total;
  }

  /** Key of rank `i`, past the top cache: the window's rank cache, then the deep store. */
  private keyAtRank(i: number): number {
    const win = this.win;
    return i < win.count ? win.keyAtRank(i) : this.deep.keyAt(this.deep.n - 1 - (i - win.count));
  }

  /** Size of rank `i` (see {@link keyAtRank}). */
  private sizeAtRank(i: number): number {
    const win = this.win;
    return i < win.count ? win.sizeAtRank(i) : this.deep.sizeAt(this.deep.n - 1 - (i - win.count));
  }
}
