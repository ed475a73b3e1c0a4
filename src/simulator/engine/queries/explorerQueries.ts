/**
 * Explorer, vault, pool and service operations: liquidations, vaults and depositors, the
 * liquidity pool and depositors, tokens, transactions, blocks, search, status, info and
 * exchange statistics, plus the unversioned transaction lookup. Transactions, blocks and
 * liquidations are newest first; vaults by id; depositors by address. @internal
 */
import type { ParamValues, Vault } from '../../../protocol';
import { QUOTE_TOKEN, TOKENS, tokenRecord } from '../catalog';
import { decodeCursor, encodeCursor } from '../cursor';
import { notFound } from '../QueryError';
import type { VaultState } from '../ExplorerData';
import { accountOf, checkMarketFilter, num, str, subaccountOf, type QueryHandler } from './common';

/** Keyset page of a list sorted ascending by a string key (depositors by address). */
function pageByKey<T>(op: 'vaultDepositors' | 'blpDepositors', rows: readonly T[], keyOf: (t: T) => string, p: ParamValues) {
  const raw = str(p, 'cursor');
  const after = raw === undefined ? undefined : decodeCursor(op, raw, { a: 'string' }).a;
  const limit = num(p, 'limit') ?? 100;
  const rest = after === undefined ? rows : rows.filter((r) => keyOf(r) > after);
  const data = rest.slice(0, limit);
  return { data, nextCursor: rest.length > limit ? encodeCursor(op, { a: keyOf(data[data.length - 1]!) }) : null };
}

function vaultRecord(v: VaultState): Vault {
  const shares = v.depositors.reduce((s, d) => s + BigInt(d.shares), 0n);
  return {
    vault_id: v.id.toString(),
    name: v.name,
    manager: v.trading.address,
    subaccount_id: v.trading.id,
    total_shares: shares.toString(),
    equity_quote_lots: v.trading.record.equity_quote_lots,
    depositors: String(v.depositors.length),
    created_at_ns: v.createdNs.toString(),
  };
}

function vaultOf(vaults: readonly VaultState[], id: string): VaultState {
  const v = vaults.find((x) => x.id.toString() === String(BigInt(id)));
  if (!v) throw notFound(`unknown vault ${id}`);
  return v;
}

export const explorerQueries = {
  liquidations: ({ w }, p) => {
    const mid = num(p, 'market_id');
    const address = str(p, 'address');
    const subId = num(p, 'subaccount_id');
    checkMarketFilter(w, undefined, mid);
    if (address !== undefined) accountOf(w, address);
    if (address !== undefined && subId !== undefined) subaccountOf(w, address, subId);
    const raw = str(p, 'cursor');
    const before = raw === undefined ? undefined : decodeCursor('liquidations', raw, { s: 'number' }).s;
    const page = w.explorer.liquidations.pageNewestFirst(before, num(p, 'limit')!, (l) => (mid === undefined || l.market_id === mid) && (address === undefined || l.address === address) && (subId === undefined || l.subaccount_id === subId));
    return { data: page.rows, nextCursor: page.next === undefined ? null : encodeCursor('liquidations', { s: page.next }) };
  },
  vaults: ({ w }, p) => {
    const vaults = w.explorer.vaults;
    const id = str(p, 'vault_id');
    if (id !== undefined) return { data: [vaultRecord(vaultOf(vaults, id))], nextCursor: null };
    const raw = str(p, 'cursor');
    const after = raw === undefined ? -1 : decodeCursor('vaults', raw, { v: 'number' }).v;
    const rest = vaults.filter((v) => Number(v.id) > after);
    const data = rest.slice(0, num(p, 'limit') ?? 100);
    return { data: data.map(vaultRecord), nextCursor: rest.length > data.length ? encodeCursor('vaults', { v: Number(data[data.length - 1]!.id) }) : null };
  },
  vaultDepositors: ({ w }, p) => {
    const v = vaultOf(w.explorer.vaults, str(p, 'vault_id')!);
    const address = str(p, 'address');
    if (address !== undefined) accountOf(w, address);
    return pageByKey('vaultDepositors', v.depositors.filter((d) => address === undefined || d.address === address), (d) => d.address, p);
  },
  blp: ({ w }) => {
    const b = w.explorer.blp;
    const shares = b.depositors.reduce((s, d) => s + BigInt(d.shares), 0n);
    return { data: { token_id: b.tokenId, total_shares: shares.toString(), total_value_token_atoms: b.totalValueAtoms.toString(), depositors: String(b.depositors.length), apr_bps: b.aprBps } };
  },
  blpDepositors: ({ w }, p) => {
    const address = str(p, 'address');
    if (address !== undefined) accountOf(w, address);
    return pageByKey('blpDepositors', w.explorer.blp.depositors.filter((d) => address === undefined || d.address === address), (d) => d.address, p);
  },
  tokens: (_ctx, p) => {
    const id = str(p, 'token_id');
    const tokens = TOKENS.filter((t) => id === undefined || t.id === id);
    if (id !== undefined && tokens.length === 0) throw notFound(`unknown token ${id}`);
    return { data: tokens.map(tokenRecord) };
  },
  transactions: ({ w }, p) => {
    const hash = str(p, 'hash');
    if (hash !== undefined) {
      const tx = w.explorer.txByHash.get(hash);
      if (!tx) throw notFound(`unknown transaction ${hash}`);
      return { data: [tx], nextCursor: null };
    }
    const raw = str(p, 'cursor');
    const before = raw === undefined ? undefined : decodeCursor('transactions', raw, { i: 'number' }).i;
    const page = w.explorer.transactions.pageNewestFirst(before, num(p, 'limit') ?? 100);
    return { data: page.rows.map((r) => r.tx), nextCursor: page.next === undefined ? null : encodeCursor('transactions', { i: page.next }) };
  },
  blocks: ({ w }, p) => {
    const height = str(p, 'rollup_height');
    if (height !== undefined) {
      const h = BigInt(height);
      const block = h <= BigInt(Number.MAX_SAFE_INTEGER) ? w.explorer.blocks.find(Number(h)) : undefined;
      if (!block) throw notFound(`unknown block ${height}`);
      return { data: [block], nextCursor: null };
    }
    const raw = str(p, 'cursor');
    const before = raw === undefined ? undefined : decodeCursor('blocks', raw, { h: 'number' }).h;
    const page = w.explorer.blocks.pageNewestFirst(before, num(p, 'limit') ?? 100);
    return { data: page.rows, nextCursor: page.next === undefined ? null : encodeCursor('blocks', { h: page.next }) };
  },
  search: ({ w }, p) => {
    const q = str(p, 'q')!.trim();
    if (w.accounts.has(q)) return { data: [{ kind: 'address', address: q }] };
    if (w.explorer.txByHash.has(q)) return { data: [{ kind: 'transaction', hash: q }] };
    return { data: [] };
  },
  status: ({ w, feedAvailable }) => ({
    data: { status: 'ok', feed: feedAvailable, rollup_height: w.explorer.blocks.last()!.rollup_height, timestamp_ns: w.now().toString() },
  }),
  info: () => ({ data: { chain_id: 'exchange-replica-sim-1', api_version: '1.0.0', protocol_version: '1', quote_token_id: QUOTE_TOKEN } }),
  exchangeStats: ({ w }) => {
    let volume = 0n;
    let trades = 0n;
    let oi = 0n;
    for (const m of w.markets) {
      volume += BigInt(m.stats.volume_24h_quote_lots);
      trades += BigInt(m.stats.trades_24h);
      if (m.isPerp) oi += BigInt(m.stats.open_interest_base_lots ?? '0') * BigInt(m.stats.mark_price_ticks ?? '0') * m.k;
    }
    return { data: { markets: w.markets.length, accounts: w.accounts.size, volume_24h_quote_lots: volume.toString(), trades_24h: trades.toString(), open_interest_quote_lots: oi.toString() } };
  },
  transaction: ({ w }, p) => {
    const hash = str(p, 'hash')!;
    const tx = w.explorer.txByHash.get(hash);
    if (!tx) throw notFound(`unknown transaction ${hash} (never indexed: rejected at admission or not yet sequenced)`);
    return { data: tx };
  },
} satisfies Record<string, QueryHandler>;
