import { streamKey } from '../../../src/protocol';
import { FaultInjector } from '../../../src/simulator/faults/FaultInjector';
import { RestFaults } from '../../../src/simulator/faults/RestFaults';
import { SimulatorOptionError } from '../../../src/simulator/SimulatorOptionError';
import { BOOK0, startFeed, type FeedHarness, type TestClient } from '../feed/feedHarness';

const BOOK = streamKey('book', BOOK0);
const BBO0 = BOOK0;
const bookData = (i: number) => ({ bids: [{ price_ticks: String(i), size_base_lots: '1' }], asks: [] });
const bbo = { bid: null, ask: null };

describe('FaultInjector: feed faults', () => {
  let h: FeedHarness;
  let faults: FaultInjector;
  beforeEach(async () => {
    h = await startFeed();
    faults = new FaultInjector(h.feed, new RestFaults(1));
  });
  afterEach(async () => {
    faults.stop();
    await h.close();
  });

  const publishBook = (from: number, to: number) => {
    for (let i = from; i <= to; i++) h.hub.publish('book', BOOK0, bookData(i));
  };
  const streamFrames = (c: TestClient, sub: string) => c.frames.filter((f) => f.subscription_id === sub && (f.type === 'update' || f.type === 'resync_required'));

  it('dropAll drops every socket abruptly (close 1006, no frame)', async () => {
    const a = await h.connect();
    const b = await h.connect();
    expect(faults.dropAll()).toBe(2);
    expect((await a.closed).code).toBe(1006);
    expect((await b.closed).code).toBe(1006);
    expect(a.frames).toEqual([]);
    expect(faults.stats().byKind.dropAll).toBe(1);
  });

  it('dropConnection drops only the named connection, or the newest without an id', async () => {
    const a = await h.connect();
    const b = await h.connect();
    const c = await h.connect();
    const [ida, , idc] = faults.connections().map((x) => x.id);
    expect(faults.dropConnection(ida)).toBe(true);
    expect((await a.closed).code).toBe(1006);
    expect(faults.dropConnection()).toBe(true);
    expect((await c.closed).code).toBe(1006);
    await b.roundTrip();
    expect(faults.connectionIds()).not.toContain(idc);
    expect(faults.dropConnection(12345)).toBe(false);
    expect(faults.stats()).toMatchObject({ total: 2, skipped: 1 });
  });

  it('resyncStream skips the next update(s) and sends resync_required (gap) right before the next one, to every subscriber', async () => {
    const a = await h.connect();
    const b = await h.connect();
    const sa = await a.subscribe('book', BOOK0);
    const sb = await b.subscribe('book', BOOK0);
    const other = await a.subscribe('bbo', BBO0);
    publishBook(1, 2);
    faults.resyncStream(BOOK);
    publishBook(3, 3);
    h.hub.publish('bbo', BBO0, bbo);
    publishBook(4, 5);
    faults.resyncStream(BOOK, 2);
    publishBook(6, 8);
    await Promise.all([a.roundTrip(), b.roundTrip()]);
    for (const [c, s] of [[a, sa], [b, sb]] as const) {
      expect(streamFrames(c, s).map((f) => (f.type === 'update' ? f.seq : f.reason))).toEqual(['1', '2', 'gap', '4', '5', 'gap', '8']);
      expect(c.invalid).toEqual([]);
    }
    const resync = a.frames.find((f) => f.type === 'resync_required')!;
    expect(resync).toEqual({ type: 'resync_required', subscription_id: sa, channel: 'book', reason: 'gap' });
    expect(a.updates(other).map((f) => f.seq)).toEqual(['1']);
  });

  it('resyncStream marks only the subscriptions that missed an update', async () => {
    const a = await h.connect();
    const early = await a.subscribe('book', BOOK0);
    faults.resyncStream(BOOK);
    publishBook(1, 1);
    const late = await a.subscribe('book', BOOK0);
    publishBook(2, 2);
    await a.roundTrip();
    expect(streamFrames(a, early).map((f) => f.seq ?? f.reason)).toEqual(['gap', '2']);
    expect(streamFrames(a, late).map((f) => f.seq ?? f.reason)).toEqual(['2']);
  });

  it('skipSilently makes seq jump without any frame', async () => {
    const a = await h.connect();
    const s = await a.subscribe('book', BOOK0);
    publishBook(1, 1);
    faults.skipSilently(BOOK, 2);
    publishBook(2, 5);
    await a.roundTrip();
    expect(streamFrames(a, s).map((f) => f.seq ?? f.reason)).toEqual(['1', '4', '5']);
  });

  it('stallStream holds one stream while the others flow, then sends its frames in order', async () => {
    const a = await h.connect();
    const s = await a.subscribe('book', BOOK0);
    const o = await a.subscribe('bbo', BBO0);
    publishBook(1, 1);
    faults.stallStream(BOOK, 60_000);
    publishBook(2, 4);
    h.hub.publish('bbo', BBO0, bbo);
    await a.roundTrip();
    expect(a.updates(o)).toHaveLength(1);
    expect(a.updates(s).map((f) => f.seq)).toEqual(['1']);
    expect(faults.connections()[0]!.queuedBytes).toBeGreaterThan(0);
    faults.clear();
    const got = await a.waitForCount((f) => f.subscription_id === s && f.type === 'update', 4);
    expect(got.map((f) => f.seq)).toEqual(['1', '2', '3', '4']);
  });

  it('stallStream ends by itself after its duration', async () => {
    const a = await h.connect();
    const s = await a.subscribe('book', BOOK0);
    faults.stallStream(BOOK, 50);
    publishBook(1, 3);
    const got = await a.waitForCount((f) => f.subscription_id === s && f.type === 'update', 3);
    expect(got.map((f) => f.seq)).toEqual(['1', '2', '3']);
  });

  it('stallConnection stops all sending on that connection, pongs included, while the socket stays open', async () => {
    const a = await h.connect();
    const b = await h.connect();
    const sa = await a.subscribe('book', BOOK0);
    await b.subscribe('book', BOOK0);
    const [ida] = faults.connectionIds();
    faults.stallConnection(60_000, ida);
    publishBook(1, 2);
    a.send({ type: 'ping', request_id: 'stalled-ping' });
    a.send({ type: 'subscribe', request_id: 'stalled-sub', channel: 'bbo', ...BBO0 });
    await b.roundTrip();
    await b.waitForCount((f) => f.type === 'update', 2);
    await new Promise((r) => setImmediate(r));
    expect(a.frames.filter((f) => f.type !== 'subscribed' || f.request_id === 'stalled-sub')).toEqual([]);
    expect(faults.connections().find((c) => c.id === ida)!.stalled).toBe(true);
    faults.clear();
    await a.waitFor((f) => f.request_id === 'stalled-sub');
    expect(a.frames.slice(1).map((f) => f.type + (f.seq ?? ''))).toEqual(['update1', 'update2', 'pong', 'subscribed']);
    expect(a.updates(sa)).toHaveLength(2);
  });

  it('stallConnection without id stalls every connection and ends by itself', async () => {
    const a = await h.connect();
    const b = await h.connect();
    faults.stallConnection(50);
    expect(faults.connections().every((c) => c.stalled)).toBe(true);
    await Promise.all([a.roundTrip(), b.roundTrip()]);
  });

  it('delayFrames delays delivery by at least the delay and keeps the order', async () => {
    const a = await h.connect();
    const s = await a.subscribe('book', BOOK0);
    faults.delayFrames(80);
    const t0 = performance.now();
    publishBook(1, 50);
    faults.delayFrames(0);
    publishBook(51, 100);
    const first = await a.waitFor((f) => f.type === 'update');
    expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
    expect(first.seq).toBe('1');
    const all = await a.waitForCount((f) => f.type === 'update' && f.subscription_id === s, 100);
    expect(all.map((f) => Number(f.seq))).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('counts frames held by a delay toward the queue bound and drops the socket past it', async () => {
    await h.close();
    h = await startFeed({ maxQueueBytes: 16 * 1024 });
    faults = new FaultInjector(h.feed, new RestFaults(1));
    const a = await h.connect();
    await a.subscribe('book', BOOK0);
    faults.delayFrames(60_000);
    for (let i = 1; i <= 500 && faults.connections().length > 0; i++) publishBook(i, i);
    expect(faults.connections()[0]?.queuedBytes ?? 0).toBeLessThanOrEqual(16 * 1024);
    expect((await a.closed).code).toBe(1006);
    expect(a.frames.filter((f) => f.type === 'update')).toEqual([]);
  });

  it('feedUnavailable refuses new connections only, until turned off', async () => {
    const open = await h.connect();
    faults.feedUnavailable(true);
    const refused = await h.connect();
    expect((await refused.closed).code).toBe(1000);
    expect(refused.frames.map((f) => f.code)).toEqual(['FEED_UNAVAILABLE']);
    await open.roundTrip();
    faults.feedUnavailable(false);
    const again = await h.connect();
    await again.roundTrip();
  });

  it('rejects out-of-range arguments with SimulatorOptionError', () => {
    expect(() => faults.resyncStream(BOOK, 0)).toThrow(SimulatorOptionError);
    expect(() => faults.skipSilently(BOOK, 1.5)).toThrow(SimulatorOptionError);
    expect(() => faults.stallStream(BOOK, -1)).toThrow(SimulatorOptionError);
    expect(() => faults.delayFrames(Number.NaN)).toThrow(SimulatorOptionError);
    expect(() => faults.rest500Rate(1.5)).toThrow(/rate/);
    expect(() => faults.restLatencyMs(-5)).toThrow(SimulatorOptionError);
  });
});
