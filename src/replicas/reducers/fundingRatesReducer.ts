/** `fundingRates`: a perp market's funding rates, one record per update, ordered by `FundingRate.sequence`. */
import type { FundingRate } from '../../protocol';
import { createEventReducer, type EventReducerOptions } from '../eventReducer';

/** @throws InvalidParameterError when an option is not a positive integer. */
export function createFundingRatesReducer(options: EventReducerOptions = {}) {
  return createEventReducer<FundingRate>(
    { channel: 'fundingRates', recordsOf: (data) => [data as FundingRate], sequenceOf: (r) => BigInt(r.sequence) },
    options,
  );
}
