/**
 * The state of `balances`, `positions` and `orders`: a Map updated in place (a live view,
 * like the order book) that also remembers what its last update changed, key by key, so
 * that a consumer (the AccountReplica) never has to compare whole maps on an update.
 */

/** One key touched by an update: its record before and after (absent = not in the set). */
export interface KeyChange<K, T> {
  readonly key: K;
  readonly before: T | undefined;
  readonly after: T | undefined;
}

/**
 * A keyed set of records as shown by a replica. A live view: it is updated in place by each
 * update of its stream, and replaced by a new one when a snapshot is applied (a resync), so
 * it never mixes two snapshots. Copy it (`new Map(set)`) to keep a point-in-time value.
 */
export interface KeyedSet<K, T> extends ReadonlyMap<K, T> {
  /**
   * The keys the last update touched, in the order first touched, each with its record
   * before that update and after it (a key touched twice appears once, before to after).
   * May list a key whose record did not change (an identical record upserted). Empty for a
   * set fresh from a snapshot (until an update is folded in).
   */
  readonly lastChanges: readonly KeyChange<K, T>[];
}

/** A keyed set being built or updated by a reducer. */
type Writable<K, T> = Map<K, T> & { lastChanges: readonly KeyChange<K, T>[] };

// The sets made here, told apart from maps of any other origin (which upsertAll copies first).
const LIVE = new WeakSet<object>();

/**
 * A new keyed set. A plain `Map` (same constructor, so it compares equal to any Map with the
 * same entries) whose `lastChanges` is a non-enumerable own property.
 */
export function createKeyedSet<K, T>(entries?: Iterable<readonly [K, T]>): KeyedSet<K, T> {
  const set = new Map<K, T>(entries);
  Object.defineProperty(set, 'lastChanges', { value: [], writable: true, enumerable: false, configurable: false });
  LIVE.add(set);
  return set as Writable<K, T>;
}

/** True when `map` was made by `createKeyedSet` (and may be updated in place). */
export function isKeyedSet<K, T>(map: ReadonlyMap<K, T>): map is KeyedSet<K, T> {
  return LIVE.has(map);
}

/** Fills a set from a snapshot's records (a later record of a key wins); records no changes. */
export function loadKeyedSet<K, T>(set: KeyedSet<K, T>, records: readonly T[], keyOf: (record: T) => K, removes: (record: T) => boolean): KeyedSet<K, T> {
  const w = set as Writable<K, T>;
  for (const r of records) {
    if (removes(r)) w.delete(keyOf(r));
    else w.set(keyOf(r), r);
  }
  w.lastChanges = [];
  return set;
}

/**
 * Applies one update's records to the set in place, in order (`removes(record)`: the record
 * deletes its key), and records what changed in `lastChanges`. Work is proportional to the
 * records, not to the set.
 */
export function updateKeyedSet<K, T>(set: KeyedSet<K, T>, records: readonly T[], keyOf: (record: T) => K, removes: (record: T) => boolean): KeyedSet<K, T> {
  const w = set as Writable<K, T>;
  if (records.length === 1) {
    // The common case (one order, one balance): no bookkeeping map.
    const r = records[0]!;
    const key = keyOf(r);
    const before = w.get(key);
    if (removes(r)) w.delete(key);
    else w.set(key, r);
    const after = w.get(key);
    w.lastChanges = before === undefined && after === undefined ? [] : [{ key, before, after }];
    return set;
  }
  // Keys in first-touch order with the record each had before the update.
  const touched = new Map<K, T | undefined>();
  for (const r of records) {
    const k = keyOf(r);
    if (!touched.has(k)) touched.set(k, w.get(k));
    if (removes(r)) w.delete(k);
    else w.set(k, r);
  }
  const changes: KeyChange<K, T>[] = [];
  for (const [key, before] of touched) {
    const after = w.get(key);
    if (before !== undefined || after !== undefined) changes.push({ key, before, after });
  }
  w.lastChanges = changes;
  return set;
}
