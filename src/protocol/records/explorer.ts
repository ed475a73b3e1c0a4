/**
 * Explorer and service records: tokens, transactions, blocks, search, status, info and
 * exchange statistics. Transaction follows exchange-api-v1.md 2.3 and streaming-protocol.md 6;
 * the others are ASSUMED shapes (exchange-api-v1.md 2.5).
 */
import * as z from 'zod/mini';
import { TransactionStatus } from '../enums';
import { Address, NonNegInt32, NonNegInteger, TimestampNs, TokenId, Uint64 } from '../scalars';

export const Token = z.strictObject({
  token_id: TokenId,
  symbol: z.string(),
  decimals: NonNegInt32,
  total_supply_atoms: Uint64,
});
export type Token = z.infer<typeof Token>;

export const Transaction = z.strictObject({
  hash: z.string().check(z.minLength(1)),
  status: TransactionStatus,
  error: z.optional(z.string()),
  block: z.string(),
  success: z.boolean(),
  timestamp_ms: NonNegInteger,
});
export type Transaction = z.infer<typeof Transaction>;

export const Block = z.strictObject({
  rollup_height: Uint64,
  hash: z.string(),
  timestamp_ms: NonNegInteger,
  transaction_count: NonNegInteger,
});
export type Block = z.infer<typeof Block>;

export const SearchHit = z.strictObject({
  kind: z.enum(['address', 'transaction']),
  address: z.optional(Address),
  hash: z.optional(z.string()),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const Status = z.strictObject({
  status: z.enum(['ok', 'degraded']),
  feed: z.boolean(),
  rollup_height: Uint64,
  timestamp_ns: TimestampNs,
});
export type Status = z.infer<typeof Status>;

export const Info = z.strictObject({
  chain_id: z.string(),
  api_version: z.string(),
  protocol_version: z.string(),
  quote_token_id: TokenId,
});
export type Info = z.infer<typeof Info>;

export const ExchangeStats = z.strictObject({
  markets: NonNegInteger,
  accounts: NonNegInteger,
  volume_24h_quote_lots: Uint64,
  trades_24h: Uint64,
  open_interest_quote_lots: Uint64,
});
export type ExchangeStats = z.infer<typeof ExchangeStats>;
