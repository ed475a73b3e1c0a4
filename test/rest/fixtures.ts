/**
 * One valid call, one valid answer and one bad call for every operation of the table.
 * The answers are written out by hand (not generated from the schemas under test).
 */
import { encodeBase58, type OperationName } from '../../src/protocol';

export const ADDRESS = encodeBase58(new Uint8Array(32).fill(7));
export const ADDRESS_2 = encodeBase58(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
export const ORDER_ID = encodeBase58(new Uint8Array(28).fill(9));
export const TS = '1732200000000000000';

const level = (p: string, s: string) => ({ price_ticks: p, size_base_lots: s });

export const MARKET = {
  market_type: 'perp',
  market_id: 0,
  symbol: 'SOL-PERP',
  base_token: 'SOL',
  quote_token: 'USDC',
  base_decimals: 9,
  quote_decimals: 6,
  base_atoms_per_base_lot: '1000000',
  quote_atoms_per_quote_lot: '1',
  base_lots_per_base_unit: '1000',
  quote_lots_per_quote_unit: '1000000',
  quote_lots_per_base_unit_per_tick: '1000',
  default_maker_fee_100th_bps: -100,
  default_taker_fee_100th_bps: 500,
  min_size_base_lots: '1',
  min_order_notional_quote_lots: '1000000',
  status: 'active',
};

const candle = { open_time_ms: 1_732_200_000_000, open: '100', high: '110', low: '90', close: '105', volume_base: '5', volume_quote: '500', trades: 3 };
const markCandle = { open_time_ms: 1_732_200_000_000, open: '100', high: '110', low: '90', close: '105', samples: 60 };
const stats = { market_type: 'perp', market_id: 0, timestamp_ns: TS, volume_24h_base_lots: '10', volume_24h_quote_lots: '1000', trades_24h: '4', mark_price_ticks: '101' };
const bookOrder = { order_id: ORDER_ID, client_order_id: '18446744073709551615', address: ADDRESS, subaccount_id: 0, side: 'bid', price_ticks: '99', remaining_size_base_lots: '3', original_size_base_lots: '5' };
export const TRADE = { timestamp_ns: TS, sequence: '9007199254740993', price_ticks: '100', size_base_lots: '2', quote_notional_lots: '200', taker_is_bid: true };
const funding = { timestamp_ns: TS, sequence: '1', market_id: 0, funding_rate_100th_bps: -12, long_cumulative_funding_quote_lots: '-5', short_cumulative_funding_quote_lots: '5' };
const subaccount = {
  subaccount_id: 0, status: 'active', created_at_ns: TS, cross_margin_balance_quote_lots: '-1', total_isolated_margin_quote_lots: '0', equity_quote_lots: '10',
  available_margin_quote_lots: '5', transferable_margin_quote_lots: '5', initial_margin_requirement_quote_lots: '1', maintenance_margin_requirement_quote_lots: '1',
  delegations: [{ delegate: ADDRESS_2, permissions: ['trade'] }],
};
const balance = { token_id: 'USDC', total_token_atoms: '100', locked_token_atoms: '0', deposited_token_atoms: '100', withdrawn_token_atoms: '0' };
const position = {
  market_id: 0, side: 'long', size_base_lots: '3', entry_price_ticks: '100', margin_mode: 'cross', leverage: 5, position_value_quote_lots: '300',
  unrealized_pnl_quote_lots: '-2', realized_pnl_quote_lots: '0', roe_bps: '-10', margin_used_token_atoms: '60', isolated_margin_quote_lots: '0', fees_quote_lots: '1', funding_quote_lots: '0',
};
const order = {
  order_id: ORDER_ID, client_order_id: '7', market_type: 'perp', market_id: 0, side: 'ask', price_ticks: '120', original_size_base_lots: '5', remaining_size_base_lots: '5',
  filled_size_base_lots: '0', status: 'open', created_at_ns: TS, updated_at_ns: TS,
};
const fill = {
  sequence: '3', timestamp_ns: TS, market_type: 'perp', market_id: 0, order_id: ORDER_ID, client_order_id: '7', side: 'bid', role: 'maker', price_ticks: '100', size_base_lots: '1',
  quote_notional_lots: '100', fee_quote_lots: '-1',
};
export const TRANSACTION = { hash: '5TxHash', status: 'committed', block: '12', success: true, timestamp_ms: 1_732_200_000_000 };
const legacyMarket = { market_type: 'spot', market_id: 3, symbol: 'SOL/USDC', tick_size: '1000', default_maker_fee: 0.0001, margin_tiers: [{ notional_lower_bound: '0', max_leverage: 10, maintenance_margin_rate_bps: 50 }] };

export interface OperationCase {
  /** A valid call. */
  readonly params: Record<string, unknown> | undefined;
  /** The path the stub must see. */
  readonly path: string;
  /** The `data` (versioned) or the bare body (unversioned). */
  readonly data: unknown;
  /** A call the client must refuse, and the parameter it must name. */
  readonly bad: { readonly params: Record<string, unknown> | undefined; readonly param: string };
}

const acct = { address: ADDRESS, subaccount_id: 0 };

export const CASES: Record<OperationName, OperationCase> = {
  candles: { params: { market_type: 'perp', market_id: 0, resolution: '1m', start_timestamp: 0, end_timestamp: 1_732_300_000_000, count_back: 10 }, path: '/v1/candles', data: [candle], bad: { params: { market_type: 'perp', market_id: 0, resolution: '1m', start_timestamp: 0, end_timestamp: 1, count_back: 501 }, param: 'count_back' } },
  markCandles: { params: { market_id: 0, resolution: '5m', start_timestamp: 0, end_timestamp: 1, count_back: 1 }, path: '/v1/markCandles', data: [markCandle], bad: { params: { market_id: 0, resolution: '2m', start_timestamp: 0, end_timestamp: 1, count_back: 1 }, param: 'resolution' } },
  markets: { params: { market_type: 'all' }, path: '/v1/markets', data: [MARKET], bad: { params: { market_type: 'both' }, param: 'market_type' } },
  marketStats: { params: { market_type: 'perp', market_id: 0 }, path: '/v1/marketStats', data: [stats], bad: { params: { market_type: 'perp', market_id: -1 }, param: 'market_id' } },
  bbo: { params: { market_type: 'spot', market_id: 2 }, path: '/v1/bbo', data: { bid: level('99', '1'), ask: null }, bad: { params: { market_type: 'spot' }, param: 'market_id' } },
  orderBook: { params: { market_type: 'perp', market_id: 0, depth: 10 }, path: '/v1/orderBook', data: { bids: [level('99', '1')], asks: [level('101', '2')] }, bad: { params: { market_type: 'perp', market_id: 0, depth: 0 }, param: 'depth' } },
  orderBookOrders: { params: { market_type: 'perp', market_id: 0, side: 'bid', limit: 10 }, path: '/v1/orderBookOrders', data: [bookOrder], bad: { params: { market_type: 'perp', market_id: 0, side: 'buy', limit: 10 }, param: 'side' } },
  trades: { params: { market_type: 'perp', market_id: 0, limit: 5 }, path: '/v1/trades', data: [TRADE], bad: { params: { market_type: 'perp', market_id: 0, limit: 101 }, param: 'limit' } },
  fundingRates: { params: { market_id: 0, start_timestamp: 0, end_timestamp: 10, limit: 5 }, path: '/v1/fundingRates', data: [funding], bad: { params: { market_id: 0, start_timestamp: -5, end_timestamp: 10, limit: 5 }, param: 'start_timestamp' } },
  account: { params: { address: ADDRESS }, path: '/v1/account', data: { address: ADDRESS, subaccounts: [subaccount] }, bad: { params: { address: 'not-base58!' }, param: 'address' } },
  balances: { params: acct, path: '/v1/balances', data: [balance], bad: { params: { address: ADDRESS }, param: 'subaccount_id' } },
  positions: { params: { ...acct, market_id: 0 }, path: '/v1/positions', data: [position], bad: { params: { ...acct, market_id: 1.5 }, param: 'market_id' } },
  orders: { params: { ...acct, status: 'active', limit: 50 }, path: '/v1/orders', data: [order], bad: { params: { ...acct, status: 'active' }, param: 'limit' } },
  fills: { params: { ...acct, role: 'all', limit: 10 }, path: '/v1/fills', data: [fill], bad: { params: { ...acct, role: 'both', limit: 10 }, param: 'role' } },
  fundingPayments: { params: { ...acct, limit: 10 }, path: '/v1/fundingPayments', data: [{ sequence: '1', timestamp_ns: TS, market_id: 0, funding_rate_100th_bps: 3, position_size_base_lots: '2', payment_quote_lots: '-4' }], bad: { params: acct, param: 'limit' } },
  pnl: { params: { ...acct, resolution: '1h', start_timestamp: 0, end_timestamp: 10, count_back: 5 }, path: '/v1/pnl', data: [{ open_time_ms: 0, equity_quote_lots: '1', realized_pnl_quote_lots: '0', unrealized_pnl_quote_lots: '-1' }], bad: { params: { ...acct, resolution: '1h', start_timestamp: 0, end_timestamp: 10, count_back: 0 }, param: 'count_back' } },
  transfers: { params: { ...acct, kind: 'deposit', limit: 10 }, path: '/v1/transfers', data: [{ sequence: '1', timestamp_ns: TS, kind: 'deposit', token_id: 'USDC', amount_token_atoms: '5', transaction_hash: 'h' }], bad: { params: { ...acct, kind: 'mint', limit: 10 }, param: 'kind' } },
  liquidations: { params: { market_id: 0, limit: 10 }, path: '/v1/liquidations', data: [{ sequence: '1', timestamp_ns: TS, market_id: 0, address: ADDRESS, subaccount_id: 0, size_base_lots: '1', price_ticks: '50', fee_quote_lots: '2' }], bad: { params: { subaccount_id: 0, limit: 10 }, param: 'address' } },
  vaults: { params: {}, path: '/v1/vaults', data: [{ vault_id: '1', name: 'v', manager: ADDRESS, subaccount_id: 1, total_shares: '10', equity_quote_lots: '10', depositors: '2', created_at_ns: TS }], bad: { params: { vault_id: '-1' }, param: 'vault_id' } },
  vaultDepositors: { params: { vault_id: '1' }, path: '/v1/vaultDepositors', data: [{ vault_id: '1', address: ADDRESS, shares: '5', deposited_quote_lots: '5' }], bad: { params: {}, param: 'vault_id' } },
  blp: { params: undefined, path: '/v1/blp', data: { token_id: 'USDC', total_shares: '1', total_value_token_atoms: '1', depositors: '1', apr_bps: 500 }, bad: { params: { foo: 1 }, param: 'foo' } },
  blpDepositors: { params: {}, path: '/v1/blpDepositors', data: [{ address: ADDRESS, shares: '1', deposited_token_atoms: '1' }], bad: { params: { limit: 0 }, param: 'limit' } },
  tokens: { params: {}, path: '/v1/tokens', data: [{ token_id: 'USDC', symbol: 'USDC', decimals: 6, total_supply_atoms: '18446744073709551615' }], bad: { params: { token_id: '' }, param: 'token_id' } },
  transactions: { params: { limit: 10 }, path: '/v1/transactions', data: [TRANSACTION], bad: { params: { hash: 'abc', limit: 10 }, param: 'hash' } },
  blocks: { params: {}, path: '/v1/blocks', data: [{ rollup_height: '12', hash: 'b', timestamp_ms: 1, transaction_count: 1 }], bad: { params: { rollup_height: '5', cursor: 'c1' }, param: 'rollup_height' } },
  search: { params: { q: ADDRESS }, path: '/v1/search', data: [{ kind: 'address', address: ADDRESS }], bad: { params: { q: '' }, param: 'q' } },
  status: { params: undefined, path: '/v1/status', data: { status: 'ok', feed: true, rollup_height: '12', timestamp_ns: TS }, bad: { params: { verbose: true }, param: 'verbose' } },
  info: { params: {}, path: '/v1/info', data: { chain_id: 'c', api_version: '1.0.0', protocol_version: '1', quote_token_id: 'USDC' }, bad: { params: { chain: 'x' }, param: 'chain' } },
  exchangeStats: { params: undefined, path: '/v1/exchangeStats', data: { markets: 4, accounts: 2, volume_24h_quote_lots: '1', trades_24h: '1', open_interest_quote_lots: '0' }, bad: { params: { market_id: 0 }, param: 'market_id' } },
  marketsUnversioned: { params: { market_type: 'spot' }, path: '/markets', data: [legacyMarket], bad: { params: { market_type: 'all' }, param: 'market_type' } },
  marketUnversioned: { params: { market_id: 3 }, path: '/markets/3', data: legacyMarket, bad: { params: { market_id: 2 ** 31 }, param: 'market_id' } },
  transaction: { params: { hash: '5TxHash' }, path: '/transactions/5TxHash', data: TRANSACTION, bad: { params: { hash: '' }, param: 'hash' } },
};
