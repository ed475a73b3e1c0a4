/**
 * The reused object behind `topView`: the best levels of one side. Within the side's top
 * cache it shows the cache's own arrays (nothing copied); beyond the cache's limit, or on the
 * exact path, it fills arrays of its own, grown when needed and then reused.
 */
import type { Side } from '../../protocol';
import type { BookSide } from './BookSide';
import type { BookTopView } from './BookSideReader';
import { toExactNumber } from './BookPrecisionError';
import { fillLevels } from './levelWalk';
import { small, zeros } from './TopCache';

export class TopView implements BookTopView {
  readonly side: Side;
  length = 0;
  prices: number[] = [];
  sizes: number[] = [];
  /** The view's own arrays (for reads the top cache does not serve). */
  private ownPrices: number[] = [];
  private ownSizes: number[] = [];

  constructor(side: Side) {
    this.side = side;
  }

  /** Shows the first `length` entries of arrays held elsewhere (the side's top cache). */
  show(prices: number[], sizes: number[], length: number): void {
    this.prices = prices;
    this.sizes = sizes;
    this.length = length;
  }

  /**
   * Copies the best `count` levels of `side` (count <= its levels) into the view's own arrays.
   * @throws BookPrecisionError on the exact path when one of them holds a value above
   *   2^53 - 1 (the view is then empty).
   */
  fill(side: BookSide, count: number): void {
    if (this.ownPrices.length < count) {
      this.ownPrices = zeros(count);
      this.ownSizes = zeros(count);
    }
    const prices = this.ownPrices;
    const sizes = this.ownSizes;
    this.show(prices, sizes, 0);
    if (!side.big) {
      this.length = fillLevels(side, count, prices, sizes);
      return;
    }
    const ex = side.exact;
    for (let i = 0; i < count; i++) {
      const j = ex.n - 1 - i;
      prices[i] = small(toExactNumber('price', side.bigKeyOf(ex.keys[j]!)));
      sizes[i] = small(toExactNumber('size', ex.sizes[j]!));
    }
    this.length = count;
  }
}
