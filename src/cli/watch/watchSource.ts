/**
 * `watch <channel>`: the channel's scope (feed names: `market_id`, `is_perps` given as
 * `market_type`, `interval`, `address`, `subaccount_id`) checked against the channels
 * table, then the client's replica of that channel as a stream of JSON-ready records, one
 * per emission. @internal
 */
import { map, type Observable } from 'rxjs';
import type { ExchangeClient } from '../../client';
import { CHANNELS, streamKey, validateScope, type ChannelName, type Scope, type ScopeKey } from '../../protocol';
import type { EventItem, ReplicaState } from '../../replicas';
import { CliUsageError } from '../CliUsageError';
import { newest, toJsonValue, type JsonLimits } from './toJsonValue';

/** One printed record: a replica state emission, or an event stream item. */
export type WatchRecord = Record<string, unknown> & { readonly channel: ChannelName; readonly stream: string };

/** `market_type` (the REST name, values perp|spot) stands for the feed's `is_perps` scope key. */
export const MARKET_TYPES = ['perp', 'spot'] as const;
export type MarketTypeFlag = (typeof MARKET_TYPES)[number];

/** The scope flags of `watch`, as commander hands them over (each parsed by its flag parser or choices). */
export interface ScopeFlags {
  readonly market_id?: number;
  readonly market_type?: MarketTypeFlag;
  readonly is_perps?: boolean;
  readonly interval?: string;
  readonly address?: string;
  readonly subaccount_id?: number;
}

/** The flag of a scope key: `is_perps` is given as `--market_type perp|spot` (or `--is_perps`). */
function flagOf(key: ScopeKey, viaIsPerps: boolean): string {
  return key === 'is_perps' ? (viaIsPerps ? '--is_perps' : '--market_type') : `--${key}`;
}

/** The scope flags of a channel, for messages and help: `--market_id --market_type perp|spot`. */
export function scopeFlags(channel: ChannelName): string {
  return CHANNELS[channel].scopeKeys.map((k) => (k === 'is_perps' ? '--market_type perp|spot' : `--${k}`)).join(' ');
}

/**
 * The scope of `channel` from the flags (absent flags are left out). The market type is
 * `--market_type perp|spot`, as REST names it; `--is_perps [true|false]`, the feed's own
 * scope key, is accepted as an alias.
 * @throws CliUsageError naming the missing, ill-typed, conflicting or unexpected flag and the channel's scope flags.
 */
export function scopeFor(channel: ChannelName, flags: ScopeFlags): Scope {
  const accepted = `scope flags of ${channel}: ${scopeFlags(channel)}`;
  const marketType = flags.market_type;
  const isPerps = flags.is_perps;
  if (marketType !== undefined && isPerps !== undefined && (marketType === 'perp') !== isPerps) {
    throw new CliUsageError(`--market_type ${marketType} and --is_perps ${String(isPerps)} disagree: give one of them (${accepted})`);
  }
  const input: Record<string, unknown> = {};
  for (const key of ['market_id', 'interval', 'address', 'subaccount_id'] as const) if (flags[key] !== undefined) input[key] = flags[key];
  if (isPerps !== undefined) input.is_perps = isPerps;
  else if (marketType !== undefined) input.is_perps = marketType === 'perp';
  const r = validateScope(channel, input);
  if (r.ok) return r.scope;
  const flag = flagOf(r.key, isPerps !== undefined);
  const def = CHANNELS[channel];
  if (r.key === 'is_perps' && input.is_perps !== undefined && def.perpOnly) throw new CliUsageError(`${flag}: channel ${channel} is perp-only and takes no market type (${accepted})`);
  if (input[r.key] === undefined) throw new CliUsageError(`${flag} is required for channel ${channel} (${accepted})`);
  if (!def.scopeKeys.includes(r.key)) throw new CliUsageError(`${flag} is not a scope flag of channel ${channel} (${accepted})`);
  throw new CliUsageError(`${flag} is invalid for channel ${channel}: got ${JSON.stringify(input[r.key])} (${accepted})`);
}

function stateRecord(channel: ChannelName, stream: string, e: ReplicaState<unknown>, limits: JsonLimits): WatchRecord {
  const state = CHANNELS[channel].kind === 'candle' ? newest(e.state as readonly unknown[], limits.depth) : e.state;
  return {
    channel,
    stream,
    status: e.status,
    cause: e.cause,
    seq: e.seq.toString(),
    snapshot_id: e.snapshotId,
    timestamp_ns: e.timestampNs.toString(),
    state: toJsonValue(state, limits),
  };
}

function eventRecord(channel: ChannelName, stream: string, item: EventItem<unknown>, limits: JsonLimits): WatchRecord {
  if (item.kind === 'gap') return { channel, stream, kind: 'gap', from_sequence: item.fromSequence.toString(), to_sequence: item.toSequence.toString(), reason: item.reason };
  return { channel, stream, kind: 'record', sequence: item.sequence.toString(), record: toJsonValue(item.record, limits) };
}

/** The replica of `channel` for `scope`, as printable records. */
export function watchSource(client: ExchangeClient, channel: ChannelName, scope: Scope, limits: JsonLimits): Observable<WatchRecord> {
  const stream = streamKey(channel, scope);
  const market = { market_type: scope.is_perps ? 'perp' : 'spot', market_id: scope.market_id! } as const;
  const account = { address: scope.address!, subaccount_id: scope.subaccount_id! };
  const states = (o: Observable<ReplicaState<unknown>>) => o.pipe(map((e) => stateRecord(channel, stream, e, limits)));
  const events = (o: Observable<EventItem<unknown>>) => o.pipe(map((i) => eventRecord(channel, stream, i, limits)));
  switch (channel) {
    case 'book':
      return states(client.orderBook(market));
    case 'bbo':
      return states(client.bbo(market));
    case 'marketStats':
      return states(client.marketStats(market));
    case 'candles':
      return states(client.candles({ ...market, resolution: scope.interval! }));
    case 'markCandles':
      return states(client.markCandles({ market_id: scope.market_id!, resolution: scope.interval! }));
    case 'trades':
      return events(client.trades(market));
    case 'fundingRates':
      return events(client.fundingRates({ market_id: scope.market_id! }));
    case 'account':
      return states(client.subaccount(account));
    case 'balances':
      return states(client.balances(account));
    case 'positions':
      return states(client.positions(account));
    case 'orders':
      return states(client.openOrders(account));
    case 'fills':
      return events(client.fills(account));
  }
}
