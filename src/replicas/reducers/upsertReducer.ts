/**
 * The shape shared by `balances`, `positions` and `orders`: a keyed set of records, each
 * update upserting records by key, some records meaning "remove". Copy-on-write: a changed
 * set is a new Map, so an emitted state never changes afterwards.
 */
import type { ChannelName } from '../../protocol';
import type { Reducer } from '../Reducer';

/** How one keyed channel is folded. */
export interface UpsertSpec<K, T> {
  readonly channel: ChannelName;
  readonly keyOf: (record: T) => K;
  /** The records of an update's `data`. */
  readonly recordsOf: (data: unknown) => readonly T[];
  /** True when the record removes its key from the set (a closed position, a filled order). */
  readonly removes: (record: T) => boolean;
}

/** Applies records to a keyed set; returns the same Map when nothing changed. */
export function upsertAll<K, T>(state: ReadonlyMap<K, T>, records: readonly T[], spec: Pick<UpsertSpec<K, T>, 'keyOf' | 'removes'>): ReadonlyMap<K, T> {
  let next: Map<K, T> | undefined;
  for (const r of records) {
    const k = spec.keyOf(r);
    if (spec.removes(r)) {
      if (!(next ?? state).has(k)) continue;
      next ??= new Map(state);
      next.delete(k);
    } else {
      next ??= new Map(state);
      next.set(k, r);
    }
  }
  return next ?? state;
}

/** A reducer over a keyed set; the snapshot is the list of records. */
export function createUpsertReducer<K, T>(spec: UpsertSpec<K, T>): Reducer<ReadonlyMap<K, T>, unknown, readonly T[]> {
  return {
    channel: spec.channel,
    fromSnapshot: (snapshot) => upsertAll(new Map<K, T>(), snapshot, spec),
    apply: (state, data) => upsertAll(state, spec.recordsOf(data), spec),
  };
}
