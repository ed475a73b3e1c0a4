/**
 * The channels table: every feed channel of streaming-protocol.md section 4 described once,
 * as data: scope keys, the schema of an update's `data`, the snapshot operation and how a
 * replica folds updates (its kind). Consumed by the router, the replicas, the simulator's
 * feed and the CLI.
 */
import { z } from 'zod';
import { RESOLUTIONS, type Resolution } from './enums';
import { Address, NonNegInt32 } from './scalars';
import * as R from './records';
import type { ChannelName } from './channelNames';
import type { OperationName } from './operations';
import type { ParamValues } from './params';

export { CHANNEL_NAMES, MARKET_CHANNELS, ACCOUNT_CHANNELS, isChannelName, type ChannelName } from './channelNames';

/** The keys a subscription scope may hold (streaming-protocol.md section 2). */
export const SCOPE_KEYS = ['market_id', 'is_perps', 'interval', 'address', 'subaccount_id'] as const;
export type ScopeKey = (typeof SCOPE_KEYS)[number];

export interface Scope {
  market_id?: number;
  is_perps?: boolean;
  interval?: Resolution;
  address?: string;
  subaccount_id?: number;
}

const SCOPE_SCHEMAS: Record<ScopeKey, z.ZodType> = {
  market_id: NonNegInt32,
  is_perps: z.boolean(),
  interval: z.enum(RESOLUTIONS),
  address: Address,
  subaccount_id: NonNegInt32,
};

/** How a replica folds a channel's updates. */
export type ChannelKind = 'book' | 'replace' | 'upsert' | 'candle' | 'events';

export interface ChannelDef {
  readonly name: ChannelName;
  readonly scopeKeys: readonly ScopeKey[];
  /** Perp-only market channels (`is_perps` is implied). */
  readonly perpOnly: boolean;
  readonly data: z.ZodType;
  readonly kind: ChannelKind;
  readonly snapshot: OperationName;
  /** REST parameters of the snapshot for a scope. */
  snapshotParams(scope: Scope): ParamValues;
}

const FAR_FUTURE_MS = Number.MAX_SAFE_INTEGER;
const marketType = (s: Scope) => (s.is_perps ? 'perp' : 'spot');

export const CHANNELS: Readonly<Record<ChannelName, ChannelDef>> = {
  book: { name: 'book', scopeKeys: ['market_id', 'is_perps'], perpOnly: false, kind: 'book', data: R.OrderBook, snapshot: 'orderBook', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id!, depth: 500 }) },
  bbo: { name: 'bbo', scopeKeys: ['market_id', 'is_perps'], perpOnly: false, kind: 'replace', data: R.Bbo, snapshot: 'bbo', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id! }) },
  trades: { name: 'trades', scopeKeys: ['market_id', 'is_perps'], perpOnly: false, kind: 'events', data: z.strictObject({ trades: z.array(R.Trade) }), snapshot: 'trades', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id!, limit: 100 }) },
  marketStats: { name: 'marketStats', scopeKeys: ['market_id', 'is_perps'], perpOnly: false, kind: 'replace', data: R.MarketStats, snapshot: 'marketStats', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id! }) },
  candles: { name: 'candles', scopeKeys: ['market_id', 'is_perps', 'interval'], perpOnly: false, kind: 'candle', data: R.LastCandle, snapshot: 'candles', snapshotParams: (s) => ({ market_type: marketType(s), market_id: s.market_id!, resolution: s.interval!, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, count_back: 500 }) },
  markCandles: { name: 'markCandles', scopeKeys: ['market_id', 'interval'], perpOnly: true, kind: 'candle', data: R.MarkCandle, snapshot: 'markCandles', snapshotParams: (s) => ({ market_id: s.market_id!, resolution: s.interval!, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, count_back: 500 }) },
  fundingRates: { name: 'fundingRates', scopeKeys: ['market_id'], perpOnly: true, kind: 'events', data: R.FundingRate, snapshot: 'fundingRates', snapshotParams: (s) => ({ market_id: s.market_id!, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, limit: 100 }) },
  account: { name: 'account', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'replace', data: R.Subaccount, snapshot: 'account', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id! }) },
  balances: { name: 'balances', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'upsert', data: z.strictObject({ balances: z.array(R.Balance) }), snapshot: 'balances', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id! }) },
  positions: { name: 'positions', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'upsert', data: z.strictObject({ positions: z.array(R.Position) }), snapshot: 'positions', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id! }) },
  orders: { name: 'orders', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'upsert', data: z.strictObject({ orders: z.array(R.Order) }), snapshot: 'orders', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id!, status: 'active', limit: 100 }) },
  fills: { name: 'fills', scopeKeys: ['address', 'subaccount_id'], perpOnly: false, kind: 'events', data: z.strictObject({ fills: z.array(R.Fill) }), snapshot: 'fills', snapshotParams: (s) => ({ address: s.address!, subaccount_id: s.subaccount_id!, role: 'all', limit: 100 }) },
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
