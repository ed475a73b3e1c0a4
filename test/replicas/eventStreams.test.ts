/**
 * Event streams: exactly once, in sequence order, history paged back after a resync, one
 * gap marker where the history does not reach, nothing re-delivered.
 */
import fc from 'fast-check';
import type { ParamValues, Trade } from '../../src/protocol';
import { createEventReplica } from '../../src/replicas/createReplica';
import type { EventItem } from '../../src/replicas/EventItem';
import type { EventReplica } from '../../src/replicas/EventReplica';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { FakeFetcher, FakeStream, fakeSource, fundingRate, settle, trade, waitFor } from './fixtures';
import { fastRetry } from './SyncHarness';
import { propertyRuns } from '../helpers/propertyRuns';

/** The exchange side of a trades stream: its records, what REST still holds, its stream seq. */
class TradesServer {
  records: number[] = [];
  retainFrom = 1;
  streamSeq = 0;
  pageSize = 10;
  pagesServed = 0;

  addTrades(n: number): number[] {
    const start = (this.records[this.records.length - 1] ?? 0) + 1;
    const added = Array.from({ length: n }, (_, i) => start + i);
    this.records.push(...added);
    return added;
  }

  /** `/v1/trades`, newest first, keyset cursor = sequence of the last row served. */
  page(params: ParamValues) {
    this.pagesServed++;
    const below = params.cursor === undefined ? Infinity : Number(params.cursor);
    const rows = this.records.filter((s) => s >= this.retainFrom && s < below).reverse().slice(0, this.pageSize);
    const last = rows[rows.length - 1];
    const more = last !== undefined && this.records.some((s) => s >= this.retainFrom && s < last);
    return { data: rows.map(trade), sequence: String(this.streamSeq), next_cursor: more ? String(last) : null };
  }
}

function setup(options: { maxHistoryPages?: number } = {}) {
  const server = new TradesServer();
  const stream = new FakeStream();
  const fetcher = new FakeFetcher();
  fetcher.auto = (_op, params) => server.page(params);
  const scheduler = new ResyncScheduler({ retry: fastRetry });
  const replica: EventReplica<Trade> = createEventReplica('trades', { market_id: 0, is_perps: false }, { source: fakeSource(stream, fetcher), scheduler }, { retryAfterMs: 1, ...options });
  const items: EventItem<Trade>[] = [];
  replica.events$.subscribe((i) => items.push(i));
  replica.start();
  /** The server publishes `n` new trades as one update (delivered or not). */
  const publish = (n: number, deliver = true) => {
    const added = server.addTrades(n);
    server.streamSeq++;
    if (deliver) stream.update(server.streamSeq, { trades: added.map(trade) });
  };
  const snapshots = (id: number) => waitFor(replica.states$, (e) => e.status === 'live' && e.snapshotId === id);
  const close = () => {
    replica.close();
    scheduler.close();
  };
  return { server, stream, fetcher, replica, items, publish, snapshots, close };
}

const seqs = (items: EventItem<Trade>[]) => items.map((i) => (i.kind === 'record' ? Number(i.sequence) : `gap ${i.fromSequence}-${i.toSequence} ${i.reason}`));
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe('event streams', () => {
  let t: ReturnType<typeof setup>;
  afterEach(() => t.close());

  it('first sync delivers the newest page in order, then each new record once', async () => {
    t = setup();
    t.server.addTrades(30);
    t.server.streamSeq = 5;
    t.stream.subscribed();
    const first = await t.snapshots(1);
    expect(seqs(t.items)).toEqual(range(21, 30));
    expect(first.state.lastSequence).toBe(30n);
    expect(first.state.recent.map((r) => Number(r.sequence))).toEqual(range(21, 30));
    expect(first.state).not.toHaveProperty('delivered');
    t.publish(1);
    t.stream.update(7, { trades: [trade(31), trade(32)] }); // 31 again, 32 new
    t.server.addTrades(1);
    t.server.streamSeq = 7;
    expect(seqs(t.items)).toEqual(range(21, 32));
    expect(t.fetcher.calls).toHaveLength(1);
  });

  it('after a resync pages back to the last delivered record and delivers the rest exactly once', async () => {
    t = setup();
    t.server.addTrades(30);
    t.stream.subscribed();
    await t.snapshots(1);
    t.publish(1);
    for (let i = 0; i < 6; i++) t.publish(4, false); // 32..55 never arrive
    t.stream.resyncRequired('lag');
    t.publish(1); // 56 arrives, buffered
    await t.snapshots(2);
    expect(seqs(t.items)).toEqual(range(21, 56));
    // Fetched at resync_required, before 56: 55..46, 45..36, 35..26 (has <= 31): three pages; 56 from the buffer.
    expect(t.fetcher.calls.slice(1).map((c) => c.params.cursor)).toEqual([undefined, '46', '36']);
  });

  it('emits one gap marker when paging is bounded before reaching the last delivered record', async () => {
    t = setup({ maxHistoryPages: 2 });
    t.server.addTrades(30);
    t.stream.subscribed();
    await t.snapshots(1);
    for (let i = 0; i < 5; i++) t.publish(5, false); // 31..55
    t.stream.disconnected('reset');
    t.stream.subscribed();
    await t.snapshots(2);
    expect(seqs(t.items)).toEqual([...range(21, 30), 'gap 31-35 history', ...range(36, 55)]);
    expect(t.replica.resyncCounts.disconnected).toBe(1);
  });

  it('emits one gap marker where the history no longer reaches (pruned)', async () => {
    t = setup();
    t.server.addTrades(30);
    t.stream.subscribed();
    await t.snapshots(1);
    for (let i = 0; i < 5; i++) t.publish(5, false); // 31..55
    t.server.retainFrom = 40;
    t.stream.resyncRequired('gap');
    t.publish(1);
    await t.snapshots(2);
    expect(seqs(t.items)).toEqual([...range(21, 30), 'gap 31-39 history', ...range(40, 56)]);
  });

  it('no gap when the oldest record fetched follows the watermark directly', async () => {
    t = setup();
    t.server.addTrades(30);
    t.stream.subscribed();
    await t.snapshots(1);
    t.publish(10, false); // 31..40
    t.server.retainFrom = 31;
    t.stream.resyncRequired('gap');
    t.publish(1);
    await t.snapshots(2);
    expect(seqs(t.items)).toEqual(range(21, 41));
  });

  it('recent follows the stream position when the snapshot is older than what was delivered (a feed that replays after a reconnect)', async () => {
    t = setup();
    t.server.addTrades(30);
    t.server.streamSeq = 5;
    t.stream.subscribed();
    await t.snapshots(1);
    t.publish(1); // seq 6: trade 31, delivered
    t.stream.disconnected('reset');
    // REST still answers at seq 5 (trades up to 30); the feed replays seq 6, then seq 7 (trade 32).
    t.fetcher.auto = () => ({ data: range(21, 30).reverse().map(trade), sequence: '5', next_cursor: '21' });
    t.stream.subscribed();
    t.stream.update(6, { trades: [trade(31)] });
    t.publish(1);
    const second = await t.snapshots(2);
    expect(second.seq).toBe(7n);
    expect(second.state.recent.map((r) => Number(r.sequence))).toEqual(range(21, 32));
    expect(second.state.lastSequence).toBe(32n);
    expect(seqs(t.items)).toEqual(range(21, 32));
  });

  it('exactly once, in order, with full history: never a gap, never a repeat (property)', async () => {
    type Op = { kind: 'publish'; n: number; deliver: boolean } | { kind: 'resync' } | { kind: 'reconnect' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('publish' as const), n: fc.integer({ min: 0, max: 7 }), deliver: fc.boolean() }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'resync' } as const) },
      { weight: 1, arbitrary: fc.constant({ kind: 'reconnect' } as const) },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 25 }), fc.array(op, { maxLength: 25 }), async (initial, ops) => {
        const s = setup({ maxHistoryPages: 1000 });
        try {
          s.server.pageSize = 4;
          s.server.addTrades(initial);
          s.stream.subscribed();
          await settle(40);
          for (const o of ops) {
            if (o.kind === 'publish') s.publish(o.n, o.deliver);
            else if (o.kind === 'resync') s.stream.resyncRequired('gap');
            else {
              s.stream.disconnected('x');
              s.stream.subscribed();
            }
            await settle(40);
          }
          // Converge: one more update forces a resync if anything was missed silently.
          s.publish(1);
          const total = s.server.records.length;
          await waitFor(s.replica.states$, (e) => e.status === 'live' && e.state.lastSequence === BigInt(total));
          const delivered = seqs(s.items);
          expect(delivered.every((x) => typeof x === 'number')).toBe(true);
          // The first sync delivers the newest page (4 records) of what existed at subscribe time.
          expect(delivered).toEqual(range(initial > 0 ? Math.max(1, initial - 3) : 1, total));
        } finally {
          s.close();
        }
      }),
      { numRuns: propertyRuns(20), seed: 7 },
    );
  });

  it('with bounded or pruned history: each sequence is delivered once or named by one gap (property)', async () => {
    type Op = { kind: 'publish'; n: number; deliver: boolean } | { kind: 'resync' } | { kind: 'prune'; keep: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('publish' as const), n: fc.integer({ min: 0, max: 9 }), deliver: fc.boolean() }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'resync' } as const) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('prune' as const), keep: fc.integer({ min: 0, max: 6 }) }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 12 }), fc.array(op, { maxLength: 25 }), async (maxHistoryPages, initial, ops) => {
        const s = setup({ maxHistoryPages });
        try {
          s.server.pageSize = 3;
          s.server.addTrades(initial);
          s.stream.subscribed();
          await settle(40);
          for (const o of ops) {
            if (o.kind === 'publish') s.publish(o.n, o.deliver);
            else if (o.kind === 'resync') s.stream.resyncRequired('lag');
            else s.server.retainFrom = Math.max(s.server.retainFrom, s.server.records.length - o.keep + 1);
            await settle(40);
          }
          s.publish(1);
          const total = s.server.records.length;
          await waitFor(s.replica.states$, (e) => e.status === 'live' && e.state.lastSequence === BigInt(total));
          // Walk the items: strictly increasing, contiguous coverage up to the last record.
          let covered: bigint | undefined;
          for (const item of s.items) {
            const [from, to] = item.kind === 'record' ? [item.sequence, item.sequence] : [item.fromSequence, item.toSequence];
            expect(from <= to).toBe(true);
            if (covered !== undefined) expect(from).toBe(covered + 1n);
            covered = to;
          }
          expect(covered).toBe(BigInt(total));
        } finally {
          s.close();
        }
      }),
      { numRuns: propertyRuns(20), seed: 11 },
    );
  });

  it('fundingRates: one record per update', async () => {
    const stream = new FakeStream();
    const fetcher = new FakeFetcher();
    fetcher.auto = () => ({ data: [fundingRate(2), fundingRate(1)], sequence: '3', next_cursor: null });
    const scheduler = new ResyncScheduler();
    const replica = createEventReplica('fundingRates', { market_id: 0 }, { source: fakeSource(stream, fetcher), scheduler });
    const got: bigint[] = [];
    replica.events$.subscribe((i) => i.kind === 'record' && got.push(i.sequence));
    replica.start();
    stream.subscribed();
    await waitFor(replica.states$, (e) => e.status === 'live');
    expect(fetcher.calls[0]!.params).toMatchObject({ market_id: 0, limit: 100 });
    stream.update(4, fundingRate(3));
    expect(got).toEqual([1n, 2n, 3n]);
    replica.close();
    scheduler.close();
  });
});
