/** The book's decimal read: prices and sizes as a market's display decimals, exact on both paths. */
import { InvalidParameterError } from '../../../src/errors';
import { BookDecimals, OrderBook } from '../../../src/replicas/book';
import { baseLotsToSize, ticksToPrice, type MarketScales } from '../../../src/units';
import { L, TWO_53, UINT64_MAX } from './bookTestUtil';

/** One tick is 0.001 quote units (10 / 10,000); one base unit is 1,000 lots. */
const MARKET: MarketScales = { quote_lots_per_base_unit_per_tick: '10', quote_lots_per_quote_unit: '10000', base_lots_per_base_unit: '1000' };

describe('OrderBook.decimals', () => {
  it('reads best prices, spread and levels as display decimals', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(64994, 1500), L(64990, 20)], asks: [L(65006, 7), L(65100, 123456)] });
    const dec = book.decimals(MARKET);
    expect(dec).toBeInstanceOf(BookDecimals);
    expect(dec.bestBid()).toBe('64.994');
    expect(dec.bestAsk()).toBe('65.006');
    expect(dec.spread()).toBe('0.012');
    expect(dec.levels('bid', 5)).toEqual([
      { price: '64.994', size: '1.5' },
      { price: '64.99', size: '0.02' },
    ]);
    expect(dec.levels('ask', 1)).toEqual([{ price: '65.006', size: '0.007' }]);
    expect(dec.levels('ask', 0)).toEqual([]);
  });

  it('reads the live book: one view serves every update', () => {
    const book = OrderBook.fromSnapshot({ bids: [L(100, 1)], asks: [L(101, 1)] });
    const dec = book.decimals(MARKET);
    book.applyLevels([L(100, 0), L(99, 2000)], []);
    expect(dec.bestBid()).toBe('0.099');
    expect(dec.levels('bid', 1)).toEqual([{ price: '0.099', size: '2' }]);
  });

  it('is undefined for an empty side', () => {
    const dec = OrderBook.fromSnapshot({ bids: [], asks: [L(101, 1)] }).decimals(MARKET);
    expect(dec.bestBid()).toBeUndefined();
    expect(dec.spread()).toBeUndefined();
    expect(dec.bestAsk()).toBe('0.101');
    expect(dec.levels('bid', 3)).toEqual([]);
  });

  it('is exact beyond 2^53 (the exact path) up to 2^64 - 1', () => {
    const bid = TWO_53 + 1n;
    const book = OrderBook.fromSnapshot({ bids: [L(bid, UINT64_MAX)], asks: [L(UINT64_MAX, 3)] });
    expect(book.bids.isBigint).toBe(true);
    const dec = book.decimals(MARKET);
    expect(dec.bestBid()).toBe('9007199254740.993');
    expect(dec.bestAsk()).toBe('18446744073709551.615');
    expect(dec.spread()).toBe(ticksToPrice(MARKET, UINT64_MAX - bid));
    expect(dec.levels('bid', 1)).toEqual([{ price: '9007199254740.993', size: '18446744073709551.615' }]);
    expect(dec.levels('ask', 1)).toEqual([{ price: ticksToPrice(MARKET, UINT64_MAX), size: baseLotsToSize(MARKET, 3n) }]);
  });

  it('rounds only when asked to, as the unit conversions do', () => {
    const thirds: MarketScales = { ...MARKET, quote_lots_per_quote_unit: '3' };
    const book = OrderBook.fromSnapshot({ bids: [L(1, 1)], asks: [L(2, 1)] });
    expect(() => book.decimals(thirds).bestBid()).toThrow(InvalidParameterError);
    expect(book.decimals(thirds, { maxDecimals: 4 }).bestBid()).toBe('3.3333');
    expect(book.decimals(thirds, { maxDecimals: 2, rounding: 'ceil' }).bestAsk()).toBe('6.67');
  });

  it('checks the market and the options when created', () => {
    const book = new OrderBook();
    expect(() => book.decimals({ ...MARKET, base_lots_per_base_unit: '0' })).toThrow(InvalidParameterError);
    expect(() => book.decimals({ ...MARKET, quote_lots_per_quote_unit: '1e3' })).toThrow(InvalidParameterError);
    expect(() => book.decimals(MARKET, { maxDecimals: -1 })).toThrow(InvalidParameterError);
  });
});
