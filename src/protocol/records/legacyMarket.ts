/**
 * The market object of the unversioned `/markets` endpoints (exchange-api-v1.md 2.4).
 * Which fields are required is not shown: the identity fields are required, the rest optional.
 */
import * as z from 'zod/mini';

export const LegacyMarginTier = z.strictObject({
  notional_lower_bound: z.string(),
  max_leverage: z.number().check(z.int()),
  maintenance_margin_rate_bps: z.number().check(z.int()),
});
export type LegacyMarginTier = z.infer<typeof LegacyMarginTier>;

export const LegacyMarket = z.strictObject({
  market_type: z.string(),
  market_id: z.number().check(z.int()),
  symbol: z.string(),
  base_token: z.optional(z.string()),
  quote_token: z.optional(z.string()),
  quote_token_id: z.optional(z.string()),
  default_maker_fee: z.optional(z.number()),
  default_taker_fee: z.optional(z.number()),
  liquidation_fee: z.optional(z.number()),
  tick_size: z.optional(z.string().check(z.regex(/^-?[0-9]+$/))),
  base_decimals: z.optional(z.number().check(z.int())),
  quote_decimals: z.optional(z.number().check(z.int())),
  min_base_amount: z.optional(z.string()),
  min_order_notional: z.optional(z.string()),
  max_leverage: z.optional(z.number().check(z.int())),
  max_market_order_value: z.optional(z.string()),
  max_limit_order_value: z.optional(z.string()),
  margin_tiers: z.optional(z.array(LegacyMarginTier)),
  oracle_id: z.optional(z.string()),
  fee_recipient: z.optional(z.string()),
  mark_price: z.optional(z.string()),
  oracle_price: z.optional(z.string()),
  open_interest: z.optional(z.string()),
  predicted_funding_rate: z.optional(z.number().check(z.int())),
  volume_24h_quote_atoms: z.optional(z.string()),
});
export type LegacyMarket = z.infer<typeof LegacyMarket>;
