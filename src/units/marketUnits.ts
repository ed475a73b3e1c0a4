/**
 * Exact conversions between a market's integer units (price ticks, base lots, quote lots)
 * and display decimals, from the market's scale fields:
 *
 * - price (quote units per base unit) = ticks * quote_lots_per_base_unit_per_tick / quote_lots_per_quote_unit
 * - size (base units)                 = base lots / base_lots_per_base_unit
 * - quote amount (quote units)        = quote lots / quote_lots_per_quote_unit
 *
 * Integer -> decimal is exact (see `FormatOptions` for the rare ratio without a finite
 * expansion); decimal -> integer is exact or throws, unless a rounding mode is given.
 */
import type { Market } from '../protocol/records/market';
import { InvalidParameterError } from '../errors';
import { decimalToUnits, formatRatio, toBigInt, type FormatOptions, type ToIntegerOptions } from './decimal';
import type { IntegerInput } from './decimal';

/** The fields of a `Market` record the conversions use. */
export type MarketScales = Pick<Market, 'base_lots_per_base_unit' | 'quote_lots_per_quote_unit' | 'quote_lots_per_base_unit_per_tick'>;

function scale(market: MarketScales, field: keyof MarketScales): bigint {
  const v = market?.[field];
  const n = typeof v === 'string' && /^[0-9]+$/.test(v) ? BigInt(v) : 0n;
  if (n === 0n) throw new InvalidParameterError(`invalid market: '${field}' must be a positive integer string, got ${JSON.stringify(v)}`, { param: `market.${field}` });
  return n;
}

/**
 * Price ticks -> decimal price in quote units per base unit.
 * @example ticksToPrice(market, 123450n) // "123.45" when one tick is 0.001
 * @throws InvalidParameterError for bad input, or a price without finite expansion and no `maxDecimals`.
 */
export function ticksToPrice(market: MarketScales, ticks: IntegerInput, opts: FormatOptions = {}): string {
  const t = toBigInt(ticks, 'ticks');
  return formatRatio(t * scale(market, 'quote_lots_per_base_unit_per_tick'), scale(market, 'quote_lots_per_quote_unit'), opts, 'price');
}

/**
 * Decimal price -> price ticks.
 * @example priceToTicks(market, '123.45') // 123450n when one tick is 0.001
 * @throws InvalidParameterError naming the price when it is not a whole number of ticks (unless `rounding`).
 */
export function priceToTicks(market: MarketScales, price: string, opts: ToIntegerOptions = {}): bigint {
  return decimalToUnits(price, scale(market, 'quote_lots_per_base_unit_per_tick'), scale(market, 'quote_lots_per_quote_unit'), opts, 'price', 'tick size');
}

/** Base lots -> decimal size in base units. @throws InvalidParameterError for bad input. */
export function baseLotsToSize(market: MarketScales, lots: IntegerInput, opts: FormatOptions = {}): string {
  return formatRatio(toBigInt(lots, 'base lots'), scale(market, 'base_lots_per_base_unit'), opts, 'size');
}

/** Decimal size in base units -> base lots. @throws InvalidParameterError naming the size when it is not a whole number of lots (unless `rounding`). */
export function sizeToBaseLots(market: MarketScales, size: string, opts: ToIntegerOptions = {}): bigint {
  return decimalToUnits(size, 1n, scale(market, 'base_lots_per_base_unit'), opts, 'size', 'base lot size');
}

/** Quote lots -> decimal amount in quote units. @throws InvalidParameterError for bad input. */
export function quoteLotsToQuoteAmount(market: MarketScales, lots: IntegerInput, opts: FormatOptions = {}): string {
  return formatRatio(toBigInt(lots, 'quote lots'), scale(market, 'quote_lots_per_quote_unit'), opts, 'quote amount');
}

/** Decimal amount in quote units -> quote lots. @throws InvalidParameterError naming the amount when it is not a whole number of lots (unless `rounding`). */
export function quoteAmountToQuoteLots(market: MarketScales, amount: string, opts: ToIntegerOptions = {}): bigint {
  return decimalToUnits(amount, 1n, scale(market, 'quote_lots_per_quote_unit'), opts, 'quote amount', 'quote lot size');
}
