/** Public trades and perp funding rates (exchange-api-v1.md section 2.3). */
import * as z from 'zod/mini';
import { Int32, Int64, NonNegInt32, TimestampNs, Uint64 } from '../scalars';

export const Trade = z.strictObject({
  timestamp_ns: TimestampNs,
  sequence: Uint64,
  price_ticks: Uint64,
  size_base_lots: Uint64,
  quote_notional_lots: Uint64,
  taker_is_bid: z.boolean(),
});
export type Trade = z.infer<typeof Trade>;

export const FundingRate = z.strictObject({
  timestamp_ns: TimestampNs,
  sequence: Uint64,
  market_id: NonNegInt32,
  funding_rate_100th_bps: Int32,
  long_cumulative_funding_quote_lots: Int64,
  short_cumulative_funding_quote_lots: Int64,
});
export type FundingRate = z.infer<typeof FundingRate>;
