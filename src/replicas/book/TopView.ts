/**
 * The reused object behind `topView`: the best levels of one side. Within the side's top
 * cache it shows the cache's own arrays (nothing copied); beyond the cache's limit, or on the
 * exact path, it fills arrays of its own, grown when needed and then reused.
 */
import type { Side } from '../../protocol';
import type { BookTopView } from './BookSideReader';
import { zeros, type LevelSource } from './TopCache';

/**
 * Its fields are plain fields (read on every level of a reader's loop) that only its own
 * methods write; readers see them read-only through {@link BookTopView}.
 */
export class TopView implements BookTopView {
  readonly side: Side;
  length = 0;
  prices: readonly number[] = [];
  sizes: readonly number[] = [];
  /** The view's own arrays (for reads the top cache does not serve). */
  private ownPrices: number[] = [];
  private ownSizes: number[] = [];

  constructor(side: Side) {
    this.side = side;
  }

  /** Shows the first `length` entries of arrays held elsewhere (the side's top cache). */
  show(prices: readonly number[], sizes: readonly number[], length: number): void {
    this.prices = prices;
    this.sizes = sizes;
    this.length = length;
  }

  /**
   * Copies the best `count` levels of `source` into the view's own arrays.
   * @throws BookPrecisionError when one of them holds a value above 2^53 - 1 (the view is
   *   then empty).
   */
  fill(source: LevelSource, count: number): void {
    if (this.ownPrices.length < count) {
      this.ownPrices = zeros(count);
      this.ownSizes = zeros(count);
    }
    this.show(this.ownPrices, this.ownSizes, 0);
    this.length = source.fill(count, this.ownPrices, this.ownSizes);
  }
}
