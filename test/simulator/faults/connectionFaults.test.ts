/**
 * Faults aimed at ONE connection (A/B lines): two raw WebSocket clients on 127.0.0.1
 * subscribed to the same stream; one is faulted by id, the other gets every seq.
 */
import { streamKey } from '../../../src/protocol';
import { FaultInjector } from '../../../src/simulator/faults/FaultInjector';
import { RestFaults } from '../../../src/simulator/faults/RestFaults';
import { FrameDelay, NO_FRAME_DELAY, type FrameDelaySpec } from '../../../src/simulator/feed/FrameDelay';
import { SimulatorOptionError } from '../../../src/simulator/SimulatorOptionError';
import { ManualClock } from '../../helpers/ManualClock';
import { BOOK0, startFeed, type FeedHarness, type Frame, type TestClient } from '../feed/feedHarness';
import { WAIT_MS } from '../../helpers/deadlines';

const BOOK = streamKey('book', BOOK0);
const bookData = (i: number) => ({ bids: [{ price_ticks: String(i), size_base_lots: '1' }], asks: [] });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/** Waits (polling, generous deadline) until `pred` holds: for server-side state that no frame announces. */
async function until(pred: () => boolean, deadlineMs = WAIT_MS): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!pred()) {
    if (performance.now() > end) throw new Error('condition not reached before the deadline');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('FaultInjector: faults of one connection', () => {
  let h: FeedHarness;
  let faults: FaultInjector;
  let a: TestClient;
  let b: TestClient;
  let sa: string;
  let sb: string;
  let ida: number;
  let idb: number;

  /** Two clients subscribed to BOOK; ids found through the subscription each got. */
  const openLines = async () => {
    a = await h.connect();
    b = await h.connect();
    sa = await a.subscribe('book', BOOK0);
    sb = await b.subscribe('book', BOOK0);
    const idOf = (sub: string) => faults.connections().find((c) => c.subscriptions.some((s) => s.id === sub))!.id;
    ida = idOf(sa);
    idb = idOf(sb);
  };
  const publishBook = (from: number, to: number) => {
    for (let i = from; i <= to; i++) h.hub.publish('book', BOOK0, bookData(i));
  };
  const streamFrames = (c: TestClient, sub: string) => c.frames.filter((f) => f.subscription_id === sub && (f.type === 'update' || f.type === 'resync_required'));
  const seqsOf = (c: TestClient, sub: string) => streamFrames(c, sub).map((f) => (f.type === 'update' ? (f.seq as string) : `resync:${f.reason as string}`));
  /** Every update the faulted line got is the healthy line's update of the same seq, same data. */
  const expectSameUpdates = (faulted: Frame[], healthy: Frame[]) => {
    const bySeq = new Map(healthy.map((f) => [f.seq as string, f.data as unknown]));
    for (const f of faulted) expect(f.data).toEqual(bySeq.get(f.seq as string));
  };

  describe('skips', () => {
    beforeEach(async () => {
      h = await startFeed();
      faults = new FaultInjector(h.feed, new RestFaults(1));
      await openLines();
    });
    afterEach(async () => {
      faults.stop();
      await h.close();
    });

    it('skipSilently with an id: that line sees a seq jump, the other gets every seq with the same data', async () => {
      publishBook(1, 2);
      expect(faults.skipSilently(BOOK, 3, ida)).toBe(true);
      publishBook(3, 10);
      await Promise.all([a.roundTrip(), b.roundTrip()]);
      expect(seqsOf(b, sb)).toEqual(range(1, 10));
      expect(seqsOf(a, sa)).toEqual(['1', '2', '6', '7', '8', '9', '10']);
      expectSameUpdates(a.updates(sa), b.updates(sb));
      expect(b.updates(sb).map((f) => f.data)).toEqual(range(1, 10).map((i) => bookData(Number(i))));
      expect(faults.stats().byKind.skipSilently).toBe(1);
      expect([...a.invalid, ...b.invalid]).toEqual([]);
    });

    it('resyncStream with an id: that line misses the updates then gets resync_required (gap) before the next; the other is untouched', async () => {
      publishBook(1, 1);
      expect(faults.resyncStream(BOOK, 2, idb)).toBe(true);
      publishBook(2, 6);
      await Promise.all([a.roundTrip(), b.roundTrip()]);
      expect(seqsOf(a, sa)).toEqual(range(1, 6));
      expect(seqsOf(b, sb)).toEqual(['1', 'resync:gap', '4', '5', '6']);
      expect(b.frames.find((f) => f.type === 'resync_required')).toEqual({ type: 'resync_required', subscription_id: sb, channel: 'book', reason: 'gap' });
      expect(a.frames.filter((f) => f.type === 'resync_required')).toEqual([]);
      expectSameUpdates(b.updates(sb), a.updates(sa));
    });

    it('faults both lines independently, each missing different seqs (the arbiter\'s case: the union is complete)', async () => {
      faults.skipSilently(BOOK, 2, ida);
      publishBook(1, 3);
      faults.resyncStream(BOOK, 1, idb);
      publishBook(4, 6);
      await Promise.all([a.roundTrip(), b.roundTrip()]);
      expect(seqsOf(a, sa)).toEqual(['3', '4', '5', '6']);
      expect(seqsOf(b, sb)).toEqual(['1', '2', '3', 'resync:gap', '5', '6']);
      const union = new Set([...a.updates(sa), ...b.updates(sb)].map((f) => f.seq as string));
      expect([...union].sort((x, y) => Number(x) - Number(y))).toEqual(range(1, 6));
      // The hub published bookData(i) as seq i: each line got each of its seqs with that data.
      for (const f of [...a.updates(sa), ...b.updates(sb)]) expect(f.data).toEqual(bookData(Number(f.seq)));
    });

    it('a stream-wide skip pending is consumed first, then the per-connection one', async () => {
      faults.skipSilently(BOOK, 1);
      faults.skipSilently(BOOK, 1, ida);
      publishBook(1, 4);
      await Promise.all([a.roundTrip(), b.roundTrip()]);
      expect(seqsOf(b, sb)).toEqual(['2', '3', '4']);
      expect(seqsOf(a, sa)).toEqual(['3', '4']);
    });

    it('all subscriptions of the faulted connection to the stream miss the same updates; other streams flow', async () => {
      const sa2 = await a.subscribe('book', BOOK0);
      const bbo = await a.subscribe('bbo', BOOK0);
      faults.skipSilently(BOOK, 2, ida);
      publishBook(1, 3);
      h.hub.publish('bbo', BOOK0, { bid: null, ask: null });
      await Promise.all([a.roundTrip(), b.roundTrip()]);
      expect(seqsOf(a, sa)).toEqual(['3']);
      expect(seqsOf(a, sa2)).toEqual(['3']);
      expect(seqsOf(b, sb)).toEqual(range(1, 3));
      expect(a.updates(bbo)).toHaveLength(1);
    });

    it('arms nothing and returns false for a connection that is not open or not subscribed to the stream', async () => {
      const c = await h.connect();
      await c.roundTrip();
      const idc = faults.connectionIds().find((id) => id !== ida && id !== idb)!;
      expect(faults.skipSilently(BOOK, 1, idc)).toBe(false);
      expect(faults.resyncStream(BOOK, 1, 9999)).toBe(false);
      expect(faults.skipSilently(streamKey('book', { market_id: 2, is_perps: true }), 1, ida)).toBe(false);
      expect(h.feed.streamFaults.pending().connectionSkips).toEqual([]);
      expect(faults.stats()).toMatchObject({ total: 0, skipped: 3 });
      publishBook(1, 2);
      await Promise.all([a.roundTrip(), b.roundTrip()]);
      expect(seqsOf(a, sa)).toEqual(['1', '2']);
    });

    it('forgets the pending skips of a connection that closed, and clear() forgets them all', async () => {
      faults.skipSilently(BOOK, 5, ida);
      faults.resyncStream(BOOK, 5, idb);
      expect(h.feed.streamFaults.pending().connectionSkips).toEqual([
        { key: BOOK, connectionId: ida, resync: 0, silent: 5 },
        { key: BOOK, connectionId: idb, resync: 5, silent: 0 },
      ]);
      expect(faults.dropConnection(ida)).toBe(true);
      await a.closed;
      await until(() => !faults.connectionIds().includes(ida));
      expect(h.feed.streamFaults.pending().connectionSkips).toEqual([{ key: BOOK, connectionId: idb, resync: 5, silent: 0 }]);
      faults.clear();
      expect(h.feed.streamFaults.pending().connectionSkips).toEqual([]);
      publishBook(1, 2);
      await b.roundTrip();
      expect(seqsOf(b, sb)).toEqual(['1', '2']);
    });

    it('rejects out-of-range arguments with SimulatorOptionError', () => {
      expect(() => faults.skipSilently(BOOK, 0, ida)).toThrow(SimulatorOptionError);
      expect(() => faults.resyncStream(BOOK, 1, 1.5)).toThrow(/connectionId/);
      expect(() => faults.delayConnection(0, { ms: 1 })).toThrow(/connectionId/);
      expect(() => faults.delayConnection(ida, { ms: -1 })).toThrow(SimulatorOptionError);
      expect(() => faults.delayConnection(ida, { ms: 1, jitterMs: Number.NaN })).toThrow(/jitterMs/);
      expect(() => faults.delayFrames(1, { jitterMs: -2 })).toThrow(/jitterMs/);
    });
  });

  describe('delays with jitter (manual clock: update timestamps are send times)', () => {
    const SEED = 7;
    const WALL0 = 1_800_000_000_000_000_000n;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock(0, WALL0);
      h = await startFeed({ clock });
      // Before any connection opens: connections take the jitter seed when they open.
      faults = new FaultInjector(h.feed, new RestFaults(SEED));
      await openLines();
    });
    afterEach(async () => {
      faults.stop();
      await h.close();
    });

    /** Send times (ms after 0) the queue gives `n` frames queued at 0: its timers fire at whole ms, so a frame leaves at ceil(due). */
    const expectedSendMs = (connectionId: number, own: FrameDelaySpec, shared: FrameDelaySpec, n: number) => {
      const d = new FrameDelay(SEED, connectionId);
      d.own = own;
      return Array.from({ length: n }, () => Math.ceil(d.dueAt(0, shared)));
    };
    const sendMsOf = (updates: Frame[]) => updates.map((f) => Number((BigInt(f.timestamp_ns as string) - WALL0) / 1_000_000n));

    it('delayConnection delays one line\'s frames by ms + seeded jitter, in order; the other line is not delayed', async () => {
      const own = { ms: 10, jitterMs: 25 };
      expect(faults.delayConnection(ida, own)).toBe(true);
      expect(faults.connections().find((c) => c.id === ida)!.frameDelay).toEqual(own);
      publishBook(1, 30);
      await b.waitForCount((f) => f.type === 'update', 30);
      expect(sendMsOf(b.updates(sb))).toEqual(new Array<number>(30).fill(0));
      await clock.advance(200);
      const got = await a.waitForCount((f) => f.type === 'update', 30);
      expect(got.map((f) => f.seq)).toEqual(range(1, 30));
      const sent = sendMsOf(got);
      expect(sent).toEqual(expectedSendMs(ida, own, NO_FRAME_DELAY, 30));
      expect(Math.min(...sent)).toBeGreaterThanOrEqual(10);
      expect(new Set(sent).size).toBeGreaterThan(1);
      expectSameUpdates(got, b.updates(sb));
      expect(faults.stats().byKind.delayFrames).toBe(1);
    });

    it('delayFrames with jitter: every line draws its own jitter; a line\'s own delay adds to it', async () => {
      const shared = { ms: 2, jitterMs: 30 };
      const own = { ms: 5, jitterMs: 0 };
      faults.delayFrames(shared.ms, { jitterMs: shared.jitterMs });
      faults.delayConnection(idb, own);
      publishBook(1, 40);
      await clock.advance(200);
      const [ga, gb] = await Promise.all([a.waitForCount((f) => f.type === 'update', 40), b.waitForCount((f) => f.type === 'update', 40)]);
      expect(ga.map((f) => f.seq)).toEqual(range(1, 40));
      expect(gb.map((f) => f.seq)).toEqual(range(1, 40));
      expect(sendMsOf(ga)).toEqual(expectedSendMs(ida, NO_FRAME_DELAY, shared, 40));
      expect(sendMsOf(gb)).toEqual(expectedSendMs(idb, own, shared, 40));
      expect(sendMsOf(ga)).not.toEqual(sendMsOf(gb).map((ms) => ms - 5));
      expectSameUpdates(ga, gb);
    });

    it('the same seed gives the same send times; { ms: 0 } and clear() remove the delays', async () => {
      const own = { ms: 1, jitterMs: 50 };
      faults.delayConnection(ida, own);
      publishBook(1, 10);
      await clock.advance(100);
      const first = sendMsOf(await a.waitForCount((f) => f.type === 'update', 10));
      expect(first).toEqual(expectedSendMs(ida, own, NO_FRAME_DELAY, 10));

      expect(faults.delayConnection(ida, { ms: 0 })).toBe(true);
      expect(faults.connections().find((c) => c.id === ida)!.frameDelay).toEqual(NO_FRAME_DELAY);
      faults.delayFrames(0, { jitterMs: 20 });
      faults.clear();
      expect(h.feed.frameDelay).toEqual(NO_FRAME_DELAY);
      publishBook(11, 12);
      const now = await a.waitForCount((f) => f.type === 'update', 12);
      expect(sendMsOf(now.slice(10))).toEqual([100, 100]);
      expect(faults.delayConnection(9999, { ms: 5 })).toBe(false);
    });
  });
});
