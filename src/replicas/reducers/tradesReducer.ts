/** `trades`: public trades of a market, an event stream ordered by `Trade.sequence`. */
import type { Trade } from '../../protocol';
import { createEventReducer, type EventReducerOptions } from '../eventReducer';

/** @throws InvalidParameterError when an option is not a positive integer. */
export function createTradesReducer(options: EventReducerOptions = {}) {
  return createEventReducer<Trade>(
    { channel: 'trades', recordsOf: (data) => (data as { trades: readonly Trade[] }).trades, sequenceOf: (t) => BigInt(t.sequence) },
    options,
  );
}
