/** `positions`: upsert by `market_id`; a `size_base_lots` of zero means closed and removed. */
import type { Position } from '../../protocol';
import { createUpsertReducer } from './upsertReducer';

const ZERO = /^0+$/;

/** Reducer of `positions`: state = open positions by `market_id` (a live view, see KeyedSet). */
export const positionsReducer = createUpsertReducer<number, Position>({
  channel: 'positions',
  keyOf: (p) => p.market_id,
  recordsOf: (data) => (data as { positions: readonly Position[] }).positions,
  removes: (p) => ZERO.test(p.size_base_lots),
});
