/**
 * Loading one side of the book from a REST snapshot (levels best first), including the
 * 500-level rule: a side that held at least `depthLimit` levels is truncated at its deepest
 * price (streaming-protocol.md section 5).
 */
import { ReplicaIntegrityError } from '../ReplicaIntegrityError';
import type { PriceLevel } from '../../protocol';
import type { BookSide } from './BookSide';
import { parseLevels } from './parseLevels';
import { SortedBigLevels } from './SortedBigLevels';

/**
 * Fills `side` (emptied first) from a snapshot side. Zero-size levels are not stored but
 * still count toward the depth limit and the covered range.
 * @throws ReplicaIntegrityError for a value that is not a Uint64 string, or levels that are
 *   not strictly best first (bids descending, asks ascending, no repeated price).
 */
export function loadSide(side: BookSide, levels: readonly PriceLevel[], depthLimit: number): void {
  const count = levels.length;
  const where = `snapshot ${side.side}s`;
  const pairs = new Float64Array(2 * count);
  const bigPairs: bigint[] = [];
  const exact = parseLevels(false, levels, pairs, 0, bigPairs, where);
  const ordered = exact ? loadBig(side, bigPairs) : loadNumbers(side, pairs, count);
  if (!ordered) {
    const order = side.side === 'bid' ? 'descending' : 'ascending';
    throw new ReplicaIntegrityError(`book ${where} are not strictly best first (${order} prices, no repeats)`);
  }
  if (count > 0 && count >= depthLimit) side.setBoundary(BigInt(levels[count - 1]!.price_ticks));
}

/** Number path: `pairs` holds (price, size) per level, best first. False when out of order. */
function loadNumbers(side: BookSide, pairs: Float64Array, count: number): boolean {
  let live = 0;
  for (let j = 0; j < count; j++) {
    if (j > 0 && side.keyOf(pairs[2 * j]!) >= side.keyOf(pairs[2 * j - 2]!)) return false;
    if (pairs[2 * j + 1] !== 0) live++;
  }
  // A quarter of slack: room for new levels without pushing bytes per level far past 16.
  const deep = side.deep;
  deep.reserve(live + (live >> 2));
  const keys = deep.keys;
  const sizes = deep.sizes;
  let w = live;
  for (let j = 0; j < count; j++) {
    const size = pairs[2 * j + 1]!;
    if (size === 0) continue;
    w--;
    keys[w] = side.keyOf(pairs[2 * j]!);
    sizes[w] = size;
  }
  deep.n = live;
  side.loaded(false);
  return true;
}

/** Exact path: `pairs` holds price, size, price, size, ... best first. False when out of order. */
function loadBig(side: BookSide, pairs: readonly bigint[]): boolean {
  const count = pairs.length >> 1;
  let live = 0;
  for (let j = 0; j < count; j++) {
    if (j > 0 && side.bigKeyOf(pairs[2 * j]!) >= side.bigKeyOf(pairs[2 * j - 2]!)) return false;
    if (pairs[2 * j + 1] !== 0n) live++;
  }
  const exact = new SortedBigLevels(live + (live >> 2));
  for (let j = count - 1; j >= 0; j--) {
    if (pairs[2 * j + 1] !== 0n) exact.pushTop(side.bigKeyOf(pairs[2 * j]!), pairs[2 * j + 1]!);
  }
  side.exact = exact;
  side.loaded(true);
  return true;
}
