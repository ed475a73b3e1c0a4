import { loadExchangeSnapshot } from '../../src/client/exchangeSnapshot';
import type { LoadedSnapshot } from '../../src/replicas/SnapshotFetcher';
import { SnapshotError } from '../../src/replicas/SnapshotError';
import { loadAllPages, loadSinglePage } from '../../src/client/snapshotLoaders';
import type { Order } from '../../src/protocol';
import { stateReducer } from '../../src/replicas/channelReducers';
import type { Reducer } from '../../src/replicas/Reducer';
import type { KeyedSet } from '../../src/replicas/reducers';
import { address, FakeFetcher, order } from './fixtures';

const scope = { address: address(1), subaccount_id: 0 };
const signal = new AbortController().signal;
/** The reducer of `orders` as the replicas choose it (through the channels table), its snapshot typed. */
const ordersReducer = stateReducer('orders') as Reducer<KeyedSet<string, Order>, unknown, readonly Order[]>;

describe('snapshot loaders', () => {
  it('one page: data, sequence and server time', async () => {
    const f = new FakeFetcher();
    f.auto = () => ({ data: { bid: null, ask: null }, sequence: '42', timestamp_ns: '9' });
    const s = await loadSinglePage({ channel: 'bbo', scope: { market_id: 1, is_perps: false }, fetch: f.fetch, signal });
    expect(s).toEqual({ data: { bid: null, ask: null }, sequence: 42n, timestampNs: 9n });
    expect(f.calls[0]!.params).toEqual({ market_type: 'spot', market_id: 1 });
  });

  it('rejects an answer without sequence', async () => {
    const f = new FakeFetcher();
    f.auto = () => ({ data: {} });
    await expect(loadSinglePage({ channel: 'bbo', scope: { market_id: 1, is_perps: true }, fetch: f.fetch, signal })).rejects.toBeInstanceOf(SnapshotError);
  });

  it('orders: every page of status=active is one snapshot (the exchange source pages, from the channels table)', async () => {
    const f = new FakeFetcher();
    const pages: Record<string, { data: unknown[]; next_cursor: string | null }> = {
      first: { data: [order(1), order(2)], next_cursor: 'c1' },
      c1: { data: [order(3)], next_cursor: 'c2' },
      c2: { data: [order(4)], next_cursor: null },
    };
    f.auto = (_op, params) => ({ ...pages[String(params.cursor ?? 'first')]!, sequence: '17' });
    const s = (await loadExchangeSnapshot({ channel: 'orders', scope, signal }, f.fetch)) as LoadedSnapshot<readonly Order[]>;
    expect(s.sequence).toBe(17n);
    expect(s.data.map((o) => o.client_order_id)).toEqual(['1', '2', '3', '4']);
    expect(f.calls.map((c) => c.params.cursor)).toEqual([undefined, 'c1', 'c2']);
    expect(f.calls[0]!.params).toMatchObject({ status: 'active', limit: 100 });
    const state = ordersReducer.fromSnapshot(s.data, scope);
    expect(state.size).toBe(4);
  });

  it('orders: pages carrying different sequences are not one snapshot', async () => {
    const f = new FakeFetcher();
    f.auto = (_op, params) => (params.cursor ? { data: [order(2)], sequence: '18', next_cursor: null } : { data: [order(1)], sequence: '17', next_cursor: 'c' });
    await expect(loadAllPages({ channel: 'orders', scope, fetch: f.fetch, signal })).rejects.toThrow(/carries sequence 18, the first page 17/);
  });

  it('stops after maxPages', async () => {
    const f = new FakeFetcher();
    f.auto = (_op, params) => ({ data: [], sequence: '1', next_cursor: `c${Number(String(params.cursor ?? 'c0').slice(1)) + 1}` });
    await expect(loadAllPages({ channel: 'orders', scope, fetch: f.fetch, signal }, 5)).rejects.toThrow(/more than 5 pages/);
    expect(f.calls).toHaveLength(5);
  });
});
