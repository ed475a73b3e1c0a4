/**
 * Which reducer folds which channel, and the state each one builds. The reducer is chosen by
 * the channel's kind in the channels table (src/protocol/channels.ts) and configured by that
 * kind's parameters there: a new channel is one table entry; only a new kind needs a reducer.
 */
import { CHANNEL_NAMES, CHANNELS, type Balance, type Bbo, type ChannelDef, type ChannelName, type EventParams, type Fill, type FundingRate, type LastCandle, type MarkCandle, type MarketStats, type Order, type Position, type Subaccount, type Trade, type UpsertParams } from '../protocol';
import { bookReducer, type OrderBook } from './book';
import { createEventReducer, type EventLogState, type EventReducerOptions } from './eventReducer';
import type { Reducer } from './Reducer';
import { createCandleReducer, createReplaceReducer, createUpsertReducer, type CandleReducerOptions, type KeyedSet } from './reducers';

/** The state of each state channel's replica. */
export interface StateChannelStates {
  /** A live view, mutated in place by each update (see src/replicas/book/bookReducer.ts). */
  book: OrderBook;
  bbo: Bbo;
  marketStats: MarketStats;
  candles: readonly LastCandle[];
  markCandles: readonly MarkCandle[];
  account: Subaccount;
  /** A live view, updated in place by each update and replaced by each snapshot (see src/replicas/reducers/KeyedSet.ts). */
  balances: KeyedSet<string, Balance>;
  /** A live view, like `balances`. */
  positions: KeyedSet<number, Position>;
  /** A live view, like `balances`. */
  orders: KeyedSet<string, Order>;
}
export type StateChannel = keyof StateChannelStates;

/** The record of each event channel. */
export interface EventChannelRecords {
  trades: Trade;
  fills: Fill;
  fundingRates: FundingRate;
}
export type EventChannel = keyof EventChannelRecords;

/** Options of any channel's reducer (each kind reads its own). */
export type ChannelReducerOptions = CandleReducerOptions & EventReducerOptions;

/** The channels of kind `events`, in table order. */
export const EVENT_CHANNELS: readonly EventChannel[] = CHANNEL_NAMES.filter((c) => CHANNELS[c].kind === 'events') as EventChannel[];
/** Every other channel, in table order. */
export const STATE_CHANNELS: readonly StateChannel[] = CHANNEL_NAMES.filter((c) => CHANNELS[c].kind !== 'events') as StateChannel[];

type Row = Record<string, unknown>;

function upsertReducer(channel: ChannelName, p: UpsertParams): Reducer<KeyedSet<unknown, Row>> {
  const { records, key } = p;
  const removes = p.removes?.bind(p) ?? (() => false);
  return createUpsertReducer<unknown, Row>({ channel, keyOf: (r) => r[key], recordsOf: (data) => (data as Record<string, readonly Row[]>)[records]!, removes });
}

function eventsReducer(channel: ChannelName, p: EventParams, options: EventReducerOptions): Reducer<EventLogState<Row>> {
  const { records, sequence } = p;
  const recordsOf = records === undefined ? (data: unknown) => [data as Row] : (data: unknown) => (data as Record<string, readonly Row[]>)[records]!;
  return createEventReducer<Row>({ channel, recordsOf, sequenceOf: (r) => BigInt(r[sequence] as string) }, options);
}

/** The reducer of the channel's kind, configured by the kind's parameters in its table entry. */
function reducerOfKind(def: ChannelDef, options: ChannelReducerOptions): Reducer<unknown> {
  switch (def.kind) {
    case 'book':
      return bookReducer;
    case 'replace':
      return createReplaceReducer(def.name, def.replace);
    case 'upsert':
      return upsertReducer(def.name, def.upsert);
    case 'candle':
      return createCandleReducer(def.name, options);
    case 'events':
      return eventsReducer(def.name, def.events, options);
  }
}

/**
 * The reducer of any channel, chosen by its kind in the channels table.
 * @throws InvalidParameterError when an option the kind reads is invalid.
 */
export function channelReducer(channel: ChannelName, options: ChannelReducerOptions = {}): Reducer<unknown> {
  return reducerOfKind(CHANNELS[channel], options);
}

/** The reducer of a state channel. */
export function stateReducer<C extends StateChannel>(channel: C, options: CandleReducerOptions = {}): Reducer<StateChannelStates[C]> {
  // The table is data: the state type of a channel is known from StateChannelStates, not from it.
  return channelReducer(channel, options) as Reducer<StateChannelStates[C]>;
}

/** The reducer of an event channel. */
export function eventReducer<C extends EventChannel>(channel: C, options: EventReducerOptions = {}): Reducer<EventLogState<EventChannelRecords[C]>> {
  return channelReducer(channel, options) as Reducer<EventLogState<EventChannelRecords[C]>>;
}
