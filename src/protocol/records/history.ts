/**
 * Account history records the API document names without showing (exchange-api-v1.md 2.5).
 * ASSUMED shapes, kept small: see streaming-protocol.md section 6.
 */
import * as z from 'zod/mini';
import { TransferKind } from '../enums';
import { Address, Int64, Int64Number, NonNegInt32, TimestampNs, TokenId, Uint64 } from '../scalars';

export const FundingPayment = z.strictObject({
  sequence: Uint64,
  timestamp_ns: TimestampNs,
  market_id: NonNegInt32,
  funding_rate_100th_bps: z.number().check(z.int()),
  position_size_base_lots: Uint64,
  payment_quote_lots: Int64,
});
export type FundingPayment = z.infer<typeof FundingPayment>;

export const PnlPoint = z.strictObject({
  open_time_ms: Int64Number,
  equity_quote_lots: Int64,
  realized_pnl_quote_lots: Int64,
  unrealized_pnl_quote_lots: Int64,
});
export type PnlPoint = z.infer<typeof PnlPoint>;

export const Transfer = z.strictObject({
  sequence: Uint64,
  timestamp_ns: TimestampNs,
  kind: TransferKind,
  token_id: TokenId,
  amount_token_atoms: Uint64,
  counterparty: z.optional(Address),
  transaction_hash: z.string(),
});
export type Transfer = z.infer<typeof Transfer>;

export const Liquidation = z.strictObject({
  sequence: Uint64,
  timestamp_ns: TimestampNs,
  market_id: NonNegInt32,
  address: Address,
  subaccount_id: NonNegInt32,
  size_base_lots: Uint64,
  price_ticks: Uint64,
  fee_quote_lots: Uint64,
});
export type Liquidation = z.infer<typeof Liquidation>;
