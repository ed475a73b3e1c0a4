/**
 * The order-book replica against the real simulator: after every kind of fault, once the
 * engine is paused and the replica is live at the truth's sequence, it equals the truth.
 */
import { streamKey } from '../../src/protocol';
import { expectBookEqualToTruth, startPair, waitFor, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

const MARKET = { market_type: 'perp', market_id: 0 } as const;
const KEY = streamKey('book', { market_id: 0, is_perps: true });

const expectEqualToTruth = (pair: Pair, label: string) => expectBookEqualToTruth(pair, MARKET, label);

describe('order book replica vs simulator truth', () => {
  let pair: Pair;
  beforeEach(async () => {
    pair = await startPair({ eventsPerSecond: 400 }, { replica: { livenessMs: 1500 } });
  });
  afterEach(async () => {
    await pair.close();
  });

  it('bootstraps from the snapshot and follows updates exactly', async () => {
    const sub = pair.client.orderBook(MARKET).subscribe();
    await waitFor(pair.client.orderBook(MARKET), (s) => s.status === 'live', 'live');
    await waitFor(pair.client.orderBook(MARKET), (s) => s.cause === 'update', 'an update');
    await expectEqualToTruth(pair, 'steady');
    sub.unsubscribe();
  });

  it('heals after each kind of fault and ends equal to the truth', async () => {
    const sub = pair.client.orderBook(MARKET).subscribe();
    await waitFor(pair.client.orderBook(MARKET), (s) => s.status === 'live', 'live');
    const f = pair.sim.faults;

    f.resyncStream(KEY, 3);
    await waitFor(pair.client.orderBook(MARKET), (s) => s.snapshotId >= 2 && s.status === 'live', 'resync after resync_required');
    await expectEqualToTruth(pair, 'resync_required');

    f.skipSilently(KEY, 2);
    await waitFor(pair.client.orderBook(MARKET), (s) => s.snapshotId >= 3 && s.status === 'live', 'resync after a silent seq jump');
    await expectEqualToTruth(pair, 'seq jump');

    f.dropAll();
    await waitFor(pair.client.orderBook(MARKET), (s) => s.snapshotId >= 4 && s.status === 'live', 'resync after a socket drop');
    await expectEqualToTruth(pair, 'socket drop');

    f.stallStream(KEY, 4000);
    await waitFor(pair.client.orderBook(MARKET), (s) => s.snapshotId >= 5 && s.status === 'live', 'resync after a stalled stream', WAIT_MS);
    await expectEqualToTruth(pair, 'stalled stream');

    const counts = pair.client.resyncCounts();
    expect(counts.resync_required).toBeGreaterThanOrEqual(1);
    expect(counts.seq_jump).toBeGreaterThanOrEqual(1);
    expect(counts.liveness).toBeGreaterThanOrEqual(1);
    sub.unsubscribe();
  });

  it('shares one server subscription between identical subscribers and releases it', async () => {
    const a = pair.client.orderBook(MARKET).subscribe();
    const b = pair.client.orderBook(MARKET).subscribe();
    await waitFor(pair.client.orderBook(MARKET), (s) => s.status === 'live', 'live');
    expect(pair.client.activity().serverSubscriptions).toBe(1);
    expect(pair.client.activity().replicas).toBe(1);
    a.unsubscribe();
    expect(pair.client.activity().serverSubscriptions).toBe(1);
    b.unsubscribe();
    expect(pair.client.activity()).toEqual({ replicas: 0, serverSubscriptions: 0, pendingRequests: expect.any(Number) });
  });
});
