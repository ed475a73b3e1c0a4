/** Exact bigint conversions between the exchange's integer units and display decimals. */
export { divideRounded, formatRatio, formatScaled, parseDecimal, toBigInt, ROUNDING_MODES, type FormatOptions, type IntegerInput, type RoundingMode, type ScaledDecimal, type ToIntegerOptions } from './decimal';
export { baseLotsToSize, priceToTicks, quoteAmountToQuoteLots, quoteLotsToQuoteAmount, sizeToBaseLots, ticksToPrice, type MarketScales } from './marketUnits';
export { amountToAtoms, atomsToAmount } from './tokenUnits';
