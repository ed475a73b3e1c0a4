/** Market metadata and statistics records (exchange-api-v1.md section 2.3). */
import * as z from 'zod/mini';
import { MarketStatus, MarketType } from '../enums';
import { Address, Int32, NonNegInt32, PositiveInt32, TimestampNs, TokenId, Uint64 } from '../scalars';

export const MarginTier = z.strictObject({
  tier: NonNegInt32,
  notional_lower_bound_quote_lots: Uint64,
  max_leverage: PositiveInt32,
  maintenance_margin_rate_bps: NonNegInt32,
  maintenance_deduction_quote_lots: Uint64,
});
export type MarginTier = z.infer<typeof MarginTier>;

export const Market = z.strictObject({
  market_type: MarketType,
  market_id: NonNegInt32,
  symbol: z.string(),
  base_token: z.string(),
  quote_token: z.string(),
  quote_token_id: z.optional(TokenId),
  base_decimals: NonNegInt32,
  quote_decimals: NonNegInt32,
  base_atoms_per_base_lot: Uint64,
  quote_atoms_per_quote_lot: Uint64,
  base_lots_per_base_unit: Uint64,
  quote_lots_per_quote_unit: Uint64,
  quote_lots_per_base_unit_per_tick: Uint64,
  default_maker_fee_100th_bps: Int32,
  default_taker_fee_100th_bps: Int32,
  liquidation_fee_100th_bps: z.optional(NonNegInt32),
  min_size_base_lots: Uint64,
  min_order_notional_quote_lots: Uint64,
  max_market_order_value_quote_lots: z.optional(Uint64),
  max_limit_order_value_quote_lots: z.optional(Uint64),
  max_leverage: z.optional(PositiveInt32),
  oracle_id: z.optional(z.string()),
  fee_recipient: z.optional(Address),
  margin_tiers: z.optional(z.array(MarginTier)),
  status: MarketStatus,
});
export type Market = z.infer<typeof Market>;

export const MarketStats = z.strictObject({
  market_type: MarketType,
  market_id: NonNegInt32,
  timestamp_ns: TimestampNs,
  volume_24h_base_lots: Uint64,
  volume_24h_quote_lots: Uint64,
  trades_24h: Uint64,
  last_price_ticks: z.optional(Uint64),
  mark_price_ticks: z.optional(Uint64),
  oracle_price_ticks: z.optional(Uint64),
  mid_price_ticks: z.optional(Uint64),
  best_bid_price_ticks: z.optional(Uint64),
  best_ask_price_ticks: z.optional(Uint64),
  open_interest_base_lots: z.optional(Uint64),
  funding_rate_100th_bps: z.optional(Int32),
  predicted_funding_rate_100th_bps: z.optional(Int32),
  low_24h_price_ticks: z.optional(Uint64),
  high_24h_price_ticks: z.optional(Uint64),
  change_24h_bps: z.optional(z.number().check(z.int())),
});
export type MarketStats = z.infer<typeof MarketStats>;
