/**
 * ReplicaRelay against the simulator and a real nats-server: the updates of a stream on its
 * subject (seq order, headers, message ids, payload exactly the client's update), the KV
 * snapshot aligned with the subject (replayed onto its data it equals the simulator's truth),
 * heartbeats.
 */
import type { Subscription } from 'rxjs';
import { ExchangeClient, type OrderBook, type PriceLevel } from '../../src';
import { busNames, decodeHeartbeat, heartbeatSubject, messageId, type Heartbeat, type SnapshotRecord } from '../../src/nats/busProtocol';
import { accountStreams, DEFAULT_MARKET_CHANNELS, marketStreams, type ReplicaRelay } from '../../src/nats';
import { streamKey, type Bbo, type Scope } from '../../src/protocol';
import { channelReducer } from '../../src/replicas/channelReducers';
import type { Simulator } from '../../src/simulator';
import type { UpdateEvent } from '../../src/router';
import { natsConnect, readSnapshot, readSubject, startRelay, startSim, truth, waitUntil, type BusMessage } from './busHarness';
import { NatsServer } from './natsServer';

const BOOK = { channel: 'book', scope: { market_id: 0, is_perps: true } } as const;
const BBO = { channel: 'bbo', scope: { market_id: 0, is_perps: true } } as const;
const BOOK_KEY = streamKey(BOOK.channel, BOOK.scope);

let nats: NatsServer;
let prefixes = 0;
/** A bus of its own for each test (one nats-server for the file). */
const nextNames = () => busNames(`t${++prefixes}`);

beforeAll(async () => {
  nats = await NatsServer.start();
});
afterAll(async () => {
  await nats?.stop();
});

describe('ReplicaRelay', () => {
  let sim: Simulator | undefined;
  let relay: ReplicaRelay | undefined;
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await relay?.close();
    relay = undefined;
    await sim?.stop();
    sim = undefined;
  });

  it('publishes every update of a book stream on its subject, in seq order, with headers and message ids', async () => {
    sim = await startSim({ eventsPerSecond: 400 });
    const names = nextNames();
    // An independent client sees the same updates: the bus must carry them exactly.
    const witness = new ExchangeClient({ restUrl: sim.restUrl });
    const seen = new Map<bigint, UpdateEvent>();
    const sub: Subscription = witness.updates(BOOK.channel, BOOK.scope).subscribe((u) => seen.set(u.seq, u));
    cleanups.push(() => witness.close(), () => sub.unsubscribe());
    const errors: unknown[] = [];
    relay = await startRelay(sim, nats.url, { prefix: names.prefix, relayId: 'relay-a', streams: [BOOK], onError: (e) => errors.push(e) });
    const r = relay;
    await waitUntil(() => r.describe()[0]!.published >= 200, '200 updates published');
    sim.pause();
    const t = truth(sim, 'orderBook', { market_type: 'perp', market_id: 0, depth: 10 });
    await waitUntil(() => r.describe()[0]!.publishedSeq === t.sequence, `the relay at seq ${t.sequence}`);

    const nc = await natsConnect(nats.url);
    cleanups.push(() => nc.close());
    const msgs = await readSubject(nc, names, r.describe()[0]!.subject, 1, t.sequence);
    expect(msgs.length).toBeGreaterThanOrEqual(200);
    expect(msgs[msgs.length - 1]!.seq).toBe(t.sequence);
    let compared = 0;
    msgs.forEach((m, i) => {
      if (i > 0) {
        const prev = msgs[i - 1]!;
        expect(m.seq).toBe(prev.seq + 1n);
        // One relay: its batches follow each other, each starting where the one before ended.
        if (m.jsSeq === prev.jsSeq) expect([m.first, m.last]).toEqual([prev.first, prev.last]);
        else expect([m.jsSeq > prev.jsSeq, m.first]).toEqual([true, prev.last + 1n]);
      }
      expect(m.streamKey).toBe(BOOK_KEY);
      expect(m.seq >= m.first && m.seq <= m.last).toBe(true);
      expect(m.msgId).toBe(messageId(BOOK_KEY, m.first, m.last));
      expect(m.relayId).toBe('relay-a');
      expect(m.timestampNs).toBeGreaterThan(0n);
      const u = seen.get(m.seq);
      if (u !== undefined) {
        compared++;
        // timestamp_ns is the server's send time on each connection: the data is the same update.
        expect(m.data).toEqual(u.data);
      }
    });
    expect(compared).toBeGreaterThanOrEqual(100);
    expect(r.describe()[0]).toMatchObject({ status: 'live', duplicates: 0, syncs: 1 });
    expect(errors).toEqual([]);
  });

  it('keeps a KV snapshot aligned with the subject: replayed onto its data it equals the truth, across a resync', async () => {
    sim = await startSim({ eventsPerSecond: 400 });
    const s = sim;
    const names = nextNames();
    relay = await startRelay(s, nats.url, { prefix: names.prefix, streams: [BOOK, BBO], snapshotRefreshMs: 300, snapshotRefreshUpdates: 100_000 });
    const r = relay;
    const stream = (key: string) => r.describe().find((d) => d.streamKey === key)!;
    const bboKey = streamKey(BBO.channel, BBO.scope);
    await waitUntil(() => r.describe().every((d) => d.status === 'live' && d.snapshotSequence !== null), 'both streams live with a snapshot');
    const nc = await natsConnect(nats.url);
    cleanups.push(() => nc.close());

    // The snapshot is refreshed while the stream runs.
    const first = (await readSnapshot(nc, names, stream(BOOK_KEY).snapshotKey))!;
    await waitUntil(async () => {
      const now = await readSnapshot(nc, names, stream(BOOK_KEY).snapshotKey);
      return now !== undefined && now.record.sequence > first.record.sequence && now.revision > first.revision;
    }, 'a refreshed book snapshot');

    // A gap on the exchange feed ends the relay's run: it resyncs and publishes again from a
    // new snapshot; the subject has a hole there, and the KV entry moves past it.
    s.faults.resyncStream(BOOK_KEY, 3);
    await waitUntil(() => stream(BOOK_KEY).syncs >= 2 && stream(BOOK_KEY).status === 'live', 'the book relay resynced');
    expect(r.breakCounts()[BOOK_KEY]!.resync_required).toBeGreaterThanOrEqual(1);
    const resumedAt = await waitUntil(async () => {
      const all = await readSubject(nc, names, stream(BOOK_KEY).subject);
      const i = all.findIndex((m, j) => j > 0 && m.seq !== all[j - 1]!.seq + 1n);
      return i > 0 && all[i]!.seq;
    }, 'the first update of the new run on the subject');
    const afterResync = await waitUntil(async () => {
      const e = await readSnapshot(nc, names, stream(BOOK_KEY).snapshotKey);
      return e !== undefined && e.record.sequence >= resumedAt - 1n && e;
    }, 'a snapshot of the new run');
    // Let the stream run past it, so that the replay below has updates to apply.
    await waitUntil(() => stream(BOOK_KEY).publishedSeq! > afterResync.record.sequence + 50n, '50 updates past that snapshot');

    s.pause();
    const tBook = truth<{ bids: PriceLevel[]; asks: PriceLevel[] }>(s, 'orderBook', { market_type: 'perp', market_id: 0, depth: 500 });
    const tBbo = truth<Bbo>(s, 'bbo', { market_type: 'perp', market_id: 0 });
    await waitUntil(() => stream(BOOK_KEY).publishedSeq === tBook.sequence && stream(bboKey).publishedSeq === tBbo.sequence, 'the relay at the truth');

    const replay = async (record: SnapshotRecord, upTo: bigint): Promise<{ state: unknown; applied: number }> => {
      const reducer = channelReducer(record.channel);
      let state = reducer.fromSnapshot(record.data, record.scope as Scope, undefined);
      const msgs: BusMessage[] = upTo > record.sequence ? await readSubject(nc, names, record.subject, record.jsStartSeq, upTo) : [];
      let at = record.sequence;
      let applied = 0;
      for (const m of msgs) {
        if (m.seq <= at) continue;
        expect(m.seq).toBe(at + 1n); // contiguous from S + 1
        state = reducer.apply(state, m.data, m.seq);
        at = m.seq;
        applied++;
      }
      expect(at).toBe(upTo);
      return { state, applied };
    };
    const top = (state: unknown) => {
      const snap = (state as OrderBook).toSnapshot(200);
      return { bids: snap.bids, asks: snap.asks };
    };
    const expected = { bids: tBook.data.bids.slice(0, 200), asks: tBook.data.asks.slice(0, 200) };
    // From the snapshot written after the resync (S well below the truth) ...
    const early = await replay(afterResync.record, tBook.sequence);
    expect(early.applied).toBeGreaterThanOrEqual(50);
    expect(top(early.state)).toEqual(expected);
    // ... and from the newest one.
    const latest = (await readSnapshot(nc, names, stream(BOOK_KEY).snapshotKey))!;
    expect(top((await replay(latest.record, tBook.sequence)).state)).toEqual(expected);
    const bbo = (await readSnapshot(nc, names, stream(bboKey).snapshotKey))!;
    expect((await replay(bbo.record, tBbo.sequence)).state).toEqual(tBbo.data);
  });

  it('carries every channel of a market and an account: each snapshot replays contiguously onto its data', async () => {
    // A lighter flow: ten streams, one of them a paged snapshot (orders), on a machine that may be loaded.
    sim = await startSim({ eventsPerSecond: 150 });
    const s = sim;
    const names = nextNames();
    // A subaccount that trades, with a few open orders (as `view` picks one).
    const orders = (address: string, id: number) => truth<unknown[]>(s, 'orders', { address, subaccount_id: id, status: 'active', limit: 100 }).data.length;
    const active = s.engine.accounts
      .flatMap((a) => a.subaccount_ids.map((id) => ({ address: a.address, id })))
      .find(({ address, id }) => truth<unknown[]>(s, 'positions', { address, subaccount_id: id }).data.length > 0 && orders(address, id) > 0 && orders(address, id) <= 30)!;
    const streams = [...marketStreams('perp', 0, [...DEFAULT_MARKET_CHANNELS, 'bbo']), ...accountStreams(active.address, active.id)];
    expect(streams.map((x) => x.channel).sort()).toEqual(['account', 'balances', 'bbo', 'book', 'fills', 'fundingRates', 'marketStats', 'orders', 'positions', 'trades']);
    const errors: unknown[] = [];
    relay = await startRelay(s, nats.url, { prefix: names.prefix, streams, snapshotRefreshMs: 200, onError: (e) => errors.push(e) });
    const r = relay;
    await waitUntil(() => r.describe().every((d) => d.status === 'live' && d.snapshotSequence !== null), 'every stream live with a snapshot').catch((e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(r.describe().map((d) => [d.streamKey, d.status, String(d.snapshotSequence), String(d.publishedSeq), d.syncs]))} breaks ${JSON.stringify(r.breakCounts())} errors ${errors.map(String).join(' | ')}`);
    });
    // Some activity past the first snapshots.
    await waitUntil(() => r.describe().filter((d) => d.published > 0).length >= 4, 'updates on several streams');
    s.pause();
    const nc = await natsConnect(nats.url);
    cleanups.push(() => nc.close());
    // Once the relay has stored every update the (paused) simulator published on its streams,
    // each stream's newest snapshot replays to its tip.
    const storedUpTo = (d: ReturnType<ReplicaRelay['describe']>[number]) => {
      const top = [d.publishedSeq, d.snapshotSequence].reduce<bigint>((m, x) => (x !== null && x > m ? x : m), 0n);
      return top >= s.engine.hub.seq(d.streamKey);
    };
    await waitUntil(() => r.describe().every(storedUpTo), 'the relay at the simulator\'s last update of every stream').catch((e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(r.describe().map((d) => [d.streamKey, String(d.publishedSeq), String(d.snapshotSequence), String(s.engine.hub.seq(d.streamKey))]))}`);
    });
    for (const d of r.describe()) {
      const snap = (await readSnapshot(nc, names, d.snapshotKey))!;
      expect(snap.record).toMatchObject({ streamKey: d.streamKey, channel: d.channel, subject: d.subject, jsStream: names.stream });
      const reducer = channelReducer(d.channel);
      let state = reducer.fromSnapshot(snap.record.data, snap.record.scope as Scope, undefined);
      const tip = d.publishedSeq ?? snap.record.sequence;
      let at = snap.record.sequence;
      if (tip > at) {
        for (const m of await readSubject(nc, names, d.subject, snap.record.jsStartSeq, tip)) {
          if (m.seq <= at) continue;
          expect(`${d.streamKey} ${m.seq}`).toBe(`${d.streamKey} ${at + 1n}`);
          state = reducer.apply(state, m.data, m.seq);
          at = m.seq;
        }
      }
      expect(`${d.streamKey} ${at >= tip}`).toBe(`${d.streamKey} true`);
      expect(state).toBeDefined();
    }
    expect(errors).toEqual([]);
  });

  it('sends heartbeats with every stream and its status, and a last one when it closes', async () => {
    sim = await startSim();
    const names = nextNames();
    const nc = await natsConnect(nats.url);
    cleanups.push(() => nc.close());
    const beats: Heartbeat[] = [];
    const sub = nc.subscribe(names.heartbeatSubjects, { callback: (err, m) => {
        if (!err) beats.push(decodeHeartbeat(m.string()));
      },
    });
    // The relay id is carried as one subject token.
    const exact: string[] = [];
    const sub2 = nc.subscribe(heartbeatSubject(names, 'hb relay.1'), {
      callback: (_e, m) => {
        exact.push(m.subject);
      },
    });
    cleanups.push(() => sub.unsubscribe(), () => sub2.unsubscribe());
    await nc.flush();
    relay = await startRelay(sim, nats.url, { prefix: names.prefix, relayId: 'hb relay.1', streams: [BOOK, BBO], heartbeatMs: 100 });
    const r = relay;
    const live = await waitUntil(() => beats.find((b) => b.streams.length === 2 && b.streams.every((s) => s.status === 'live')), 'a heartbeat with both streams live');
    expect(live).toMatchObject({ relayId: 'hb relay.1', state: 'running', intervalMs: 100, feed: 'open', jsStream: names.stream, bucket: names.bucket });
    expect(live.streams.map((s) => s.streamKey).sort()).toEqual([BOOK_KEY, streamKey(BBO.channel, BBO.scope)].sort());
    expect(exact[0]).toBe(`${names.prefix}.hb.hb-20relay-2E1`);
    await r.close();
    relay = undefined;
    await waitUntil(() => beats.some((b) => b.state === 'closing'), 'the closing heartbeat');
  });
});

describe.each(['file', 'memory'] as const)('ReplicaRelay and a nats-server restart (%s storage)', (storage) => {
  it('resyncs after NATS comes back and goes on publishing aligned updates', async () => {
    const own = await NatsServer.start();
    const sim = await startSim({ eventsPerSecond: 300 });
    const names = busNames('restart');
    const relay = await startRelay(sim, own.url, { prefix: names.prefix, streams: [BOOK], streamLimits: { storage }, publishTimeoutMs: 1000, snapshotRefreshMs: 300, natsOptions: { reconnectTimeWait: 50 } });
    const book = () => relay.describe()[0]!;
    try {
      await waitUntil(() => book().status === 'live' && book().published >= 50, 'live and publishing');
      const before = book();
      await own.restart();
      await waitUntil(() => book().syncs > before.syncs && book().status === 'live' && book().published > before.published + 50, 'publishing again after the restart');
      sim.pause();
      const t = truth<{ bids: PriceLevel[]; asks: PriceLevel[] }>(sim, 'orderBook', { market_type: 'perp', market_id: 0, depth: 500 });
      await waitUntil(() => book().publishedSeq === t.sequence, `the relay at ${t.sequence}`);
      const nc = await natsConnect(own.url);
      try {
        // A snapshot of the run after the restart (KV writes caught in the outage wait for their timeout).
        const snap = await waitUntil(async () => {
          const e = await readSnapshot(nc, names, book().snapshotKey);
          return e !== undefined && e.record.sequence > before.publishedSeq! && e;
        }, 'a snapshot written after the restart');
        const reducer = channelReducer('book');
        let state = reducer.fromSnapshot(snap.record.data, BOOK.scope, undefined);
        let at = snap.record.sequence;
        if (t.sequence > at) {
          for (const m of await readSubject(nc, names, snap.record.subject, snap.record.jsStartSeq, t.sequence)) {
            if (m.seq <= at) continue;
            expect(m.seq).toBe(at + 1n);
            state = reducer.apply(state, m.data, m.seq);
            at = m.seq;
          }
        }
        expect(at).toBe(t.sequence);
        const top = (state as OrderBook).toSnapshot(200);
        expect({ bids: top.bids, asks: top.asks }).toEqual({ bids: t.data.bids.slice(0, 200), asks: t.data.asks.slice(0, 200) });
        // A file stream survives the restart: the epoch broke on the publishes the restart failed.
        // A memory stream does not: the relay found it recreated and started a new epoch on it.
        const breaks = relay.breakCounts()[BOOK_KEY]!;
        if (storage === 'file') expect({ bus_reset: breaks.bus_reset, failed: breaks.publish_failed >= 1 }).toEqual({ bus_reset: 0, failed: true });
        else expect(breaks.bus_reset).toBeGreaterThanOrEqual(1);
      } finally {
        await nc.close();
      }
    } finally {
      await relay.close();
      await sim.stop();
      await own.stop();
    }
  });
});
