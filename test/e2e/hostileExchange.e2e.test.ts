/**
 * The library's first promise against a misbehaving exchange: a replica is `live` only when
 * it is exact. The hostile exchange (a proxy in front of the simulator, which keeps the truth)
 * restarts numberings, lies about snapshot sequences, sends undecodable updates, storms
 * `resync_required` and withdraws its feed; every test ends comparing with the truth.
 */
import { Subscription } from 'rxjs';
import { ExchangeClient, type ExchangeReplicaError, type OrderBook, type PriceLevel, type ReplicaState } from '../../src';
import { Simulator } from '../../src/simulator';
import { HostileExchange } from '../helpers/HostileExchange';
import { truth, waitFor } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

const MARKET = { market_type: 'perp', market_id: 0 } as const;
const STREAM = 'book|0';

interface Rig {
  sim: Simulator;
  hostile: HostileExchange;
  client: ExchangeClient;
  errors: ExchangeReplicaError[];
  statuses: string[];
  sub: Subscription;
}

let rig: Rig | undefined;
afterEach(async () => {
  if (!rig) return;
  rig.sub.unsubscribe();
  await rig.client.close();
  await rig.hostile.close();
  await rig.sim.stop();
  rig = undefined;
});

async function start(replica: Record<string, number> = {}): Promise<Rig> {
  const sim = await Simulator.start({ seed: 3, eventsPerSecond: 300 });
  const hostile = await HostileExchange.start(sim);
  const client = new ExchangeClient({
    restUrl: hostile.restUrl,
    connection: { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } },
    rest: { retry: { initialDelayMs: 10, maxDelayMs: 100 } },
    resync: { retry: { initialDelayMs: 10, maxDelayMs: 100 } },
    replica: { livenessMs: 3000, ...replica },
  });
  const errors: ExchangeReplicaError[] = [];
  const statuses: string[] = [];
  client.errors$.subscribe((e) => errors.push(e));
  const sub = client.orderBook(MARKET).subscribe({
    next: (e) => {
      if (statuses[statuses.length - 1] !== e.status) statuses.push(e.status);
    },
    error: () => undefined, // the last test ends it with FEED_UNAVAILABLE on purpose
  });
  rig = { sim, hostile, client, errors, statuses, sub };
  return rig;
}

const book = (r: Rig) => r.client.orderBook(MARKET);

/** Pauses the exchange, waits for the replica to be live at the truth's sequence (as the clients number it) and compares. */
async function expectExact(r: Rig, label: string): Promise<void> {
  r.sim.pause();
  const t = truth<{ bids: PriceLevel[]; asks: PriceLevel[] }>(r.sim, 'orderBook', { ...MARKET, depth: 500 });
  const seq = r.hostile.clientSeq(STREAM, t.sequence);
  const e = await waitFor(book(r), (s) => s.status === 'live' && s.seq === seq, `${label}: live at seq ${seq}`);
  const mine = (e.state as OrderBook).toSnapshot(200);
  expect({ label, bids: mine.bids, asks: mine.asks }).toEqual({ label, bids: t.data.bids.slice(0, 200), asks: t.data.asks.slice(0, 200) });
  r.sim.resume();
}

/** Waits until the replica shows `status` for a state newer than `afterSnapshot`. */
function liveAfter(r: Rig, snapshotId: number, what: string): Promise<ReplicaState<unknown>> {
  return waitFor(book(r), (s) => s.status === 'live' && s.snapshotId > snapshotId, what, WAIT_MS);
}

test('a stream whose numbering restarts on the same socket leaves live at once and is live and exact again', async () => {
  const r = await start();
  const first = await waitFor(book(r), (s) => s.status === 'live' && s.cause === 'update', 'live with updates');
  r.hostile.restartNumbering(STREAM);
  await waitFor(book(r), (s) => s.status !== 'live', 'out of live after the restart');
  await liveAfter(r, first.snapshotId, 'live again in the new numbering');
  expect(r.client.resyncCounts().seq_regression).toBeGreaterThanOrEqual(1);
  await expectExact(r, 'after the restart');
});

test('a snapshot whose sequence is ahead of the stream is never shown as live; reported, refetched, and live once honest', async () => {
  const r = await start({ snapshotAheadMs: 300 });
  r.hostile.lieAboutSnapshots(STREAM, 10n ** 18n);
  await waitFor(r.client.errors$, (e) => e.code === 'ERR_SNAPSHOT_AHEAD', 'ERR_SNAPSHOT_AHEAD reported');
  // A snapshot answered before any update arrived may be shown (the contract allows it) until
  // the first update shows the stream behind it; every refetch after that finds updates buffered.
  expect(r.statuses.filter((s) => s === 'live').length).toBeLessThanOrEqual(1);
  expect(r.statuses[r.statuses.length - 1]).not.toBe('live');
  r.statuses.length = 0;
  const before = r.hostile.requestsTo('/v1/orderBook');
  await waitFor(r.client.errors$, (e) => e.code === 'ERR_SNAPSHOT_AHEAD', 'reported again after a refetch');
  await waitFor(r.client.errors$, (e) => e.code === 'ERR_SNAPSHOT_AHEAD', 'and again');
  expect(r.hostile.requestsTo('/v1/orderBook')).toBeGreaterThan(before);
  expect(r.statuses).not.toContain('live');
  expect(r.client.resyncCounts().snapshot_ahead).toBeGreaterThanOrEqual(3);
  r.hostile.lieAboutSnapshots(STREAM, undefined);
  await waitFor(book(r), (s) => s.status === 'live', 'live once the snapshots are honest', WAIT_MS);
  await expectExact(r, 'after honest snapshots');
});

test.each([
  ['a seq that is not a Uint64', (id: string) => `{"type":"update","subscription_id":"${id}","channel":"book","seq":"x1","timestamp_ns":"1","data":{"bids":[],"asks":[]}}`],
  ['a timestamp that is not a Uint64', (id: string) => `{"type":"update","subscription_id":"${id}","channel":"book","seq":"1","timestamp_ns":"-5","data":{"bids":[],"asks":[]}}`],
  ['a truncated frame', (id: string) => `{"type":"update","subscription_id":"${id}","channel":"book","seq":"1","data":{"bids":[[`],
])('an update with %s moves the replica out of live at once and it comes back exact', async (_what, frame) => {
  const r = await start();
  const first = await waitFor(book(r), (s) => s.status === 'live' && s.cause === 'update', 'live with updates');
  r.sim.pause();
  const seen: string[] = [];
  const watch = book(r).subscribe((e) => seen.push(e.status));
  expect(r.hostile.inject(STREAM, frame)).toBe(1);
  await waitFor(book(r), (s) => s.status !== 'live', 'out of live');
  watch.unsubscribe();
  expect(r.errors.some((e) => e.code === 'ERR_FRAME_INVALID' && e.context.stream === 'book|market_id=0|is_perps=true')).toBe(true);
  r.sim.resume();
  await liveAfter(r, first.snapshotId, 'live after the resync');
  await expectExact(r, 'after an undecodable update');
});

test('a resync_required storm costs a bounded number of REST requests, and the replica is live and exact after it', async () => {
  const r = await start({ resyncBurst: 5, resyncRefillMs: 1000 });
  const first = await waitFor(book(r), (s) => s.status === 'live', 'live');
  const before = r.hostile.requestsTo('/v1/orderBook');
  const stormMs = 4000;
  const started = Date.now();
  const end = started + stormMs;
  let frames = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (let i = 0; i < 20; i++) frames += r.hostile.inject(STREAM, (id) => `{"type":"resync_required","subscription_id":"${id}","channel":"book","reason":"gap"}`);
      // At least stormMs and 1,000 frames, however late the interval fires on a loaded machine.
      if (Date.now() >= end && frames > 1000) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  const during = r.hostile.requestsTo('/v1/orderBook') - before;
  // On the limiter's own clock: the storm lasts as long as it lasted (longer than stormMs on a loaded machine).
  const elapsedMs = Date.now() - started;
  expect(frames).toBeGreaterThan(1000);
  // The burst, then one per second of storm, plus one for a refill at the edge.
  expect(during).toBeLessThanOrEqual(5 + Math.ceil(elapsedMs / 1000) + 1);
  await liveAfter(r, first.snapshotId, 'live after the storm');
  await expectExact(r, 'after the storm');
});

test('FEED_UNAVAILABLE on a serving connection reconnects; on the fresh connection after it, it is final', async () => {
  const r = await start();
  const first = await waitFor(book(r), (s) => s.status === 'live', 'live');
  const states: string[] = [];
  r.client.connection.on('state', (c) => states.push(c.to));
  const unavailable = '{"type":"error","request_id":"","subscription_id":null,"code":"FEED_UNAVAILABLE","error":"deploying"}';
  r.hostile.broadcast(unavailable);
  await liveAfter(r, first.snapshotId, 'live after the reconnect');
  expect(states).toEqual(expect.arrayContaining(['reconnecting', 'open']));
  expect(r.client.connection.state).toBe('open');
  await expectExact(r, 'after the reconnect');

  r.hostile.refuseNewFeedConnections(true);
  r.hostile.broadcast(unavailable);
  const failure = await new Promise<unknown>((resolve) => book(r).subscribe({ error: resolve }));
  expect(failure).toMatchObject({ code: 'FEED_UNAVAILABLE' });
  expect(r.client.connection.state).toBe('failed');
});
