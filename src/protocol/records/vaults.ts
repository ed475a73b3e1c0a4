/** Vaults and the protocol-liquidity pool (BLP). ASSUMED shapes (exchange-api-v1.md 2.5). */
import * as z from 'zod/mini';
import { Address, Int64, NonNegInt32, TimestampNs, TokenId, Uint64 } from '../scalars';

export const Vault = z.strictObject({
  vault_id: Uint64,
  name: z.string(),
  manager: Address,
  subaccount_id: NonNegInt32,
  total_shares: Uint64,
  equity_quote_lots: Int64,
  depositors: Uint64,
  created_at_ns: TimestampNs,
});
export type Vault = z.infer<typeof Vault>;

export const VaultDepositor = z.strictObject({
  vault_id: Uint64,
  address: Address,
  shares: Uint64,
  deposited_quote_lots: Uint64,
});
export type VaultDepositor = z.infer<typeof VaultDepositor>;

export const Blp = z.strictObject({
  token_id: TokenId,
  total_shares: Uint64,
  total_value_token_atoms: Uint64,
  depositors: Uint64,
  apr_bps: z.number().check(z.int()),
});
export type Blp = z.infer<typeof Blp>;

export const BlpDepositor = z.strictObject({
  address: Address,
  shares: Uint64,
  deposited_token_atoms: Uint64,
});
export type BlpDepositor = z.infer<typeof BlpDepositor>;
