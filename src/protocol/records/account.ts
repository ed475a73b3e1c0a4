/**
 * Per-account records: subaccounts, balances, positions (exchange-api-v1.md section 2.3)
 * and the assumed Order and Fill records (streaming-protocol.md section 6).
 */
import * as z from 'zod/mini';
import { MarginMode, MarketType, OrderStatus, PositionSide, Role, Side, SubaccountStatus } from '../enums';
import { Address, Int64, NonNegInt32, OrderId, PositiveInt32, TimestampNs, TokenId, Uint64 } from '../scalars';

export const Delegation = z.strictObject({
  delegate: Address,
  permissions: z.array(z.string()),
  expires_at_ns: z.optional(TimestampNs),
  name: z.optional(z.string()),
});
export type Delegation = z.infer<typeof Delegation>;

export const Subaccount = z.strictObject({
  subaccount_id: NonNegInt32,
  status: SubaccountStatus,
  created_at_ns: TimestampNs,
  cross_margin_balance_quote_lots: Int64,
  total_isolated_margin_quote_lots: Uint64,
  equity_quote_lots: Int64,
  available_margin_quote_lots: Int64,
  transferable_margin_quote_lots: Int64,
  initial_margin_requirement_quote_lots: Uint64,
  maintenance_margin_requirement_quote_lots: Uint64,
  delegations: z.array(Delegation),
});
export type Subaccount = z.infer<typeof Subaccount>;

/** `data` of `/v1/account` (streaming-protocol.md section 7). */
export const AccountInfo = z.strictObject({
  address: Address,
  subaccounts: z.array(Subaccount),
});
export type AccountInfo = z.infer<typeof AccountInfo>;

export const Balance = z.strictObject({
  token_id: TokenId,
  total_token_atoms: Uint64,
  locked_token_atoms: Uint64,
  deposited_token_atoms: Uint64,
  withdrawn_token_atoms: Uint64,
});
export type Balance = z.infer<typeof Balance>;

export const Position = z.strictObject({
  market_id: NonNegInt32,
  side: PositionSide,
  size_base_lots: Uint64,
  entry_price_ticks: Uint64,
  liquidation_price_ticks: z.optional(Uint64),
  margin_mode: MarginMode,
  leverage: PositiveInt32,
  position_value_quote_lots: Uint64,
  unrealized_pnl_quote_lots: Int64,
  realized_pnl_quote_lots: Int64,
  roe_bps: Int64,
  margin_used_token_atoms: Uint64,
  isolated_margin_quote_lots: Uint64,
  fees_quote_lots: Int64,
  funding_quote_lots: Int64,
});
export type Position = z.infer<typeof Position>;

export const Order = z.strictObject({
  order_id: OrderId,
  client_order_id: Uint64,
  market_type: MarketType,
  market_id: NonNegInt32,
  side: Side,
  price_ticks: Uint64,
  original_size_base_lots: Uint64,
  remaining_size_base_lots: Uint64,
  filled_size_base_lots: Uint64,
  status: OrderStatus,
  created_at_ns: TimestampNs,
  updated_at_ns: TimestampNs,
});
export type Order = z.infer<typeof Order>;

export const Fill = z.strictObject({
  sequence: Uint64,
  timestamp_ns: TimestampNs,
  market_type: MarketType,
  market_id: NonNegInt32,
  order_id: OrderId,
  client_order_id: Uint64,
  side: Side,
  role: Role,
  price_ticks: Uint64,
  size_base_lots: Uint64,
  quote_notional_lots: Uint64,
  fee_quote_lots: Int64,
});
export type Fill = z.infer<typeof Fill>;
