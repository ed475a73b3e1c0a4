/** A record with one entry per key (a table of counts, of statuses by part), each value made by `value(key)`. @internal */
export function recordOf<K extends PropertyKey, V>(keys: readonly K[], value: (key: K) => V): Record<K, V> {
  const entries: Partial<Record<K, V>> = {};
  for (const key of keys) entries[key] = value(key);
  // Every key of `keys` was set above.
  return entries as Record<K, V>;
}
