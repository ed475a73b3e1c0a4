/**
 * The market object of the unversioned `/markets` endpoints (exchange-api-v1.md 2.4).
 * Which fields are required is not shown: the identity fields are required, the rest optional.
 */
import { z } from 'zod';

export const LegacyMarginTier = z.strictObject({
  notional_lower_bound: z.string(),
  max_leverage: z.number().int(),
  maintenance_margin_rate_bps: z.number().int(),
});
export type LegacyMarginTier = z.infer<typeof LegacyMarginTier>;

export const LegacyMarket = z.strictObject({
  market_type: z.string(),
  market_id: z.number().int(),
  symbol: z.string(),
  base_token: z.string().optional(),
  quote_token: z.string().optional(),
  quote_token_id: z.string().optional(),
  default_maker_fee: z.number().optional(),
  default_taker_fee: z.number().optional(),
  liquidation_fee: z.number().optional(),
  tick_size: z.string().regex(/^-?[0-9]+$/).optional(),
  base_decimals: z.number().int().optional(),
  quote_decimals: z.number().int().optional(),
  min_base_amount: z.string().optional(),
  min_order_notional: z.string().optional(),
  max_leverage: z.number().int().optional(),
  max_market_order_value: z.string().optional(),
  max_limit_order_value: z.string().optional(),
  margin_tiers: z.array(LegacyMarginTier).optional(),
  oracle_id: z.string().optional(),
  fee_recipient: z.string().optional(),
  mark_price: z.string().optional(),
  oracle_price: z.string().optional(),
  open_interest: z.string().optional(),
  predicted_funding_rate: z.number().int().optional(),
  volume_24h_quote_atoms: z.string().optional(),
});
export type LegacyMarket = z.infer<typeof LegacyMarket>;
