/** The `book` channel through StreamSync: the book reducer consumed through the Reducer contract. */
import { createStateReplica } from '../../src/replicas/createReplica';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { FakeFetcher, FakeStream, fakeSource, settle, waitFor } from './fixtures';
import { fastRetry } from './SyncHarness';

const lvl = (p: number, s: number) => ({ price_ticks: String(p), size_base_lots: String(s) });

function setup() {
  const stream = new FakeStream();
  const fetcher = new FakeFetcher();
  const scheduler = new ResyncScheduler({ retry: fastRetry });
  const book = createStateReplica('book', { market_id: 3, is_perps: true }, { source: fakeSource(stream, fetcher), scheduler }).start();
  return { stream, fetcher, book, close: () => (book.close(), scheduler.close()) };
}

describe('book replica', () => {
  it('syncs from /v1/orderBook depth 500, folds updates, resyncs into a NEW book on a crossed update', async () => {
    const t = setup();
    try {
      t.stream.subscribed();
      const call = await t.fetcher.nextCall();
      expect(call.operation).toBe('orderBook');
      expect(call.params).toEqual({ market_type: 'perp', market_id: 3, depth: 500 });
      t.stream.update(8, { bids: [lvl(99, 4)], asks: [] });
      call.resolve({ data: { bids: [lvl(99, 1), lvl(98, 2)], asks: [lvl(101, 3)] }, sequence: '7' });
      const first = await waitFor(t.book.states$, (e) => e.status === 'live');
      expect(first.state.top(5)).toEqual({ bids: [lvl(99, 4), lvl(98, 2)], asks: [lvl(101, 3)] });
      t.stream.update(9, { bids: [], asks: [lvl(101, 0), lvl(102, 5)] });
      expect(t.book.latest!.state.top(1).asks).toEqual([lvl(102, 5)]);
      const shown = t.book.latest!.state;
      t.stream.update(10, { bids: [lvl(103, 1)], asks: [] }); // crosses the book
      expect(t.book.status).toBe('resyncing');
      expect(t.book.resyncCounts.integrity).toBe(1);
      (await t.fetcher.nextCall()).resolve({ data: { bids: [lvl(97, 1)], asks: [lvl(100, 1)] }, sequence: '10' });
      const second = await waitFor(t.book.states$, (e) => e.snapshotId === 2);
      expect(second.state).not.toBe(shown);
      expect(second.state.top(5)).toEqual({ bids: [lvl(97, 1)], asks: [lvl(100, 1)] });
    } finally {
      t.close();
    }
  });

  it('has a 30 s liveness window by default', async () => {
    jest.useFakeTimers();
    const t = setup();
    try {
      t.stream.subscribed();
      (await t.fetcher.nextCall()).resolve({ data: { bids: [], asks: [] }, sequence: '1' });
      await settle();
      expect(t.book.status).toBe('live');
      jest.advanceTimersByTime(29_999);
      expect(t.book.status).toBe('live');
      jest.advanceTimersByTime(1);
      expect(t.book.resyncCounts.liveness).toBe(1);
    } finally {
      t.close();
      jest.useRealTimers();
    }
  });
});
