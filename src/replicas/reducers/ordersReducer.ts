/**
 * `orders`: the open set, upserted by `order_id`; status `filled` or `cancelled` removes an
 * order. The snapshot is every page of `/v1/orders?status=active` (one snapshot).
 */
import type { Order } from '../../protocol';
import type { Reducer } from '../Reducer';
import { loadAllPages } from '../snapshotLoaders';
import type { KeyedSet } from './KeyedSet';
import { createUpsertReducer } from './upsertReducer';

const base = createUpsertReducer<string, Order>({
  channel: 'orders',
  keyOf: (o) => o.order_id,
  recordsOf: (data) => (data as { orders: readonly Order[] }).orders,
  removes: (o) => o.status !== 'open',
});

/** Reducer of `orders`: state = open orders by `order_id` (a live view, see KeyedSet); the snapshot loads every page. */
export const ordersReducer: Reducer<KeyedSet<string, Order>, unknown, readonly Order[]> = {
  ...base,
  loadSnapshot: async (request) => {
    const loaded = await loadAllPages(request);
    return { ...loaded, data: loaded.data as Order[] };
  },
};
