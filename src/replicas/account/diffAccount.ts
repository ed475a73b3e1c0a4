/** Differences between two account states, record by record. */
import type { Subaccount } from '../../protocol';
import type { KeyedSet } from '../reducers/KeyedSet';
import type { EmissionCause } from '../ReplicaState';
import type { ReplicaStatus } from '../ReplicaStatus';
import type { AccountChange } from './AccountState';

/**
 * Structural equality of JSON-like records (strings, numbers, booleans, arrays, plain objects).
 * Walks keys with `for...in` (V8's enum cache) rather than `Object.keys`: no array allocated
 * per record compared, and every account-stream update compares its records.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  if (isArray) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!deepEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const k in x) {
    if (!hasOwn.call(x, k)) continue;
    if (!hasOwn.call(y, k) || !deepEqual(x[k], y[k])) return false;
    keys++;
  }
  for (const k in y) if (hasOwn.call(y, k)) keys--;
  return keys === 0;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Changes between two keyed sets, in key order of `before` then new keys of `after`. */
export function diffMaps<K, T, C>(before: ReadonlyMap<K, T> | undefined, after: ReadonlyMap<K, T>, change: (key: K, before: T | undefined, after: T | undefined) => C): C[] {
  const out: C[] = [];
  if (before === after) return out;
  if (before) {
    for (const [k, b] of before) {
      const a = after.get(k);
      if (!deepEqual(b, a)) out.push(change(k, b, a));
    }
  }
  for (const [k, a] of after) if (!before?.has(k)) out.push(change(k, undefined, a));
  return out;
}

/**
 * Changes of a keyed set between the value shown before (`before`) and an emission of it.
 * The same live set updated in place: what its last update changed (`lastChanges`, only on
 * an `update` emission), without looking at the rest of the set. A new set (a snapshot, the
 * first or a resync): a full diff with the set shown before, which is never updated again.
 */
export function diffKeyedSet<K, T, C>(
  before: ReadonlyMap<K, T> | undefined,
  after: KeyedSet<K, T>,
  cause: EmissionCause,
  change: (key: K, before: T | undefined, after: T | undefined) => C,
): C[] {
  if (before !== after) return diffMaps(before, after, change);
  if (cause !== 'update') return [];
  const out: C[] = [];
  for (const c of after.lastChanges) if (!deepEqual(c.before, c.after)) out.push(change(c.key, c.before, c.after));
  return out;
}

/** The change of the subaccount record, if any. */
export function diffSubaccount(before: Subaccount | undefined, after: Subaccount): AccountChange[] {
  return deepEqual(before, after) ? [] : [{ kind: 'subaccount', before, after }];
}

const SEVERITY: readonly ReplicaStatus[] = ['failed', 'stale', 'syncing', 'resyncing'];

/** The status of a combination: the worst of its parts. */
export function combineStatuses(statuses: Iterable<ReplicaStatus>): ReplicaStatus {
  const all = [...statuses];
  return SEVERITY.find((s) => all.includes(s)) ?? 'live';
}
