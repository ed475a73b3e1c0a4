/** Which reducer folds which channel, and the state each one builds. */
import type { Balance, Bbo, Fill, FundingRate, LastCandle, MarkCandle, MarketStats, Order, Position, Subaccount, Trade } from '../protocol';
import { bookReducer, type OrderBook } from './book';
import type { EventLogState, EventReducerOptions } from './eventReducer';
import type { Reducer } from './Reducer';
import {
  accountReducer,
  balancesReducer,
  bboReducer,
  createCandlesReducer,
  createFillsReducer,
  createFundingRatesReducer,
  createMarkCandlesReducer,
  createTradesReducer,
  marketStatsReducer,
  ordersReducer,
  positionsReducer,
  type CandleReducerOptions,
  type KeyedSet,
} from './reducers';

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

export const EVENT_CHANNELS: readonly EventChannel[] = ['trades', 'fills', 'fundingRates'];
export const STATE_CHANNELS: readonly StateChannel[] = ['book', 'bbo', 'marketStats', 'candles', 'markCandles', 'account', 'balances', 'positions', 'orders'];

/** The reducer of a state channel. */
export function stateReducer<C extends StateChannel>(channel: C, options: CandleReducerOptions = {}): Reducer<StateChannelStates[C]> {
  const reducers: { [K in StateChannel]: () => Reducer<StateChannelStates[K]> } = {
    book: () => bookReducer,
    bbo: () => bboReducer,
    marketStats: () => marketStatsReducer,
    candles: () => createCandlesReducer(options),
    markCandles: () => createMarkCandlesReducer(options),
    account: () => accountReducer,
    balances: () => balancesReducer,
    positions: () => positionsReducer,
    orders: () => ordersReducer,
  };
  // Indexed by a generic key, the table's entry cannot be narrowed to C by the compiler.
  return reducers[channel]() as Reducer<StateChannelStates[C]>;
}

/** The reducer of an event channel. */
export function eventReducer<C extends EventChannel>(channel: C, options: EventReducerOptions = {}): Reducer<EventLogState<EventChannelRecords[C]>> {
  const reducers: { [K in EventChannel]: () => Reducer<EventLogState<EventChannelRecords[K]>> } = {
    trades: () => createTradesReducer(options),
    fills: () => createFillsReducer(options),
    fundingRates: () => createFundingRatesReducer(options),
  };
  return reducers[channel]() as Reducer<EventLogState<EventChannelRecords[C]>>;
}
