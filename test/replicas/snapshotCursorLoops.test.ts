/**
 * The replicas' paged loads (loadAllPages for `orders`, loadEventHistory for event streams)
 * walk through the shared cursor loop: a cursor cycle fails after a few requests, a record
 * listed twice fails the snapshot, and listings past ~150k rows load (no spread push).
 */
import { CursorRepeatedError } from '../../src/errors';
import { loadEventHistory } from '../../src/client/eventHistory';
import { createEventReducer } from '../../src/replicas/eventReducer';
import { SnapshotError } from '../../src/replicas/SnapshotError';
import type { SnapshotPage } from '../../src/replicas/SnapshotFetcher';
import { loadAllPages } from '../../src/client/snapshotLoaders';
import type { Order, ParamValues, Trade } from '../../src/protocol';
import { address, FakeFetcher, order, trade } from './fixtures';

const signal = new AbortController().signal;
const account = { address: address(1), subaccount_id: 0 };
const market = { market_id: 0, is_perps: true };
const seqOf = (t: Trade) => BigInt(t.sequence);

/** A fetcher serving `pages[cursor ?? '']` (with `sequence`), counting requests. */
function serve(pages: Record<string, { data: unknown[]; next_cursor: string | null }>, sequence = '17'): FakeFetcher {
  const f = new FakeFetcher();
  f.auto = (_op, params: ParamValues): SnapshotPage => {
    const page = pages[String(params.cursor ?? '')];
    if (page === undefined) throw new Error(`no page for cursor ${String(params.cursor)}`);
    return { ...page, sequence, timestamp_ns: '5' };
  };
  return f;
}

const ordersRequest = (f: FakeFetcher) => ({ channel: 'orders' as const, scope: account, fetch: f.fetch, signal, previous: undefined });
const tradesRequest = (f: FakeFetcher) => ({ channel: 'trades' as const, scope: market, fetch: f.fetch, signal, previous: undefined });

describe('loadAllPages (orders snapshot)', () => {
  it('a 2-cycle of next_cursor fails with ERR_CURSOR_REPEATED after 3 requests, not 1000 pages of duplicates', async () => {
    const f = serve({ '': { data: [order(1)], next_cursor: 'a' }, a: { data: [order(2)], next_cursor: 'b' }, b: { data: [order(3)], next_cursor: 'a' } });
    const error = await loadAllPages(ordersRequest(f)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CursorRepeatedError);
    expect(error).toMatchObject({ code: 'ERR_CURSOR_REPEATED', context: { channel: 'orders', operation: 'orders' } });
    expect((error as Error).message).toMatch(/^the snapshot of orders\|address=\w+\|subaccount_id=0: page 3 answered next_cursor "a", the cursor already sent for page 2 \(a cycle of 2 pages\)/);
    expect(f.calls.map((c) => c.params.cursor)).toEqual([undefined, 'a', 'b']);
  });

  it('a self-cycle fails after 2 requests', async () => {
    const f = serve({ '': { data: [order(1)], next_cursor: 'a' }, a: { data: [order(2)], next_cursor: 'a' } });
    await expect(loadAllPages(ordersRequest(f))).rejects.toThrow(/the cursor this very page was fetched with/);
    expect(f.calls).toHaveLength(2);
  });

  it('an order listed again on a later page (fresh cursors) fails the snapshot, naming the order and both pages', async () => {
    const f = serve({ '': { data: [order(1), order(2)], next_cursor: 'a' }, a: { data: [order(3), order(1)], next_cursor: 'b' }, b: { data: [order(4)], next_cursor: null } });
    const error = await loadAllPages(ordersRequest(f)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect(error).toMatchObject({ code: 'ERR_SNAPSHOT_INVALID', context: { channel: 'orders' } });
    expect((error as Error).message).toBe(
      `page 2 of the snapshot of orders|address=${account.address}|subaccount_id=0 repeats the record with order_id ${order(1).order_id}, already listed on page 1: a listing must hold each record once`,
    );
  });

  it('an order listed twice on one page fails too', async () => {
    const f = serve({ '': { data: [order(1), order(1)], next_cursor: null } });
    await expect(loadAllPages(ordersRequest(f))).rejects.toThrow(/already listed earlier on the same page/);
  });

  it('a page of 200,000 orders loads (no RangeError from a spread push)', async () => {
    const many = (from: number, n: number): Order[] => Array.from({ length: n }, (_, i) => ({ ...order(1), order_id: `o${from + i}` }));
    const f = serve({ '': { data: many(0, 10), next_cursor: 'a' }, a: { data: many(10, 200_000), next_cursor: null } });
    const s = await loadAllPages(ordersRequest(f));
    expect(s.data).toHaveLength(200_010);
    expect(s.sequence).toBe(17n);
  });
});

describe('loadEventHistory (trades, fills, fundingRates)', () => {
  const since = (watermark: bigint | undefined) => ({ kind: 'since' as const, watermark });

  it('a 2-cycle of next_cursor fails with ERR_CURSOR_REPEATED after 3 requests', async () => {
    const f = serve({ '': { data: [trade(10)], next_cursor: 'a' }, a: { data: [trade(9)], next_cursor: 'b' }, b: { data: [trade(8)], next_cursor: 'a' } });
    const error = await loadEventHistory(tradesRequest(f), since(1n), seqOf, 50).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CursorRepeatedError);
    expect((error as Error).message).toMatch(/^the history of trades\|market_id=0\|is_perps=true: page 3 answered next_cursor "a"/);
    expect(f.calls).toHaveLength(3);
  });

  it('a trade listed again on an older page fails the resync', async () => {
    const f = serve({ '': { data: [trade(10), trade(9)], next_cursor: 'a' }, a: { data: [trade(9), trade(8)], next_cursor: 'b' }, b: { data: [trade(7)], next_cursor: null } });
    const error = await loadEventHistory(tradesRequest(f), since(1n), seqOf).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SnapshotError);
    expect((error as Error).message).toMatch(/^page 2 of the history of trades\|market_id=0\|is_perps=true repeats the record with sequence 9, already listed on page 1/);
  });

  it('early stop: stops at the page that reaches the watermark, even when a cycle would follow', async () => {
    const f = serve({ '': { data: [trade(10), trade(9)], next_cursor: 'a' }, a: { data: [trade(8), trade(7)], next_cursor: 'a' } });
    const s = await loadEventHistory(tradesRequest(f), since(7n), seqOf);
    expect(s.data.records.map((t) => t.sequence)).toEqual(['10', '9', '8', '7']);
    expect(s.data.exhausted).toBe(false);
    expect(s.sequence).toBe(17n);
    expect(f.calls).toHaveLength(2);
  });

  it('maxPages bounds the walk without error; exhausted only when the history ended', async () => {
    let n = 0;
    const f = new FakeFetcher();
    f.auto = () => ({ data: [trade(1000 - n)], next_cursor: `c${++n}`, sequence: '1' });
    const s = await loadEventHistory(tradesRequest(f), since(1n), seqOf, 4);
    expect(f.calls).toHaveLength(4);
    expect(s.data.records).toHaveLength(4);
    expect(s.data.exhausted).toBe(false);
  });

  it('200,000 records of history reach the delivered items (no RangeError from a spread push)', async () => {
    const rows = Array.from({ length: 199_999 }, (_, i) => trade(199_999 - i));
    const f = serve({ '': { data: [trade(200_000)], next_cursor: 'a' }, a: { data: rows, next_cursor: null } });
    const s = await loadEventHistory(tradesRequest(f), since(undefined), seqOf);
    expect(s.data.records).toHaveLength(200_000);
    const reducer = createEventReducer<Trade>({ channel: 'trades', recordsOf: (d) => (d as { trades: Trade[] }).trades, sequenceOf: seqOf });
    const state = reducer.fromSnapshot(s.data, market, { recent: [], lastSequence: undefined, delivered: [] });
    expect(state.delivered).toHaveLength(200_000);
    const next = reducer.apply(state, { trades: Array.from({ length: 200_000 }, (_, i) => trade(200_001 + i)) }, 1n);
    expect(next.delivered).toHaveLength(200_000);
    expect(state.delivered).toHaveLength(200_000); // the earlier state is left as it was
  });
});
