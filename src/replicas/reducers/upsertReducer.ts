/**
 * The `upsert` kind (`balances`, `positions`, `orders`): a keyed set of records, each
 * update upserting records by key, some records meaning "remove". The state is a live view
 * (`KeyedSet`) updated in place, so an update costs its records, never the size of the set
 * (an account with thousands of open orders); a snapshot builds a new set.
 */
import type { ChannelName } from '../../protocol';
import type { Reducer } from '../Reducer';
import { createKeyedSet, isKeyedSet, loadKeyedSet, updateKeyedSet, type KeyedSet } from './KeyedSet';

/** How one keyed channel is folded. */
export interface UpsertSpec<K, T> {
  readonly channel: ChannelName;
  readonly keyOf: (record: T) => K;
  /** The records of an update's `data`. */
  readonly recordsOf: (data: unknown) => readonly T[];
  /** True when the record removes its key from the set (a closed position, a filled order). */
  readonly removes: (record: T) => boolean;
}

/**
 * Applies records to a keyed set in place and returns it; `lastChanges` then lists what
 * they changed. A map that is not a keyed set (a plain Map) is first copied into one.
 */
export function upsertAll<K, T>(state: ReadonlyMap<K, T>, records: readonly T[], spec: Pick<UpsertSpec<K, T>, 'keyOf' | 'removes'>): KeyedSet<K, T> {
  const set = isKeyedSet(state) ? state : createKeyedSet(state);
  return updateKeyedSet(set, records, spec.keyOf, spec.removes);
}

/** A reducer over a keyed set; the snapshot is the list of records (every page of it, merged by the source). */
export function createUpsertReducer<K, T>(spec: UpsertSpec<K, T>): Reducer<KeyedSet<K, T>, unknown, readonly T[]> {
  return {
    channel: spec.channel,
    // A new set per snapshot: the one shown before is left as it was.
    fromSnapshot: (snapshot) => loadKeyedSet(createKeyedSet<K, T>(), snapshot, spec.keyOf, spec.removes),
    apply: (state, data) => upsertAll(state, spec.recordsOf(data), spec),
  };
}
