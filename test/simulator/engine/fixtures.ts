/** Shared test fixtures: valid parameters for every operation against an engine. */
import type { OperationName, ParamValues } from '../../../src/protocol';
import type { Engine } from '../../../src/simulator/engine/Engine';

export const FAR_FUTURE_MS = Number.MAX_SAFE_INTEGER;

/** The seeded roles: accounts[0] market maker, [1..4] traders, [5] treasury, [6] idle. */
export function roles(e: Engine) {
  const a = e.accounts;
  return { mm: a[0]!.address, trader: a[1]!.address, treasury: a[5]!.address, idle: a[6]!.address };
}

export function firstTransactionHash(e: Engine): string {
  const r = e.query('transactions', { limit: 1 });
  return (r.body as { data: { hash: string }[] }).data[0]!.hash;
}

/** One valid, existing-resource parameter set per operation. */
export function validParams(e: Engine): Record<OperationName, ParamValues> {
  const { trader } = roles(e);
  const window = { start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, count_back: 500 };
  return {
    candles: { market_type: 'perp', market_id: 0, resolution: '1m', ...window },
    markCandles: { market_id: 0, resolution: '1h', ...window },
    markets: { market_type: 'all' },
    marketStats: { market_type: 'all' },
    bbo: { market_type: 'spot', market_id: 3 },
    orderBook: { market_type: 'perp', market_id: 0, depth: 500 },
    orderBookOrders: { market_type: 'perp', market_id: 0, limit: 100 },
    trades: { market_type: 'perp', market_id: 1, limit: 100 },
    fundingRates: { market_id: 0, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, limit: 100 },
    account: { address: trader },
    balances: { address: trader, subaccount_id: 0 },
    positions: { address: trader, subaccount_id: 0 },
    orders: { address: trader, subaccount_id: 0, status: 'all', limit: 100 },
    fills: { address: trader, subaccount_id: 0, role: 'all', limit: 100 },
    fundingPayments: { address: trader, subaccount_id: 0, limit: 100 },
    pnl: { address: trader, subaccount_id: 0, resolution: '1m', ...window },
    transfers: { address: trader, subaccount_id: 0, kind: 'all', limit: 100 },
    liquidations: { market_id: 0, limit: 100 },
    vaults: {},
    vaultDepositors: { vault_id: '1' },
    blp: {},
    blpDepositors: {},
    tokens: {},
    transactions: {},
    blocks: {},
    search: { q: trader },
    status: {},
    info: {},
    exchangeStats: {},
    marketsUnversioned: {},
    marketUnversioned: { market_id: 0 },
    transaction: { hash: firstTransactionHash(e) },
  };
}
