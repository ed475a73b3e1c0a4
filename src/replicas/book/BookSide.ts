/**
 * One side of the order book, in one of two representations:
 * - the number path ({@link NumberLevels}: a window of ticks near the best, sorted typed
 *   arrays deeper, the best levels in rank order), while every value is a safe integer;
 * - the exact path ({@link SortedBigLevels}), from the moment a value exceeds 2^53 - 1. A
 *   side never goes back to numbers (a resync builds a new book).
 * It also keeps what the snapshot covered (the 500-level boundary) and the reused view.
 *
 * Every field is private: the book's own code goes through {@link BookSideStore}, readers
 * through {@link BookSideReader}.
 */
import { InvalidParameterError } from '../../errors';
import { ReplicaIntegrityError } from '../ReplicaIntegrityError';
import { UINT64_MAX, type PriceLevel, type Side } from '../../protocol';
import type { BigLevelCallback, BookSideReader, BookTopView, LevelCallback } from './BookSideReader';
import { toExactNumber } from './BookPrecisionError';
import { BULK, NumberLevels } from './NumberLevels';
import { SortedBigLevels } from './SortedBigLevels';
import { small, type LevelSource } from './TopCache';
import { TopView } from './TopView';
import { sortBigChanges } from './sortChanges';

export type { BigLevelCallback, BookSideReader, BookTopView, LevelCallback } from './BookSideReader';

/** Options of a side's storage. */
export interface BookSideOptions {
  /** Ticks the window spans: a power of two, 64 or more. */
  windowTicks: number;
  /** Most levels kept in rank order (the top cache), 1 or more. */
  topLevels: number;
}

/**
 * A side as the book's own code (`OrderBook`, `FrameApplier`, `loadSide`) uses it: the
 * reader, plus the best level on either path, the mutators and the loading. The `number`
 * methods are the number path's (`isBigint` false), where every value is a safe integer;
 * the `bigint` ones work on both paths.
 */
export interface BookSideStore extends BookSideReader {
  /** Best key on the number path, or -1 when the side is empty: a bid's price, an ask's `2^53 - 1 - price`. */
  bestKeyOrEmpty(): number;
  /** Best price on the number path (side non-empty). */
  bestPrice(): number;
  /** Size at the best level on the number path (side non-empty). */
  bestSize(): number;
  /** Exact best price (side non-empty). */
  bestBig(): bigint;
  /** Exact size at the best level (side non-empty). */
  bestSizeBig(): bigint;
  /**
   * The best key on the number path (-1 when the side is empty), checked against what the
   * snapshot covered. One call per side in the per-frame check, small enough to be inlined.
   * @throws ReplicaIntegrityError when the side is truncated and no level at or better than
   *   its boundary remains (see {@link assertCovered}).
   */
  coveredBestKey(): number;
  /**
   * Checks, on either path, that a truncated side keeps a level at or better than its
   * boundary: else its best price is unknown (an unseen level beyond the boundary may be
   * better than any level an update created there).
   * @throws ReplicaIntegrityError otherwise.
   */
  assertCovered(): void;

  /** Loads a snapshot side on the number path (see `NumberLevels.load`); false when out of order. */
  load(pairs: Float64Array, count: number): boolean;
  /** Loads a snapshot side on the exact path: price, size, ... best first; false when out of order. */
  loadBig(pairs: readonly bigint[]): boolean;
  /** Marks the side as truncated at `price`, the deepest price the snapshot covered. */
  setBoundary(price: bigint): void;
  /** Switches to the exact path, converting every level exactly (nothing when already there). */
  toBig(): void;
  /** Sets a level on the number path (0 removes it); returns the size it had (0 when absent). */
  set(price: number, size: number): number;
  /**
   * Sets the levels of a frame on the number path: `pairs[off..off + 2 * count)` holds price,
   * size, ... in frame order (see `NumberLevels.setLevels`: a large frame is set at once).
   */
  setLevels(pairs: Float64Array, off: number, count: number): void;
  /** Sets a level on the exact path (0n removes it). */
  setBig(price: bigint, size: bigint): void;
  /** {@link setLevels} on the exact path: `pairs` holds price, size, ... in frame order. */
  setLevelsBig(pairs: readonly bigint[]): void;
  /** The best `depth` levels in wire form, best first (allocates). */
  toLevels(depth: number): PriceLevel[];
}

export class BookSide implements BookSideStore, LevelSource {
  readonly side: Side;
  private readonly isBid: boolean;
  /** Representation in use: false = `num`, true = `exact`. */
  private big = false;
  private readonly num: NumberLevels;
  private exact = new SortedBigLevels(0);
  private truncated = false;
  /** Keys below this lie beyond the snapshot's coverage (number path; meaningful when truncated). */
  private boundaryKey = 0;
  /** Same for the exact path. */
  private bBoundaryKey = 0n;
  private boundary: bigint | undefined = undefined;
  /** The view `topView` returns, reused. */
  private readonly view: TopView;

  constructor(side: Side, opts: BookSideOptions) {
    this.side = side;
    this.isBid = side === 'bid';
    this.num = new NumberLevels(this.isBid, opts.windowTicks, opts.topLevels);
    this.view = new TopView(side);
  }

  /** Exact-path key of a price (and its own inverse): levels are ordered by keys that grow toward the best. */
  private bigKeyOf(price: bigint): bigint {
    return this.isBid ? price : UINT64_MAX - price;
  }

  // ---- size and best ----

  get length(): number {
    return this.big ? this.exact.n : this.num.n;
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

  bestKeyOrEmpty(): number {
    return this.num.bestKeyOrEmpty();
  }

  bestPrice(): number {
    return this.num.keyOf(this.num.bestKeyOrEmpty());
  }

  bestSize(): number {
    return this.num.bestSize();
  }

  bestBig(): bigint {
    return this.big ? this.bigKeyOf(this.exact.keyAt(this.exact.n - 1)) : BigInt(this.bestPrice());
  }

  bestSizeBig(): bigint {
    return this.big ? this.exact.sizeAt(this.exact.n - 1) : BigInt(this.bestSize());
  }

  coveredBestKey(): number {
    const k = this.num.bestKeyOrEmpty();
    if (this.truncated && !(k >= this.boundaryKey)) this.failCoverage();
    return k;
  }

  assertCovered(): void {
    if (!this.truncated) return;
    const n = this.length;
    if (n === 0 || (this.big ? this.exact.keyAt(n - 1) < this.bBoundaryKey : this.num.bestKeyOrEmpty() < this.boundaryKey)) this.failCoverage();
  }

  private failCoverage(): never {
    const s = this.side;
    throw new ReplicaIntegrityError(`book ${s}s: no level is left at or better than the snapshot's boundary ${this.boundary}, so the best ${s} is unknown`);
  }

  // ---- loading ----

  load(pairs: Float64Array, count: number): boolean {
    return this.num.load(pairs, count);
  }

  loadBig(pairs: readonly bigint[]): boolean {
    const count = pairs.length >> 1;
    let live = 0;
    for (let j = 0; j < count; j++) {
      if (j > 0 && this.bigKeyOf(pairs[2 * j]!) >= this.bigKeyOf(pairs[2 * j - 2]!)) return false;
      if (pairs[2 * j + 1] !== 0n) live++;
    }
    const exact = new SortedBigLevels(live + (live >> 2));
    for (let j = count - 1; j >= 0; j--) {
      if (pairs[2 * j + 1] !== 0n) exact.pushTop(this.bigKeyOf(pairs[2 * j]!), pairs[2 * j + 1]!);
    }
    this.exact = exact;
    this.goBig();
    return true;
  }

  setBoundary(price: bigint): void {
    this.truncated = true;
    this.boundary = price;
    this.bBoundaryKey = this.bigKeyOf(price);
    // Only meaningful on the number path, where every price is safe.
    this.boundaryKey = this.num.keyOf(Number(price));
  }

  toBig(): void {
    if (this.big) return;
    const n = this.num.n;
    const exact = new SortedBigLevels(n + (n >> 2));
    this.num.forEachWorstFirst((price, size) => exact.pushTop(this.bigKeyOf(BigInt(price)), BigInt(size)));
    this.exact = exact;
    this.goBig();
  }

  /** Makes the exact path the one in use, freeing the number path's storage. */
  private goBig(): void {
    this.big = true;
    this.num.free();
  }

  // ---- mutation ----

  set(price: number, size: number): number {
    return this.num.set(price, size);
  }

  setLevels(pairs: Float64Array, off: number, count: number): void {
    this.num.setLevels(pairs, off, count);
  }

  setBig(price: bigint, size: bigint): void {
    this.exact.set(this.bigKeyOf(price), size);
  }

  setLevelsBig(pairs: readonly bigint[]): void {
    const count = pairs.length >> 1;
    if (count < BULK) {
      for (let j = 0; j < pairs.length; j += 2) this.setBig(pairs[j]!, pairs[j + 1]!);
      return;
    }
    const keys = new BigUint64Array(count);
    const sizes = new BigUint64Array(count);
    for (let j = 0; j < count; j++) {
      keys[j] = this.bigKeyOf(pairs[2 * j]!);
      sizes[j] = pairs[2 * j + 1]!;
    }
    this.exact.merge(keys, sizes, sortBigChanges(keys, sizes, count));
  }

  // ---- reads, best level first (rank 0) ----

  /** How many levels a read of `n` visits. */
  private countOf(n: number): number {
    const len = this.length;
    return n >= len ? len : n > 0 ? Math.floor(n) : 0;
  }

  private checkRank(i: number): void {
    const n = this.length;
    if (!(i >= 0 && i < n) || (i | 0) !== i) throw new InvalidParameterError(`level index ${i} is out of range (${this.side} side holds ${n} levels)`, { param: 'index' });
  }

  /** Exact price of rank `i` on the exact path. */
  private exactPrice(i: number): bigint {
    return this.bigKeyOf(this.exact.keyAt(this.exact.n - 1 - i));
  }

  /** Exact size of rank `i` on the exact path. */
  private exactSize(i: number): bigint {
    return this.exact.sizeAt(this.exact.n - 1 - i);
  }

  priceAt(i: number): number {
    this.checkRank(i);
    return this.big ? toExactNumber('price', this.exactPrice(i)) : this.num.priceAt(i);
  }

  sizeAt(i: number): number {
    this.checkRank(i);
    return this.big ? toExactNumber('size', this.exactSize(i)) : this.num.sizeAt(i);
  }

  priceAtBig(i: number): bigint {
    if (!this.big) return BigInt(this.priceAt(i));
    this.checkRank(i);
    return this.exactPrice(i);
  }

  sizeAtBig(i: number): bigint {
    if (!this.big) return BigInt(this.sizeAt(i));
    this.checkRank(i);
    return this.exactSize(i);
  }

  levelAt(i: number): PriceLevel {
    return { price_ticks: String(this.priceAtBig(i)), size_base_lots: String(this.sizeAtBig(i)) };
  }

  forEach(n: number, cb: LevelCallback): number {
    const count = this.countOf(n);
    if (!this.big) this.num.forEach(count, cb);
    else for (let i = 0; i < count; i++) cb(toExactNumber('price', this.exactPrice(i)), toExactNumber('size', this.exactSize(i)), i);
    return count;
  }

  forEachBig(n: number, cb: BigLevelCallback): number {
    const count = this.countOf(n);
    if (!this.big) this.num.forEach(count, (p, s, i) => cb(BigInt(p), BigInt(s), i));
    else for (let i = 0; i < count; i++) cb(this.exactPrice(i), this.exactSize(i), i);
    return count;
  }

  topView(n: number): BookTopView {
    const view = this.view;
    // The hot case in two compares: no more levels than the top cache holds (it holds none
    // on the exact path).
    if (!this.num.showTop(n, view)) {
      const count = this.countOf(n);
      if (this.big) view.fill(this, count);
      else this.num.view(count, view);
    }
    return view;
  }

  /** {@link LevelSource.fill} (for the view): the best `count` levels (count <= length). */
  fill(count: number, prices: number[], sizes: number[]): number {
    if (!this.big) return this.num.fill(count, prices, sizes);
    for (let i = 0; i < count; i++) {
      prices[i] = small(toExactNumber('price', this.exactPrice(i)));
      sizes[i] = small(toExactNumber('size', this.exactSize(i)));
    }
    return count;
  }

  toLevels(depth: number): PriceLevel[] {
    const out: PriceLevel[] = [];
    this.forEachBig(depth, (p, s) => out.push({ price_ticks: String(p), size_base_lots: String(s) }));
    return out;
  }
}
