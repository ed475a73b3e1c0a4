/**
 * The channels table: every feed channel of streaming-protocol.md section 4 described once,
 * as data: scope keys, the schema of an update's `data`, the snapshot operation and how a
 * replica folds updates (its kind, with the kind's parameters). Consumed by the router, the
 * replicas (which pick their reducer by kind), the simulator's feed and the CLI.
 */
import * as z from 'zod/mini';
import { RESOLUTIONS, type Resolution } from './enums';
import { Address, NonNegInt32 } from './scalars';
import * as R from './records';
import type { ChannelName } from './channelNames';
import type { SnapshotOperationName } from './operations';
import type { ParamValues } from './params';

export { CHANNEL_NAMES, MARKET_CHANNELS, ACCOUNT_CHANNELS, isChannelName, type ChannelName } from './channelNames';

/** The keys a subscription scope may hold (streaming-protocol.md section 2). */
export const SCOPE_KEYS = ['market_id', 'is_perps', 'interval', 'address', 'subaccount_id'] as const;
export type ScopeKey = (typeof SCOPE_KEYS)[number];

const SCOPE_KEY_NAMES: readonly string[] = SCOPE_KEYS;

export function isScopeKey(s: string): s is ScopeKey {
  return SCOPE_KEY_NAMES.includes(s);
}

export interface Scope {
  market_id?: number;
  is_perps?: boolean;
  interval?: Resolution;
  address?: string;
  subaccount_id?: number;
}

/** The schema of each scope key's value (the client frames' `SubscribeFrame` uses them too). */
export const SCOPE_SCHEMAS = {
  market_id: NonNegInt32,
  is_perps: z.boolean(),
  interval: z.enum(RESOLUTIONS),
  address: Address,
  subaccount_id: NonNegInt32,
} as const satisfies Record<ScopeKey, z.ZodMiniType>;

/**
 * Where a `replace` channel's snapshot answer holds the scope's record: `answer` it is the
 * answer; `market` the answer lists markets, the scope's is the one of its `market_id` and
 * market type; `subaccount` the answer is `{address, subaccounts}`, the scope's is the one of
 * its `subaccount_id`, and an update of another subaccount is refused.
 */
export type ReplacePick = 'answer' | 'market' | 'subaccount';

/** How an `upsert` channel's records are keyed. */
export interface UpsertParams {
  /** The field of an update's `data` (an object) holding its list of records. */
  readonly records: string;
  /** The record field that identifies a record in the set. */
  readonly key: string;
  /** True when the record removes its key from the set (a closed position, a filled order). Absent: never. */
  removes?(record: unknown): boolean;
  /** The snapshot is every page of the operation (by `cursor`), not its first page only. */
  readonly allPages?: boolean;
}

/** How an `events` channel's records are found and ordered. */
export interface EventParams {
  /** The field of an update's `data` holding its list of records. Absent: `data` is one record. */
  readonly records?: string;
  /** The record field (a Uint64) that orders the stream: each record is delivered once, in its order. */
  readonly sequence: string;
}

/**
 * How a replica folds a channel's updates (its kind), with what that kind needs to know about
 * the channel: `book` levels by price; `replace` each update is the whole record; `upsert` a
 * keyed set of records; `candle` buckets by `open_time_ms`; `events` records delivered once each.
 */
export type ChannelFold =
  | { readonly kind: 'book' }
  | { readonly kind: 'replace'; readonly replace: ReplacePick }
  | { readonly kind: 'upsert'; readonly upsert: UpsertParams }
  | { readonly kind: 'candle' }
  | { readonly kind: 'events'; readonly events: EventParams };

/** How a replica folds a channel's updates. */
export type ChannelKind = ChannelFold['kind'];

export type ChannelDef = {
  readonly name: ChannelName;
  readonly scopeKeys: readonly ScopeKey[];
  /** Perp-only market channels (`is_perps` is implied). */
  readonly perpOnly: boolean;
  readonly data: z.ZodMiniType;
  readonly snapshot: SnapshotOperationName;
  /** REST parameters of the snapshot for a scope. */
  snapshotParams(scope: Scope): ParamValues;
} & ChannelFold;

const FAR_FUTURE_MS = Number.MAX_SAFE_INTEGER;
const marketType = (s: Scope) => (s.is_perps ? 'perp' : 'spot');
/** A `size_base_lots` of zero: the position is closed. */
const ZERO = /^0+$/;

export const CHANNELS: Readonly<Record<ChannelName, ChannelDef>> = {
  book: { name: 'book', scopeKeys: ['market_id', 'is_perps'], perpOnly: false, kind: 'book', data: R.OrderBook, snapshot: 'orderBook', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id!, depth: 500 }) },
  bbo: { name: 'bbo', scopeKeys: ['market_id', 'is_perps'], perpOnly: false, kind: 'replace', replace: 'answer', data: R.Bbo, snapshot: 'bbo', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id! }) },
  trades: { name: 'trades', scopeKeys: ['market_id', 'is_perps'], perpOnly: false, kind: 'events', events: { records: 'trades', sequence: 'sequence' }, data: z.strictObject({ trades: z.array(R.Trade) }), snapshot: 'trades', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id!, limit: 100 }) },
  marketStats: { name: 'marketStats', scopeKeys: ['market_id', 'is_perps'], perpOnly: false, kind: 'replace', replace: 'market', data: R.MarketStats, snapshot: 'marketStats', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id! }) },
  candles: { name: 'candles', scopeKeys: ['market_id', 'is_perps', 'interval'], perpOnly: false, kind: 'candle', data: R.LastCandle, snapshot: 'candles', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id!, resolution: s.interval!, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, count_back: 500 }) },
  markCandles: { name: 'markCandles', scopeKeys: ['market_id', 'interval'], perpOnly: true, kind: 'candle', data: R.MarkCandle, snapshot: 'markCandles', snapshotParams: (s) => ({ market_id: s.market_id!, resolution: s.interval!, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, count_back: 500 }) },
  fundingRates: { name: 'fundingRates', scopeKeys: ['market_id'], perpOnly: true, kind: 'events', events: { sequence: 'sequence' }, data: R.FundingRate, snapshot: 'fundingRates', snapshotParams: (s) => ({ market_id: s.market_id!, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, limit: 100 }) },
  account: { name: 'account', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'replace', replace: 'subaccount', data: R.Subaccount, snapshot: 'account', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id! }) },
  balances: { name: 'balances', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'upsert', upsert: { records: 'balances', key: 'token_id' }, data: z.strictObject({ balances: z.array(R.Balance) }), snapshot: 'balances', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id! }) },
  positions: { name: 'positions', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'upsert', upsert: { records: 'positions', key: 'market_id', removes: (p: R.Position) => ZERO.test(p.size_base_lots) }, data: z.strictObject({ positions: z.array(R.Position) }), snapshot: 'positions', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id! }) },
  orders: { name: 'orders', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'upsert', upsert: { records: 'orders', key: 'order_id', removes: (o: R.Order) => o.status !== 'open', allPages: true }, data: z.strictObject({ orders: z.array(R.Order) }), snapshot: 'orders', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id!, status: 'active', limit: 100 }) },
  fills: { name: 'fills', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'events', events: { records: 'fills', sequence: 'sequence' }, data: z.strictObject({ fills: z.array(R.Fill) }), snapshot: 'fills', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id!, role: 'all', limit: 100 }) },
};

/** On failure, `key` is the scope key at fault. */
export type ScopeResult = { ok: true; scope: Scope } | { ok: false; message: string; key: ScopeKey };

/**
 * Checks a scope against a channel: every required key present and well typed, no other
 * key. The messages are the ones an `INVALID_SUBSCRIPTION` error carries.
 */
export function validateScope(channel: ChannelName, input: Record<string, unknown>): ScopeResult {
  const def = CHANNELS[channel];
  const scope: Record<string, unknown> = {};
  for (const key of SCOPE_KEYS) {
    const v = input[key];
    const wanted = def.scopeKeys.includes(key);
    if (v === undefined) {
      if (wanted) return { ok: false, key, message: `${key} is required for channel ${channel} (scope keys: ${def.scopeKeys.join(', ')})` };
      continue;
    }
    if (!wanted) return { ok: false, key, message: `${key} is not a scope key of channel ${channel} (scope keys: ${def.scopeKeys.join(', ')})` };
    if (!SCOPE_SCHEMAS[key].safeParse(v).success) return { ok: false, key, message: `${key} is invalid for channel ${channel}: got ${JSON.stringify(v)}` };
    scope[key] = v;
  }
  return { ok: true, scope: scope as Scope };
}

/** The canonical key of a stream: channel plus its scope in a fixed key order. */
export function streamKey(channel: ChannelName, scope: Scope): string {
  let k: string = channel;
  for (const key of SCOPE_KEYS) {
    const v = scope[key];
    if (v !== undefined) k += `|${key}=${String(v)}`;
  }
  return k;
}

/** The market type a market-channel scope refers to. */
export function scopeMarketType(channel: ChannelName, scope: Scope): 'spot' | 'perp' {
  return CHANNELS[channel].perpOnly || scope.is_perps ? 'perp' : 'spot';
}
