/**
 * A book's prices and sizes as display decimals of one market: the book keeps integers
 * (price ticks, base lots), a `Market` record says what one tick and one lot are worth.
 */
import type { Side } from '../../protocol';
import type { FormatOptions } from '../../units/decimal';
import { baseLotsToSize, ticksToPrice, type MarketScales } from '../../units/marketUnits';
import type { OrderBook } from './OrderBook';

/** One level as display decimals: price in quote units per base unit, size in base units. */
export interface DecimalLevel {
  readonly price: string;
  readonly size: string;
}

/**
 * Decimal reads of one live book in one market's units, exact on both of the book's paths
 * (values beyond 2^53 included): each read converts the book's current integers with
 * `ticksToPrice` / `baseLotsToSize`. Create it once per book and market with
 * `OrderBook.decimals`; it reads the book it was created from, so after a resync (which
 * builds a new book) create it again from the new book. Reads allocate (strings): for
 * display and logs, not for a per-update hot loop (use the number reads there).
 *
 * @example
 * const dec = book.decimals(market);                 // market: a `Market` record (or its three scale fields)
 * dec.bestBid();                                      // '64.994' (undefined when there are no bids)
 * dec.spread();                                       // '0.012'
 * for (const { price, size } of dec.levels('ask', 5)) console.log(price, size);
 */
export class BookDecimals {
  /**
   * @throws InvalidParameterError when a scale field of `market` is not a positive integer
   *   string, or `opts.maxDecimals` is invalid.
   */
  constructor(
    private readonly book: OrderBook,
    /** The market whose units the reads use. */
    readonly market: MarketScales,
    /** Rounding of the printed decimals; exact by default (see `FormatOptions`). */
    readonly opts: FormatOptions = {},
  ) {
    // Checks the market and the options once, here, rather than at the first read.
    ticksToPrice(market, 0n, opts);
    baseLotsToSize(market, 0n, opts);
  }

  /** Best bid price, or undefined when there are no bids. */
  bestBid(): string | undefined {
    return this.price(this.book.bestBidBig());
  }

  /** Best ask price, or undefined when there are no asks. */
  bestAsk(): string | undefined {
    return this.price(this.book.bestAskBig());
  }

  /** Best ask minus best bid as a price, or undefined when a side is empty. */
  spread(): string | undefined {
    return this.price(this.book.spreadBig());
  }

  /** The best `n` levels of a side (fewer when it holds fewer), best first. */
  levels(side: Side, n: number): DecimalLevel[] {
    const out: DecimalLevel[] = [];
    this.book.forEachLevelBig(side, n, (price, size) => out.push({ price: ticksToPrice(this.market, price, this.opts), size: baseLotsToSize(this.market, size, this.opts) }));
    return out;
  }

  private price(ticks: bigint | undefined): string | undefined {
    return ticks === undefined ? undefined : ticksToPrice(this.market, ticks, this.opts);
  }
}
