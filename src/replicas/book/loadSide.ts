/**
 * Loading one side of the book from a REST snapshot (levels best first), including the
 * 500-level rule: a side that held at least `depthLimit` levels is truncated at its deepest
 * price (streaming-protocol.md section 5).
 */
import { ReplicaIntegrityError } from '../ReplicaIntegrityError';
import type { PriceLevel } from '../../protocol';
import type { BookSideStore } from './BookSide';
import { parseLevels } from './parseLevels';

/**
 * Fills `side` (empty) from a snapshot side. Zero-size levels are not stored but still
 * count toward the depth limit and the covered range.
 * @throws ReplicaIntegrityError for a value that is not a Uint64 string, or levels that are
 *   not strictly best first (bids descending, asks ascending, no repeated price).
 */
export function loadSide(side: BookSideStore, levels: readonly PriceLevel[], depthLimit: number): void {
  const count = levels.length;
  const where = `snapshot ${side.side}s`;
  const pairs = new Float64Array(2 * count);
  const bigPairs: bigint[] = [];
  const exact = parseLevels(false, levels, pairs, 0, bigPairs, where);
  const ordered = exact ? side.loadBig(bigPairs) : side.load(pairs, count);
  if (!ordered) {
    const order = side.side === 'bid' ? 'descending' : 'ascending';
    throw new ReplicaIntegrityError(`book ${where} are not strictly best first (${order} prices, no repeats)`);
  }
  if (count > 0 && count >= depthLimit) side.setBoundary(BigInt(levels[count - 1]!.price_ticks));
}
