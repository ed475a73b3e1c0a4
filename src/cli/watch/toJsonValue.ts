/**
 * Replica states as JSON-ready values: bigints as decimal strings, maps as arrays of their
 * records, an order book as its top-N levels in wire form, candle lists cut to the newest
 * N. Nothing else is changed, so records keep the API's field names. @internal
 */
import { OrderBook } from '../../replicas';

/** How much of a large state is printed. */
export interface JsonLimits {
  /** Book levels per side, and candles (newest) of a candle list. */
  readonly depth: number;
}

/** A JSON-ready copy of `value`. */
export function toJsonValue(value: unknown, limits: JsonLimits): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof OrderBook) return value.top(limits.depth);
  if (value instanceof Map) return [...value.values()].map((v) => toJsonValue(v, limits));
  if (Array.isArray(value)) return value.map((v) => toJsonValue(v, limits));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toJsonValue(v, limits);
    return out;
  }
  return value;
}

/** A candle list (`open_time_ms` rows, oldest first) cut to its newest `n` rows. */
export function newest<T>(rows: readonly T[], n: number): readonly T[] {
  return rows.length > n ? rows.slice(rows.length - n) : rows;
}
