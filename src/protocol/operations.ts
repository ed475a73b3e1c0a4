/**
 * The operations table: every REST operation of exchange-api-v1.md (29 versioned, section
 * 4.2, and 3 unversioned, section 4.3) described once, as data. The REST client, the
 * simulator's REST server, the CLI and the docs are all derived from it.
 */
import * as z from 'zod/mini';
import { MARKET_TYPE_FILTERS, MARKET_TYPES, ORDER_STATUS_FILTERS, RESOLUTIONS, ROLE_FILTERS, SIDE_FILTERS, TRANSFER_KIND_FILTERS } from './enums';
import type { ParamRule, ParamSpec, ParamSpecs } from './params';
import * as R from './records';
import type { ChannelName } from './channelNames';

/** One REST operation. */
export interface OperationDef<P extends ParamSpecs = ParamSpecs, D extends z.ZodMiniType = z.ZodMiniType> {
  readonly name: string;
  readonly path: string;
  /** Versioned operations answer with the envelope; unversioned ones with a bare body. */
  readonly versioned: boolean;
  readonly params: P;
  readonly rules: readonly ParamRule[];
  /** Schema of `data` (versioned) or of the whole body (unversioned). */
  readonly data: D;
  /** Takes `cursor` and answers `next_cursor`. */
  readonly pages: boolean;
  /** The channel whose REST snapshot this operation is; its answers carry `sequence`. */
  readonly snapshotOf?: ChannelName;
  readonly summary: string;
}

const mt = { type: 'enum', values: MARKET_TYPES, required: true } as const;
const mtOpt = { type: 'enum', values: MARKET_TYPES } as const;
const mtFilter = { type: 'enum', values: MARKET_TYPE_FILTERS, required: true } as const;
const marketId = { type: 'int32', min: 0, required: true } as const;
const marketIdOpt = { type: 'int32', min: 0 } as const;
const resolution = { type: 'enum', values: RESOLUTIONS, required: true } as const;
const startTs = { type: 'int64', min: 0, required: true, description: 'Unix ms, inclusive' } as const;
const endTs = { type: 'int64', min: 0, required: true, description: 'Unix ms, exclusive' } as const;
const countBack = { type: 'int32', min: 1, max: 500, required: true } as const;
const address = { type: 'address', required: true } as const;
const addressOpt = { type: 'address' } as const;
const subId = { type: 'int32', min: 0, required: true } as const;
const subIdOpt = { type: 'int32', min: 0 } as const;
const limit = { type: 'int32', min: 1, max: 100, required: true } as const;
const limitDefault = { type: 'int32', min: 1, max: 100, default: 100 } as const;
const cursor = { type: 'string', minLength: 1, description: 'the next_cursor of the previous page' } as const;

const exclusiveWithPaging = (key: string): ParamRule => (p) =>
  p[key] !== undefined && (p.limit !== undefined || p.cursor !== undefined)
    ? { param: key, message: `parameter '${key}' cannot be combined with 'limit' or 'cursor' (a single-item lookup does not page)` }
    : undefined;

/**
 * Builds one table entry. `versioned` and `snapshotOf` keep their literal types so the REST
 * client can type each answer (envelope or bare record, with or without `sequence`).
 */
function op<const P extends Record<string, ParamSpec>, D extends z.ZodMiniType, const V extends boolean = true, const S extends ChannelName | undefined = undefined>(def: {
  name: string;
  path: string;
  versioned?: V;
  params: P;
  rules?: ParamRule[];
  data: D;
  snapshotOf?: S;
  summary: string;
}): OperationDef<P, D> & { readonly versioned: V; readonly snapshotOf?: S } {
  return {
    versioned: true as V,
    rules: [],
    ...def,
    pages: 'cursor' in def.params,
  } as OperationDef<P, D> & { readonly versioned: V; readonly snapshotOf?: S };
}

export const OPERATIONS = {
  candles: op({ name: 'candles', path: '/v1/candles', summary: 'Trade candles of a market', params: { market_type: mt, market_id: marketId, resolution, start_timestamp: startTs, end_timestamp: endTs, count_back: countBack }, data: z.array(R.LastCandle), snapshotOf: 'candles' }),
  markCandles: op({ name: 'markCandles', path: '/v1/markCandles', summary: 'Mark-price candles of a perp market', params: { market_id: marketId, resolution, start_timestamp: startTs, end_timestamp: endTs, count_back: countBack }, data: z.array(R.MarkCandle), snapshotOf: 'markCandles' }),
  markets: op({ name: 'markets', path: '/v1/markets', summary: 'Market metadata', params: { market_type: mtFilter, market_id: marketIdOpt }, data: z.array(R.Market) }),
  marketStats: op({ name: 'marketStats', path: '/v1/marketStats', summary: 'Current market statistics', params: { market_type: mtFilter, market_id: marketIdOpt }, data: z.array(R.MarketStats), snapshotOf: 'marketStats' }),
  bbo: op({ name: 'bbo', path: '/v1/bbo', summary: 'Best bid and offer', params: { market_type: mt, market_id: marketId }, data: R.Bbo, snapshotOf: 'bbo' }),
  orderBook: op({ name: 'orderBook', path: '/v1/orderBook', summary: 'Aggregated order book', params: { market_type: mt, market_id: marketId, depth: { type: 'int32', min: 1, max: 500, required: true, description: 'price levels per side' } }, data: R.OrderBook, snapshotOf: 'book' }),
  orderBookOrders: op({ name: 'orderBookOrders', path: '/v1/orderBookOrders', summary: 'Individual resting orders', params: { market_type: mt, market_id: marketId, side: { type: 'enum', values: SIDE_FILTERS, default: 'all' }, limit, cursor }, data: z.array(R.BookOrder) }),
  trades: op({ name: 'trades', path: '/v1/trades', summary: 'Public trades, newest first', params: { market_type: mt, market_id: marketId, limit, cursor }, data: z.array(R.Trade), snapshotOf: 'trades' }),
  fundingRates: op({ name: 'fundingRates', path: '/v1/fundingRates', summary: 'Perp funding rates, newest first', params: { market_id: marketId, start_timestamp: startTs, end_timestamp: endTs, limit, cursor }, data: z.array(R.FundingRate), snapshotOf: 'fundingRates' }),
  account: op({ name: 'account', path: '/v1/account', summary: 'Account and its subaccounts', params: { address, subaccount_id: subIdOpt }, data: R.AccountInfo, snapshotOf: 'account' }),
  balances: op({ name: 'balances', path: '/v1/balances', summary: 'Token balances of a subaccount', params: { address, subaccount_id: subId }, data: z.array(R.Balance), snapshotOf: 'balances' }),
  positions: op({ name: 'positions', path: '/v1/positions', summary: 'Open positions of a subaccount', params: { address, subaccount_id: subId, market_id: marketIdOpt }, data: z.array(R.Position), snapshotOf: 'positions' }),
  orders: op({
    name: 'orders', path: '/v1/orders', summary: 'Orders of a subaccount',
    params: { address, subaccount_id: subId, status: { type: 'enum', values: ORDER_STATUS_FILTERS, required: true }, market_type: mtOpt, market_id: marketIdOpt, client_order_id: { type: 'uint64' }, limit: { type: 'int32', min: 1, max: 100, default: 100, description: 'required unless client_order_id is given' }, cursor },
    rules: [(p) => (p.limit === undefined && p.client_order_id === undefined ? { param: 'limit', message: "missing parameter 'limit': required unless 'client_order_id' is given; expected an integer from 1 to 100" } : undefined)],
    data: z.array(R.Order), snapshotOf: 'orders',
  }),
  fills: op({ name: 'fills', path: '/v1/fills', summary: 'Fills of a subaccount, newest first', params: { address, subaccount_id: subId, role: { type: 'enum', values: ROLE_FILTERS, required: true }, market_type: mtOpt, market_id: marketIdOpt, limit, cursor }, data: z.array(R.Fill), snapshotOf: 'fills' }),
  fundingPayments: op({ name: 'fundingPayments', path: '/v1/fundingPayments', summary: 'Funding payments of a subaccount', params: { address, subaccount_id: subId, market_id: marketIdOpt, limit, cursor }, data: z.array(R.FundingPayment) }),
  pnl: op({ name: 'pnl', path: '/v1/pnl', summary: 'PnL history of a subaccount', params: { address, subaccount_id: subId, resolution, start_timestamp: startTs, end_timestamp: endTs, count_back: countBack }, data: z.array(R.PnlPoint) }),
  transfers: op({ name: 'transfers', path: '/v1/transfers', summary: 'Transfers of a subaccount', params: { address, subaccount_id: subId, kind: { type: 'enum', values: TRANSFER_KIND_FILTERS, required: true }, limit, cursor }, data: z.array(R.Transfer) }),
  liquidations: op({
    name: 'liquidations', path: '/v1/liquidations', summary: 'Liquidations by market and/or account',
    params: { market_id: marketIdOpt, address: addressOpt, subaccount_id: subIdOpt, limit, cursor },
    rules: [
      (p) => (p.subaccount_id !== undefined && p.address === undefined ? { param: 'address', message: "missing parameter 'address': required when 'subaccount_id' is given" } : undefined),
      (p) => (p.market_id === undefined && p.address === undefined ? { param: 'market_id', message: "at least one filter is required: 'market_id' or 'address' (with optional 'subaccount_id')" } : undefined),
    ],
    data: z.array(R.Liquidation),
  }),
  vaults: op({ name: 'vaults', path: '/v1/vaults', summary: 'Vaults', params: { vault_id: { type: 'uint64' }, limit: limitDefault, cursor }, data: z.array(R.Vault) }),
  vaultDepositors: op({ name: 'vaultDepositors', path: '/v1/vaultDepositors', summary: 'Depositors of a vault', params: { vault_id: { type: 'uint64', required: true }, address: addressOpt, limit: limitDefault, cursor }, data: z.array(R.VaultDepositor) }),
  blp: op({ name: 'blp', path: '/v1/blp', summary: 'Protocol-liquidity pool state', params: {}, data: R.Blp }),
  blpDepositors: op({ name: 'blpDepositors', path: '/v1/blpDepositors', summary: 'Depositors of the liquidity pool', params: { address: addressOpt, limit: limitDefault, cursor }, data: z.array(R.BlpDepositor) }),
  tokens: op({ name: 'tokens', path: '/v1/tokens', summary: 'Tokens', params: { token_id: { type: 'string', minLength: 1 } }, data: z.array(R.Token) }),
  transactions: op({ name: 'transactions', path: '/v1/transactions', summary: 'Transactions, newest first', params: { hash: { type: 'string', minLength: 1 }, limit: limitDefault, cursor }, rules: [exclusiveWithPaging('hash')], data: z.array(R.Transaction) }),
  blocks: op({ name: 'blocks', path: '/v1/blocks', summary: 'Blocks, newest first', params: { rollup_height: { type: 'uint64' }, limit: limitDefault, cursor }, rules: [exclusiveWithPaging('rollup_height')], data: z.array(R.Block) }),
  search: op({ name: 'search', path: '/v1/search', summary: 'Search by address or transaction hash', params: { q: { type: 'string', minLength: 1, required: true } }, data: z.array(R.SearchHit) }),
  status: op({ name: 'status', path: '/v1/status', summary: 'Service status', params: {}, data: R.Status }),
  info: op({ name: 'info', path: '/v1/info', summary: 'Chain, API and protocol configuration', params: {}, data: R.Info }),
  exchangeStats: op({ name: 'exchangeStats', path: '/v1/exchangeStats', summary: 'Exchange-wide statistics', params: {}, data: R.ExchangeStats }),
  marketsUnversioned: op({ name: 'marketsUnversioned', path: '/markets', versioned: false, summary: 'All markets of a type (unversioned)', params: { market_type: { type: 'enum', values: MARKET_TYPES, default: 'perp' } }, data: z.array(R.LegacyMarket) }),
  marketUnversioned: op({ name: 'marketUnversioned', path: '/markets/{market_id}', versioned: false, summary: 'One market (unversioned)', params: { market_id: { type: 'int32', min: 0, required: true, in: 'path' }, market_type: { type: 'enum', values: MARKET_TYPES, default: 'perp' } }, data: R.LegacyMarket }),
  transaction: op({ name: 'transaction', path: '/transactions/{hash}', versioned: false, summary: 'One transaction by hash (404 when rejected at admission)', params: { hash: { type: 'string', minLength: 1, required: true, in: 'path' } }, data: R.Transaction }),
} as const;

export type Operations = typeof OPERATIONS;
export type OperationName = keyof Operations;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** Operations that are a channel's REST snapshot (`snapshotOf`): their answers carry `sequence`. */
export type SnapshotOperationName = { [N in OperationName]: [NonNullable<Operations[N]['snapshotOf']>] extends [never] ? never : N }[OperationName];

/** The `data` type of an operation's successful answer. */
export type OperationData<N extends OperationName> = z.infer<Operations[N]['data']>;
