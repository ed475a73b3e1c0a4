/**
 * The order book replica: exact, fast, and honest about what its snapshot did not cover.
 *
 * - Exact integers: prices (ticks) and sizes (base lots) are Uint64. Each side keeps JS
 *   numbers while every value is a safe integer and switches to bigints the moment one is
 *   not; number reads of a value above 2^53 - 1 throw `BookPrecisionError`, never round.
 * - Fast: per side, a window of ticks around the best price indexed directly (setting a level
 *   there is an index, not a search) over sorted typed arrays for the deeper levels (see
 *   `BookSide`); best bid/ask are O(1); top-N reads allocate nothing per read
 *   (`topView`, `forEachLevel`, the `bids`/`asks` readers): once read, the best levels are
 *   kept in rank order on every change, so reading them again is indexing.
 * - The 500-level rule (streaming-protocol.md section 5): a snapshot side that held
 *   `depthLimit` levels is truncated at its deepest price (the boundary). Only levels the
 *   snapshot covered or an update set are ever stored, so nothing beyond the boundary is
 *   presented unless an update created it. Removals inside the covered range shrink the
 *   presented depth; the covered range itself never changes and no level is invented. When a
 *   truncated side has no level left at or better than its boundary, its best price is
 *   unknown: the next consistency check throws `ReplicaIntegrityError` so the replica resyncs.
 * - A crossed or locked book after an update throws `ReplicaIntegrityError` (resync).
 */
import { InvalidParameterError } from '../../errors';
import { ReplicaIntegrityError } from '../ReplicaIntegrityError';
import type { PriceLevel, Side } from '../../protocol';
import type { FormatOptions } from '../../units/decimal';
import type { MarketScales } from '../../units/marketUnits';
import { BookDecimals } from './BookDecimals';
import { BookSide, type BigLevelCallback, type BookSideReader, type BookSideStore, type BookTopView, type LevelCallback } from './BookSide';
import { toExactNumber } from './BookPrecisionError';
import { FrameApplier } from './FrameApplier';
import { isUint64Bigint } from './parseSafeUint';
import { loadSide } from './loadSide';
import { resolveBookOptions, type OrderBookOptions } from './OrderBookOptions';

export type { OrderBookOptions } from './OrderBookOptions';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MAX_SAFE_BIG = BigInt(MAX_SAFE);

/** Both sides of a book in wire form, best first. */
export interface BookLevels {
  bids: PriceLevel[];
  asks: PriceLevel[];
}

/**
 * A live order book. Mutated in place by `applyLevels`; every read sees the current state.
 *
 * @example
 * const book = OrderBook.fromSnapshot(snapshotData);          // { bids, asks } best first
 * book.applyLevels(update.bids, update.asks);                 // absolute sizes, "0" removes
 * const bid = book.bestBid(), ask = book.bestAsk();           // numbers, O(1)
 * const asks = book.topView('ask', 10);                       // no allocation, no callback
 * for (let i = 0; i < asks.length; i++) use(asks.prices[i], asks.sizes[i]);
 * book.forEachLevel('ask', 10, (price, size, i) => { ... });  // no allocation
 * book.decimals(market).bestBid();                            // '64.994': display decimals
 */
export class OrderBook {
  /** The options in force, defaults applied. */
  readonly options: Readonly<Required<OrderBookOptions>>;
  private readonly b: BookSideStore;
  private readonly a: BookSideStore;
  private readonly frames: FrameApplier;
  private ver = 0;

  /**
   * An empty book that covers both whole sides (nothing truncated).
   * @throws InvalidParameterError when an option is out of range (see {@link OrderBookOptions}).
   */
  constructor(opts: OrderBookOptions = {}) {
    this.options = resolveBookOptions(opts);
    const sideOpts = { windowTicks: this.options.windowTicks, topLevels: this.options.topLevels };
    this.b = new BookSide('bid', sideOpts);
    this.a = new BookSide('ask', sideOpts);
    this.frames = new FrameApplier(this.b, this.a, () => this.frameApplied());
  }

  /**
   * Builds a book from a REST snapshot's `data` (`/v1/orderBook`, levels best first).
   * Zero-size levels are skipped (they still count toward the depth limit).
   * @throws ReplicaIntegrityError when a level is not a Uint64 string, a side is not strictly
   *   best first, or the snapshot is crossed or locked.
   */
  static fromSnapshot(snapshot: { readonly bids: readonly PriceLevel[]; readonly asks: readonly PriceLevel[] }, opts: OrderBookOptions = {}): OrderBook {
    const book = new OrderBook(opts);
    loadSide(book.b, snapshot.bids, book.options.depthLimit);
    loadSide(book.a, snapshot.asks, book.options.depthLimit);
    book.assertConsistent();
    return book;
  }

  /** Read access to the bids, best (highest) first. The same live object for the book's life. */
  get bids(): BookSideReader {
    return this.b;
  }

  /** Read access to the asks, best (lowest) first. The same live object for the book's life. */
  get asks(): BookSideReader {
    return this.a;
  }

  /** Incremented by every applied update (`applyLevels`, `applyLevel`, `applyLevelBig`). */
  get version(): number {
    return this.ver;
  }

  /**
   * Applies one `book` update: each level's new absolute size, `"0"` removes the level.
   * All or nothing: an invalid value leaves the book as it was. Then the book is checked
   * (see {@link assertConsistent}). A price listed twice on a side is set twice, the last
   * listing winning: updates from the feed never do that (the decoder rejects such an update
   * as invalid and the replica resyncs), so only a direct caller can.
   * @throws ReplicaIntegrityError when a value is not a Uint64 string (book unchanged), or the
   *   result is crossed/locked or has lost its best price (book changed: resync it).
   */
  applyLevels(bids: readonly PriceLevel[], asks: readonly PriceLevel[]): this {
    this.frames.apply(bids, asks);
    return this;
  }

  /** Called by the frame applier once an update's levels are set: counts the update and checks the book. */
  private frameApplied(): void {
    this.ver++;
    this.assertConsistent();
  }

  /**
   * Sets one level (number path). Does NOT check the book: a frame applied level by level
   * may pass through crossed states, so call {@link assertConsistent} after the last level.
   * @throws InvalidParameterError when `price` or `size` is not a non-negative safe integer.
   */
  applyLevel(side: Side, price: number, size: number): this {
    if (!(Number.isSafeInteger(price) && price >= 0 && Number.isSafeInteger(size) && size >= 0)) {
      throw new InvalidParameterError(`book level (${price}, ${size}): price and size must be non-negative safe integers; use applyLevelBig`, { param: Number.isSafeInteger(price) && price >= 0 ? 'size' : 'price' });
    }
    const s = side === 'bid' ? this.b : this.a;
    if (s.isBigint) s.setBig(BigInt(price), BigInt(size));
    else s.set(price, size);
    this.ver++;
    return this;
  }

  /**
   * Sets one level exactly (any Uint64). Like {@link applyLevel}, does not check the book.
   * @throws InvalidParameterError when `price` or `size` is not a Uint64.
   */
  applyLevelBig(side: Side, price: bigint, size: bigint): this {
    if (!isUint64Bigint(price) || !isUint64Bigint(size)) throw new InvalidParameterError(`book level (${price}, ${size}): price and size must be Uint64`, { param: isUint64Bigint(price) ? 'size' : 'price' });
    const s = side === 'bid' ? this.b : this.a;
    if (!s.isBigint && price <= MAX_SAFE_BIG && size <= MAX_SAFE_BIG) s.set(Number(price), Number(size));
    else {
      s.toBig();
      s.setBig(price, size);
    }
    this.ver++;
    return this;
  }

  /**
   * Checks the book: a truncated side must keep a level at or better than its boundary
   * (else its best price is unknown), and the best bid must be below the best ask.
   * @throws ReplicaIntegrityError otherwise.
   */
  assertConsistent(): void {
    const b = this.b;
    const a = this.a;
    if (b.isBigint || a.isBigint) {
      this.assertConsistentExact();
      return;
    }
    // The hot case, in a few compares: keys are >= 0 on the number path, -1 means empty.
    const bk = b.coveredBestKey();
    const ak = a.coveredBestKey();
    // bid >= ask, with bid = bk and ask = MAX_SAFE - ak.
    if (bk >= 0 && ak >= 0 && bk >= MAX_SAFE - ak) this.failCrossed();
  }

  /** {@link assertConsistent} when a side is on the exact path. */
  private assertConsistentExact(): void {
    this.b.assertCovered();
    this.a.assertCovered();
    if (this.isCrossed()) this.failCrossed();
  }

  private failCrossed(): never {
    throw new ReplicaIntegrityError(`book is crossed or locked: best bid ${this.b.bestBig()} >= best ask ${this.a.bestBig()}`);
  }

  /** True when both sides are non-empty and best bid >= best ask (crossed or locked). */
  isCrossed(): boolean {
    const b = this.b;
    const a = this.a;
    if (b.length === 0 || a.length === 0) return false;
    if (!b.isBigint && !a.isBigint) return b.bestPrice() >= a.bestPrice();
    return b.bestBig() >= a.bestBig();
  }

  /** Best bid price, or undefined when there are no bids. @throws BookPrecisionError above 2^53 - 1. */
  bestBid(): number | undefined {
    const s = this.b;
    if (!s.isBigint) {
      const k = s.bestKeyOrEmpty();
      return k < 0 ? undefined : k;
    }
    return s.length === 0 ? undefined : toExactNumber('price', s.bestBig());
  }

  /** Best ask price, or undefined when there are no asks. @throws BookPrecisionError above 2^53 - 1. */
  bestAsk(): number | undefined {
    const s = this.a;
    if (!s.isBigint) {
      const k = s.bestKeyOrEmpty();
      return k < 0 ? undefined : MAX_SAFE - k;
    }
    return s.length === 0 ? undefined : toExactNumber('price', s.bestBig());
  }

  /** Size at the best bid, or undefined. @throws BookPrecisionError above 2^53 - 1. */
  bestBidSize(): number | undefined {
    const s = this.b;
    if (s.length === 0) return undefined;
    return s.isBigint ? toExactNumber('size', s.bestSizeBig()) : s.bestSize();
  }

  /** Size at the best ask, or undefined. @throws BookPrecisionError above 2^53 - 1. */
  bestAskSize(): number | undefined {
    const s = this.a;
    if (s.length === 0) return undefined;
    return s.isBigint ? toExactNumber('size', s.bestSizeBig()) : s.bestSize();
  }

  /** Exact best bid, or undefined. */
  bestBidBig(): bigint | undefined {
    return this.b.length === 0 ? undefined : this.b.bestBig();
  }

  /** Exact best ask, or undefined. */
  bestAskBig(): bigint | undefined {
    return this.a.length === 0 ? undefined : this.a.bestBig();
  }

  /** Best ask minus best bid in ticks, or undefined when a side is empty. @throws BookPrecisionError */
  spread(): number | undefined {
    const b = this.b;
    const a = this.a;
    if (b.length === 0 || a.length === 0) return undefined;
    if (!b.isBigint && !a.isBigint) return a.bestPrice() - b.bestPrice();
    return toExactNumber('spread', a.bestBig() - b.bestBig());
  }

  /** Exact spread, or undefined when a side is empty. */
  spreadBig(): bigint | undefined {
    if (this.b.length === 0 || this.a.length === 0) return undefined;
    return this.a.bestBig() - this.b.bestBig();
  }

  /**
   * Mid price in ticks (may end in .5), or undefined when a side is empty.
   * @throws BookPrecisionError when bid + ask is above 2^53 - 1 (the half would round).
   */
  mid(): number | undefined {
    const b = this.b;
    const a = this.a;
    if (b.length === 0 || a.length === 0) return undefined;
    if (!b.isBigint && !a.isBigint) {
      const sum = b.bestPrice() + a.bestPrice();
      if (sum <= MAX_SAFE) return sum / 2;
    }
    return toExactNumber('bid + ask', b.bestBig() + a.bestBig()) / 2;
  }

  /** Number of levels presented on a side. */
  depth(side: Side): number {
    return side === 'bid' ? this.b.length : this.a.length;
  }

  /**
   * Calls `cb(price, size, i)` for the best `n` levels of a side, best first (`i` = 0 is the
   * best); returns how many levels it visited. Allocates nothing: hoist `cb` out of hot loops.
   * @throws BookPrecisionError on a value above 2^53 - 1 (use {@link forEachLevelBig}).
   */
  forEachLevel(side: Side, n: number, cb: LevelCallback): number {
    return (side === 'bid' ? this.b : this.a).forEach(n, cb);
  }

  /**
   * The best `n` levels of a side (fewer when it holds fewer) as a reused view, the fastest
   * read: `prices[i]` / `sizes[i]` for `i < length`, best first. One object per side, refreshed
   * by each call and valid until the book next changes. Within `topLevels` it shows the
   * book's own rank-ordered arrays (nothing is copied); beyond, it fills arrays of its own.
   * @throws BookPrecisionError when one of those levels holds a value above 2^53 - 1 (use
   *   {@link forEachLevelBig}).
   * @example
   * const bids = book.topView('bid', 10);
   * for (let i = 0; i < bids.length; i++) total += bids.prices[i] * bids.sizes[i];
   */
  topView(side: Side, n: number): BookTopView {
    return (side === 'bid' ? this.b : this.a).topView(n);
  }

  /** {@link forEachLevel} with exact bigint values. */
  forEachLevelBig(side: Side, n: number, cb: BigLevelCallback): number {
    return (side === 'bid' ? this.b : this.a).forEachBig(n, cb);
  }

  /** A copy of the best `n` levels of each side in wire form (allocates). */
  top(n: number): BookLevels {
    return this.toSnapshot(n);
  }

  /**
   * The presented book in wire form, best first, at most `depth` levels a side (all when
   * omitted): the shape of `/v1/orderBook` data, for comparisons with another source.
   */
  toSnapshot(depth = Infinity): BookLevels {
    return { bids: this.b.toLevels(depth), asks: this.a.toLevels(depth) };
  }

  /**
   * Reads of this book as display decimals of `market` (prices in quote units per base unit,
   * sizes in base units), exact on both paths: see {@link BookDecimals}. Create it once; it
   * reads this book live.
   * @param market a `Market` record, or its three scale fields.
   * @param opts rounding of the printed decimals; exact by default.
   * @throws InvalidParameterError when a scale field of `market` is not a positive integer
   *   string, or `opts` is invalid.
   * @example
   * const dec = book.decimals(market);
   * dec.bestBid();          // '64.994': the best bid's ticks in quote units
   * dec.levels('ask', 3);   // [{ price: '64.997', size: '1.5' }, ...] best first
   */
  decimals(market: MarketScales, opts?: FormatOptions): BookDecimals {
    return new BookDecimals(this, market, opts);
  }
}

