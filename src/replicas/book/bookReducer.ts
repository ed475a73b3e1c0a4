/**
 * The `book` channel reducer (streaming-protocol.md section 4): a snapshot
 * `/v1/orderBook?depth=500` builds an {@link OrderBook}; each update sets the new absolute
 * size of its changed levels (`"0"` removes one).
 *
 * The reducer MUTATES the book in place and returns the same object: consumers hold a live
 * view that changes under them with every update (read it synchronously, or copy with
 * `top(n)` / `toSnapshot()`). A resync never patches the old object: `fromSnapshot` builds a
 * NEW book, so no state ever mixes two snapshots; a consumer that kept the old object keeps
 * a book that no longer changes.
 */
import { CHANNELS, type OrderBook as OrderBookData, type Scope } from '../../protocol';
import type { Reducer } from '../Reducer';
import { OrderBook } from './OrderBook';

/** The `data` of a `book` update and of its REST snapshot: `{bids, asks}` wire levels. */
export type BookData = OrderBookData;

/**
 * The depth the channels table requests for a scope's snapshot (500): the 500-level rule's
 * limit comes from the one place that asks for it. A request without a depth limit covers
 * whole sides.
 */
function snapshotDepth(scope: Scope): number {
  const depth = Number(CHANNELS.book.snapshotParams(scope).depth);
  return Number.isInteger(depth) && depth > 0 ? depth : Infinity;
}

/**
 * Reducer for channel `book`.
 * @throws ReplicaIntegrityError from `fromSnapshot`/`apply` when the data is invalid or the
 *   result is crossed, locked or has lost its best price: the caller resyncs.
 */
export const bookReducer: Reducer<OrderBook, BookData, BookData> = {
  channel: 'book',
  fromSnapshot(snapshot: BookData, scope: Scope): OrderBook {
    return OrderBook.fromSnapshot(snapshot, { depthLimit: snapshotDepth(scope) });
  },
  apply(state: OrderBook, data: BookData, _seq: bigint): OrderBook {
    return state.applyLevels(data.bids, data.asks);
  },
};
