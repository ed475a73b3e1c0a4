/** Enumerations of the exchange API (section 2.2 of exchange-api-v1.md). */
import * as z from 'zod/mini';

export const MARKET_TYPES = ['spot', 'perp'] as const;
export const MarketType = z.enum(MARKET_TYPES);
export type MarketType = z.infer<typeof MarketType>;

export const MARKET_TYPE_FILTERS = ['all', 'spot', 'perp'] as const;
export const MarketTypeFilter = z.enum(MARKET_TYPE_FILTERS);
export type MarketTypeFilter = z.infer<typeof MarketTypeFilter>;

export const RESOLUTIONS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export const Resolution = z.enum(RESOLUTIONS);
export type Resolution = z.infer<typeof Resolution>;

/** Length of each resolution's bucket in milliseconds. */
export const RESOLUTION_MS: Readonly<Record<Resolution, number>> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '1h': 3_600_000,
  '4h': 14_400_000,
  '1d': 86_400_000,
};

export const SIDES = ['bid', 'ask'] as const;
export const Side = z.enum(SIDES);
export type Side = z.infer<typeof Side>;

export const SIDE_FILTERS = ['all', 'bid', 'ask'] as const;
export const SideFilter = z.enum(SIDE_FILTERS);
export type SideFilter = z.infer<typeof SideFilter>;

export const POSITION_SIDES = ['long', 'short'] as const;
export const PositionSide = z.enum(POSITION_SIDES);
export type PositionSide = z.infer<typeof PositionSide>;

export const ROLES = ['maker', 'taker'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export const ROLE_FILTERS = ['all', 'maker', 'taker'] as const;
export const RoleFilter = z.enum(ROLE_FILTERS);
export type RoleFilter = z.infer<typeof RoleFilter>;

export const MARGIN_MODES = ['cross', 'isolated'] as const;
export const MarginMode = z.enum(MARGIN_MODES);
export type MarginMode = z.infer<typeof MarginMode>;

export const ORDER_STATUS_FILTERS = ['active', 'history', 'all'] as const;
export const OrderStatusFilter = z.enum(ORDER_STATUS_FILTERS);
export type OrderStatusFilter = z.infer<typeof OrderStatusFilter>;

/** Order record status (assumed, streaming-protocol.md section 6). */
export const ORDER_STATUSES = ['open', 'filled', 'cancelled'] as const;
export const OrderStatus = z.enum(ORDER_STATUSES);
export type OrderStatus = z.infer<typeof OrderStatus>;

export const TRANSFER_KINDS = ['deposit', 'withdrawal', 'internal_transfer', 'external_transfer'] as const;
export const TransferKind = z.enum(TRANSFER_KINDS);
export type TransferKind = z.infer<typeof TransferKind>;

export const TRANSFER_KIND_FILTERS = ['all', ...TRANSFER_KINDS] as const;
export const TransferKindFilter = z.enum(TRANSFER_KIND_FILTERS);
export type TransferKindFilter = z.infer<typeof TransferKindFilter>;

export const MARKET_STATUSES = ['active', 'paused', 'final_settlement'] as const;
export const MarketStatus = z.enum(MARKET_STATUSES);
export type MarketStatus = z.infer<typeof MarketStatus>;

export const SUBACCOUNT_STATUSES = ['active', 'restricted', 'closed'] as const;
export const SubaccountStatus = z.enum(SUBACCOUNT_STATUSES);
export type SubaccountStatus = z.infer<typeof SubaccountStatus>;

export const TRANSACTION_STATUSES = ['committed', 'failed'] as const;
export const TransactionStatus = z.enum(TRANSACTION_STATUSES);
export type TransactionStatus = z.infer<typeof TransactionStatus>;
