/** JSON values, and the client options a recording can store and give back. */

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A non-finite number (`retries: Infinity`), which JSON cannot hold, is stored as `{ "$number": "Infinity" }`. */
const NUMBER_KEY = '$number';

/** Option groups of `ExchangeClientOptions` whose plain values are stored. */
const GROUPS = ['rest', 'connection', 'router', 'resync', 'replica'] as const;
/** Never stored: credentials may be in the request headers. */
const SECRET_KEYS = new Set(['headers']);

/**
 * What of a client's options can be stored: numbers, strings and booleans, and objects of
 * them (retry policies), in the top level and the option groups. Functions, class instances
 * (clocks, the socket class, fetch) and request headers are left out.
 */
export function storableOptions(options: object): JsonValue {
  const out: Record<string, JsonValue> = {};
  const o = options as Record<string, unknown>;
  if (typeof o.strict === 'boolean') out.strict = o.strict;
  for (const group of GROUPS) {
    const v = plain(o[group], 0);
    if (v !== undefined) out[group] = v;
  }
  return out;
}

function plain(v: unknown, depth: number): JsonValue | undefined {
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : { [NUMBER_KEY]: String(v) };
  if (typeof v !== 'object' || v === null || depth > 2 || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  const out: Record<string, JsonValue> = {};
  for (const [k, x] of Object.entries(v)) {
    if (SECRET_KEYS.has(k)) continue;
    const p = plain(x, depth + 1);
    if (p !== undefined) out[k] = p;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The stored options as option values again (`{ "$number": "Infinity" }` back to `Infinity`). */
export function reviveOptions(v: JsonValue): unknown {
  if (Array.isArray(v)) return v.map(reviveOptions);
  if (typeof v !== 'object' || v === null) return v;
  const o = v as { readonly [key: string]: JsonValue };
  const keys = Object.keys(o);
  if (keys.length === 1 && keys[0] === NUMBER_KEY && typeof o[NUMBER_KEY] === 'string') return Number(o[NUMBER_KEY]);
  return Object.fromEntries(keys.map((k) => [k, reviveOptions(o[k]!)]));
}
