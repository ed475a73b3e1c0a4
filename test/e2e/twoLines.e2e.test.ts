/**
 * A/B line arbitration against the simulator over real sockets: a client with two lines
 * (two sockets, every stream subscribed on both). One line dropped, stalled, gapped (said
 * or silent) or delayed at a time leaves the book replica `live` and exact with no snapshot
 * fetched; both lines losing the same seq still resyncs and ends exact.
 */
import { streamKey } from '../../src/protocol';
import { expectBookEqualToTruth, startPair, waitFor, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

jest.setTimeout(120_000);

const MARKET = { market_type: 'perp', market_id: 0 } as const;
const KEY = streamKey('book', { market_id: 0, is_perps: true });

const expectEqualToTruth = (pair: Pair, label: string) => expectBookEqualToTruth(pair, MARKET, label);

/** The ids of the two connections subscribed to the book (the client's two lines). */
function lineIds(pair: Pair): number[] {
  return pair.sim.faults.connections().filter((c) => c.subscriptions.some((s) => s.key === KEY)).map((c) => c.id);
}

/** Waits until both lines carry the book again (after a drop, the line reconnects and resubscribes). */
async function bothLinesUp(pair: Pair): Promise<number[]> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const ids = lineIds(pair);
    if (ids.length === 2) return ids;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the two lines did not both carry the book within ${WAIT_MS} ms`);
}

/** Updates passed to the replica since `from` (waits for some to flow). */
async function someUpdates(pair: Pair, n: number): Promise<void> {
  let seen = 0;
  await waitFor(pair.client.orderBook(MARKET), (s) => s.cause === 'update' && ++seen >= n, `${n} updates`);
}

describe('two lines: one line faulted at a time costs no snapshot', () => {
  let pair: Pair;
  afterEach(async () => pair?.close());

  it('drop, stall, gap (said and silent) and jitter on one line: live and exact throughout, no resync', async () => {
    pair = await startPair({ eventsPerSecond: 300 }, { lines: 2, arbitration: { gapWindowMs: 3_000 } });
    const statuses: string[] = [];
    const sub = pair.client.orderBook(MARKET).subscribe((s) => statuses.push(s.status));
    const first = await waitFor(pair.client.orderBook(MARKET), (s) => s.status === 'live', 'live');
    const snapshotId = first.snapshotId;
    let [a, b] = await bothLinesUp(pair);
    const f = pair.sim.faults;
    const fromLive = statuses.lastIndexOf('live') === -1 ? 0 : statuses.indexOf('live');

    expect(f.dropConnection(a!)).toBe(true);
    await someUpdates(pair, 20);
    [a, b] = await bothLinesUp(pair);

    f.stallConnection(1_500, b!);
    await someUpdates(pair, 50);

    expect(f.resyncStream(KEY, 3, a!)).toBe(true);
    await someUpdates(pair, 20);
    expect(f.skipSilently(KEY, 2, b!)).toBe(true);
    await someUpdates(pair, 20);

    f.delayConnection(a!, { ms: 5, jitterMs: 30 });
    await someUpdates(pair, 50);
    f.delayConnection(a!, { ms: 0, jitterMs: 0 });

    const end = await expectEqualToTruth(pair, 'after one-line faults');
    expect(end.snapshotId).toBe(snapshotId);
    expect(statuses.slice(fromLive).every((s) => s === 'live')).toBe(true);
    const stats = pair.client.lineStats();
    expect(stats.lines).toHaveLength(2);
    expect(stats.lines[0]!.won + stats.lines[1]!.won).toBeGreaterThan(0);
    expect(stats.resyncsAvoided).toBeGreaterThan(0);
    expect(stats.streams.find((x) => x.key === KEY)?.resyncsAvoided).toBe(stats.resyncsAvoided);
    expect(pair.client.resyncCounts().seq_jump + pair.client.resyncCounts().resync_required).toBe(0);
    sub.unsubscribe();
  });

  it('both lines losing the same seq still resyncs, and ends exact', async () => {
    pair = await startPair({ eventsPerSecond: 300 }, { lines: 2, arbitration: { gapWindowMs: 200 } });
    const sub = pair.client.orderBook(MARKET).subscribe();
    const first = await waitFor(pair.client.orderBook(MARKET), (s) => s.status === 'live', 'live');
    await bothLinesUp(pair);
    pair.sim.faults.resyncStream(KEY, 2); // every connection
    await waitFor(pair.client.orderBook(MARKET), (s) => s.status === 'live' && s.snapshotId > first.snapshotId, 'a resync');
    await expectEqualToTruth(pair, 'after both lines lost the same seqs');
    sub.unsubscribe();
  });
});
