/**
 * The compact text of the update `data` of the channels other than `book`, `bbo` and
 * `trades` (those are hotFrameLayout.ts'), defined once as field lists: each record's keys
 * in the order of its schema, each with the kind of its value. The server-frame writer
 * (serverFrameWriter.ts, through layoutWriter.ts) writes `data` from these lists; the fast
 * decoder (fastDecodeLayout.ts) accepts exactly the texts they describe, values checked as
 * the schemas check them. Change a list here and both sides follow; a test checks the lists
 * against the zod schemas (keys, order, optional keys, nesting), and property tests check
 * that the fast path accepts no value the schemas reject. @internal
 */
import { MARGIN_MODES, MARKET_TYPES, ORDER_STATUSES, POSITION_SIDES, ROLES, SIDES, SUBACCOUNT_STATUSES } from './enums';
import { ADDRESS_BYTES, INT32_MAX, INT32_MIN, ORDER_ID_BYTES } from './scalars';

/**
 * The kind of a value, as its schema constrains it:
 * - `uint64` / `int64`: a decimal string (Uint64 and TimestampNs / Int64);
 * - `int`: a JSON number, an integer within `[min, max]` (within the safe integers);
 * - `enum`: one of `values`; `string`: any string of at least `minLength` characters;
 * - `base58`: canonical base58 of exactly `bytes` bytes (Address, OrderId);
 * - `array` of one kind; `object`: a record of `fields`, no other key.
 */
export type ValueKind =
  | { readonly t: 'uint64' }
  | { readonly t: 'int64' }
  | { readonly t: 'boolean' }
  | { readonly t: 'int'; readonly min: number; readonly max: number }
  | { readonly t: 'enum'; readonly values: readonly string[] }
  | { readonly t: 'string'; readonly minLength: number }
  | { readonly t: 'base58'; readonly bytes: number }
  | { readonly t: 'array'; readonly of: ValueKind }
  | { readonly t: 'object'; readonly fields: FieldLayout };

/** One field of a record: its key, its value's kind, whether the key may be absent. */
export interface LayoutField {
  readonly key: string;
  readonly kind: ValueKind;
  readonly optional: boolean;
}
export type FieldLayout = readonly LayoutField[];

// ---- kinds --------------------------------------------------------------------

const UINT64: ValueKind = { t: 'uint64' };
const INT64: ValueKind = { t: 'int64' };
const int = (min: number, max: number): ValueKind => ({ t: 'int', min, max });
const INT32 = int(INT32_MIN, INT32_MAX);
const NON_NEG_INT32 = int(0, INT32_MAX);
const POSITIVE_INT32 = int(1, INT32_MAX);
/** `Int64Number` (Unix ms) and `z.number().check(z.int())`: zod's `int` is a safe integer. */
const SAFE_INT = int(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
const NON_NEG_INTEGER = int(0, Number.MAX_SAFE_INTEGER);
const oneOf = (values: readonly string[]): ValueKind => ({ t: 'enum', values });
const STRING: ValueKind = { t: 'string', minLength: 0 };
const TOKEN_ID: ValueKind = { t: 'string', minLength: 1 };
const ADDRESS: ValueKind = { t: 'base58', bytes: ADDRESS_BYTES };
const ORDER_ID: ValueKind = { t: 'base58', bytes: ORDER_ID_BYTES };
const arrayOf = (of: ValueKind): ValueKind => ({ t: 'array', of });
const object = (fields: FieldLayout): ValueKind => ({ t: 'object', fields });

/** A field list from `[key, kind]` pairs; keys ending in `?` may be absent. */
function fields(...list: readonly (readonly [string, ValueKind])[]): FieldLayout {
  return list.map(([key, kind]) => (key.endsWith('?') ? { key: key.slice(0, -1), kind, optional: true } : { key, kind, optional: false }));
}

// ---- the records, in schema order --------------------------------------------------

export const MARKET_STATS_FIELDS = fields(
  ['market_type', oneOf(MARKET_TYPES)],
  ['market_id', NON_NEG_INT32],
  ['timestamp_ns', UINT64],
  ['volume_24h_base_lots', UINT64],
  ['volume_24h_quote_lots', UINT64],
  ['trades_24h', UINT64],
  ['last_price_ticks?', UINT64],
  ['mark_price_ticks?', UINT64],
  ['oracle_price_ticks?', UINT64],
  ['mid_price_ticks?', UINT64],
  ['best_bid_price_ticks?', UINT64],
  ['best_ask_price_ticks?', UINT64],
  ['open_interest_base_lots?', UINT64],
  ['funding_rate_100th_bps?', INT32],
  ['predicted_funding_rate_100th_bps?', INT32],
  ['low_24h_price_ticks?', UINT64],
  ['high_24h_price_ticks?', UINT64],
  ['change_24h_bps?', SAFE_INT],
);

export const LAST_CANDLE_FIELDS = fields(
  ['open_time_ms', SAFE_INT],
  ['open', UINT64],
  ['high', UINT64],
  ['low', UINT64],
  ['close', UINT64],
  ['volume_base', UINT64],
  ['volume_quote', UINT64],
  ['trades', NON_NEG_INTEGER],
);

export const MARK_CANDLE_FIELDS = fields(['open_time_ms', SAFE_INT], ['open', UINT64], ['high', UINT64], ['low', UINT64], ['close', UINT64], ['samples', NON_NEG_INTEGER]);

export const FUNDING_RATE_FIELDS = fields(
  ['timestamp_ns', UINT64],
  ['sequence', UINT64],
  ['market_id', NON_NEG_INT32],
  ['funding_rate_100th_bps', INT32],
  ['long_cumulative_funding_quote_lots', INT64],
  ['short_cumulative_funding_quote_lots', INT64],
);

export const DELEGATION_FIELDS = fields(['delegate', ADDRESS], ['permissions', arrayOf(STRING)], ['expires_at_ns?', UINT64], ['name?', STRING]);

export const SUBACCOUNT_FIELDS = fields(
  ['subaccount_id', NON_NEG_INT32],
  ['status', oneOf(SUBACCOUNT_STATUSES)],
  ['created_at_ns', UINT64],
  ['cross_margin_balance_quote_lots', INT64],
  ['total_isolated_margin_quote_lots', UINT64],
  ['equity_quote_lots', INT64],
  ['available_margin_quote_lots', INT64],
  ['transferable_margin_quote_lots', INT64],
  ['initial_margin_requirement_quote_lots', UINT64],
  ['maintenance_margin_requirement_quote_lots', UINT64],
  ['delegations', arrayOf(object(DELEGATION_FIELDS))],
);

export const BALANCE_FIELDS = fields(['token_id', TOKEN_ID], ['total_token_atoms', UINT64], ['locked_token_atoms', UINT64], ['deposited_token_atoms', UINT64], ['withdrawn_token_atoms', UINT64]);

export const POSITION_FIELDS = fields(
  ['market_id', NON_NEG_INT32],
  ['side', oneOf(POSITION_SIDES)],
  ['size_base_lots', UINT64],
  ['entry_price_ticks', UINT64],
  ['liquidation_price_ticks?', UINT64],
  ['margin_mode', oneOf(MARGIN_MODES)],
  ['leverage', POSITIVE_INT32],
  ['position_value_quote_lots', UINT64],
  ['unrealized_pnl_quote_lots', INT64],
  ['realized_pnl_quote_lots', INT64],
  ['roe_bps', INT64],
  ['margin_used_token_atoms', UINT64],
  ['isolated_margin_quote_lots', UINT64],
  ['fees_quote_lots', INT64],
  ['funding_quote_lots', INT64],
);

export const ORDER_FIELDS = fields(
  ['order_id', ORDER_ID],
  ['client_order_id', UINT64],
  ['market_type', oneOf(MARKET_TYPES)],
  ['market_id', NON_NEG_INT32],
  ['side', oneOf(SIDES)],
  ['price_ticks', UINT64],
  ['original_size_base_lots', UINT64],
  ['remaining_size_base_lots', UINT64],
  ['filled_size_base_lots', UINT64],
  ['status', oneOf(ORDER_STATUSES)],
  ['created_at_ns', UINT64],
  ['updated_at_ns', UINT64],
);

export const FILL_FIELDS = fields(
  ['sequence', UINT64],
  ['timestamp_ns', UINT64],
  ['market_type', oneOf(MARKET_TYPES)],
  ['market_id', NON_NEG_INT32],
  ['order_id', ORDER_ID],
  ['client_order_id', UINT64],
  ['side', oneOf(SIDES)],
  ['role', oneOf(ROLES)],
  ['price_ticks', UINT64],
  ['size_base_lots', UINT64],
  ['quote_notional_lots', UINT64],
  ['fee_quote_lots', INT64],
);

/** `{"<key>":[record, ...]}`: the `data` of the channels that carry a list of records. */
const listOf = (key: string, record: FieldLayout): ValueKind => object(fields([key, arrayOf(object(record))]));

/** The channels whose update `data` is written and read by the lists above. */
export const LAYOUT_CHANNELS = ['marketStats', 'candles', 'markCandles', 'fundingRates', 'account', 'balances', 'positions', 'orders', 'fills'] as const;
export type LayoutChannel = (typeof LAYOUT_CHANNELS)[number];

/** The kind of each layout channel's update `data` (the channels table's `data` schema). */
export const CHANNEL_DATA_LAYOUTS: Readonly<Record<LayoutChannel, ValueKind>> = {
  marketStats: object(MARKET_STATS_FIELDS),
  candles: object(LAST_CANDLE_FIELDS),
  markCandles: object(MARK_CANDLE_FIELDS),
  fundingRates: object(FUNDING_RATE_FIELDS),
  account: object(SUBACCOUNT_FIELDS),
  balances: listOf('balances', BALANCE_FIELDS),
  positions: listOf('positions', POSITION_FIELDS),
  orders: listOf('orders', ORDER_FIELDS),
  fills: listOf('fills', FILL_FIELDS),
};

const LAYOUT_CHANNEL_NAMES: ReadonlySet<string> = new Set(LAYOUT_CHANNELS);

export function isLayoutChannel(channel: string): channel is LayoutChannel {
  return LAYOUT_CHANNEL_NAMES.has(channel);
}
