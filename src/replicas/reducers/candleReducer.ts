/**
 * The `candle` kind (`candles`, `markCandles`): an update is the candle of bucket
 * `open_time_ms`, which it replaces or appends. The state is the newest `maxCandles` buckets,
 * oldest first; a new array is returned on every change, so an emitted state never changes
 * afterwards.
 */
import { positiveInteger } from '../../util/positiveInteger';
import type { ChannelName } from '../../protocol';
import type { Reducer } from '../Reducer';

/** Candles kept per replica. @default 500 (the snapshot's `count_back`) */
export const DEFAULT_MAX_CANDLES = 500;

export interface CandleReducerOptions {
  /** Newest buckets kept. @default DEFAULT_MAX_CANDLES */
  readonly maxCandles?: number;
}

interface Bucketed {
  readonly open_time_ms: number;
}

/** Index of the bucket `t` in `candles` (sorted), or of where it would be inserted, as `-(i + 1)`. */
function search(candles: readonly Bucketed[], t: number): number {
  let lo = 0;
  let hi = candles.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const m = candles[mid]!.open_time_ms;
    if (m === t) return mid;
    if (m < t) lo = mid + 1;
    else hi = mid - 1;
  }
  return -(lo + 1);
}

/** Replaces or inserts `candle` by its bucket, keeping the newest `max`. */
export function upsertCandle<C extends Bucketed>(candles: readonly C[], candle: C, max: number): readonly C[] {
  const i = search(candles, candle.open_time_ms);
  const next = candles.slice();
  if (i >= 0) next[i] = candle;
  else next.splice(-(i + 1), 0, candle);
  return next.length > max ? next.slice(next.length - max) : next;
}

/** Sorts a snapshot by bucket, the last row of a bucket winning, and keeps the newest `max`. */
export function candlesFromSnapshot<C extends Bucketed>(snapshot: readonly C[], max: number): readonly C[] {
  const byBucket = new Map<number, C>();
  for (const c of snapshot) byBucket.set(c.open_time_ms, c);
  const sorted = [...byBucket.values()].sort((a, b) => a.open_time_ms - b.open_time_ms);
  return sorted.length > max ? sorted.slice(sorted.length - max) : sorted;
}

/**
 * The reducer of a `candle` channel.
 * @throws InvalidParameterError when `maxCandles` is not a positive integer.
 */
export function createCandleReducer<C extends Bucketed>(channel: ChannelName, options: CandleReducerOptions = {}): Reducer<readonly C[], C, readonly C[]> {
  const max = positiveInteger(options.maxCandles ?? DEFAULT_MAX_CANDLES, 'maxCandles');
  return {
    channel,
    fromSnapshot: (snapshot) => candlesFromSnapshot(snapshot, max),
    apply: (state, candle) => upsertCandle(state, candle, max),
  };
}
