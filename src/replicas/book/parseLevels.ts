/**
 * Turning wire levels (`{price_ticks, size_base_lots}` Uint64 strings) into the book's
 * representations, with validation: a value that is not a Uint64 string is reported with
 * `ReplicaIntegrityError` before anything is changed.
 */
import { ReplicaIntegrityError } from '../ReplicaIntegrityError';
import type { PriceLevel } from '../../protocol';
import { parseBigUint, parseSafeUint } from './parseSafeUint';

function invalidLevel(where: string, index: number, field: string, value: unknown): ReplicaIntegrityError {
  return new ReplicaIntegrityError(`book ${where}[${index}].${field} is not an unsigned 64-bit integer string: ${JSON.stringify(value)}`);
}

/**
 * Parses every level of one side. On the number path (`exact` false) the (price, size)
 * pairs go to `scratch` from `off` and the result is false. When the side is already exact,
 * or a value is above 2^53 - 1, every level is parsed exactly into `bigOut` (price, size,
 * price, size, ...) and the result is true: the side must switch to bigints.
 * @throws ReplicaIntegrityError for a value that is not a Uint64 string.
 */
export function parseLevels(exact: boolean, levels: readonly PriceLevel[], scratch: Float64Array, off: number, bigOut: bigint[], where: string): boolean {
  const n = levels.length;
  if (!exact) {
    let j = 0;
    for (; j < n; j++) {
      const lv = levels[j]!;
      const p = parseSafeUint(lv?.price_ticks);
      const s = parseSafeUint(lv?.size_base_lots);
      // Any negative result (invalid or not safe) leaves the fast loop; the exact loop sorts it out.
      if (p < 0 || s < 0) break;
      scratch[off + 2 * j] = p;
      scratch[off + 2 * j + 1] = s;
    }
    if (j === n) return false;
  }
  bigOut.length = 0;
  for (let j = 0; j < n; j++) {
    const lv = levels[j]!;
    const p = typeof lv?.price_ticks === 'string' ? parseBigUint(lv.price_ticks) : undefined;
    if (p === undefined) throw invalidLevel(where, j, 'price_ticks', lv?.price_ticks);
    const s = typeof lv?.size_base_lots === 'string' ? parseBigUint(lv.size_base_lots) : undefined;
    if (s === undefined) throw invalidLevel(where, j, 'size_base_lots', lv?.size_base_lots);
    bigOut.push(p, s);
  }
  return true;
}
