/** The public read face of one side of a live book, and the types of its reads. */
import type { PriceLevel, Side } from '../../protocol';

/** Callback of the number read path: price in ticks, size in base lots, `i` = 0 for the best level. */
export type LevelCallback = (price: number, size: number, i: number) => void;
/** Callback of the exact read path. */
export type BigLevelCallback = (price: bigint, size: bigint, i: number) => void;

/**
 * The best levels of one side as numbers, best first: read `prices[i]` / `sizes[i]` for
 * `i < length` (entries at and beyond `length` are not part of the view). Returned by
 * `topView`, which reuses ONE object per side and refreshes it on every call: it is valid
 * until the book next changes, so call `topView` again after each update (two compares when
 * the side already keeps that many levels in rank order, see `OrderBookOptions.topLevels`).
 * The arrays are plain arrays of numbers that hold small integers as such, so values read
 * from them need no boxing wherever they go.
 *
 * @example
 * const v = book.topView('ask', 10);
 * for (let i = 0; i < v.length; i++) quote(v.prices[i], v.sizes[i]);
 */
export interface BookTopView {
  /** `'bid'` or `'ask'`. */
  readonly side: Side;
  /** Levels in the view: the `n` asked for, or fewer when the side holds fewer. */
  readonly length: number;
  /** Prices in ticks, best first. Read only: the array is usually the book's own. */
  readonly prices: readonly number[];
  /** Sizes in base lots, alongside `prices`. Read only. */
  readonly sizes: readonly number[];
}

/**
 * Read access to one side of a live book, best level first (index 0). The object is the
 * same for the book's whole life and reads the current levels: keep it, do not copy it.
 * Number-path reads allocate nothing per read. Once read, the best levels (as many as the
 * deepest read asked for, up to `OrderBookOptions.topLevels`, 64 by default) are kept in
 * rank order on every change, so `priceAt(i)` / `sizeAt(i)` / `topView(n)` / `forEach(n)`
 * within them are plain indexing; deeper ones walk the book. Number accessors throw
 * `BookPrecisionError` for a value above 2^53 - 1 (never a rounded value); the `...Big`
 * accessors always work.
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
  /** Price of the i-th best level. @throws InvalidParameterError (`ERR_INVALID_PARAMETER`) when `i` is out of range. */
  priceAt(i: number): number;
  /** Size of the i-th best level. @throws InvalidParameterError (`ERR_INVALID_PARAMETER`) when `i` is out of range. */
  sizeAt(i: number): number;
  priceAtBig(i: number): bigint;
  sizeAtBig(i: number): bigint;
  /** The i-th best level in wire form (allocates). */
  levelAt(i: number): PriceLevel;
  /** Calls `cb` for the best `n` levels (fewer if the side is shorter); returns how many. */
  forEach(n: number, cb: LevelCallback): number;
  forEachBig(n: number, cb: BigLevelCallback): number;
  /**
   * The best `n` levels (fewer if the side is shorter) as a reused view: the fastest read,
   * no callback, no allocation (beyond arrays grown once, the first time a read asks for
   * more levels than before). Valid until the book next changes.
   * @throws BookPrecisionError when one of those levels holds a value above 2^53 - 1.
   */
  topView(n: number): BookTopView;
}
