/**
 * BusClient against a relay, the simulator and a real nats-server, in one process: book,
 * bbo, market stats, trades, funding rates and an account (parts and combined) go live from
 * the bus and equal the simulator's truth at a paused checkpoint, trades exactly once; after
 * simulator faults on the relay's feed (a stream resync, a silent gap) they are exact again.
 * Replicas of one stream key (`account()` and its parts `fills()`, `balances()`...) share ONE
 * JetStream consumer, also when they join a stream already running; it is deleted when the
 * last of them leaves. A reader rebuilt from the feed's anchor, older than what it showed,
 * keeps the recent fills of its stream position. Without relay heartbeats the replicas are
 * `stale` and the JetStream consumers stay; a relay's heartbeat makes them live again on the
 * same consumers.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { accountStreams, BusClient, BusSource, marketStreams, type ReplicaRelay } from '../../src/nats';
import { AccountReplica } from '../../src/replicas/account/AccountReplica';
import type { AccountReplicaState } from '../../src/replicas/account/AccountState';
import { createEventReplica } from '../../src/replicas/createReplica';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { accountTruth, diffAccount } from '../helpers/truth';
import type { Simulator } from '../../src/simulator';
import { ReplicaFleet, type FleetSpec } from '../e2e/ReplicaFleet';
import { busNames } from '../../src/nats/busProtocol';
import { natsConnect, startRelay, startSim, waitUntil } from './busHarness';
import { NatsServer } from './natsServer';
import { WAIT_MS } from '../helpers/deadlines';

const MARKET_CHANNELS = ['book', 'bbo', 'marketStats', 'trades', 'fundingRates'] as const;

let nats: NatsServer;
let sim: Simulator | undefined;
let relay: ReplicaRelay | undefined;
let client: BusClient | undefined;
let fleet: ReplicaFleet | undefined;
let late: ReplicaFleet | undefined;
const diag: unknown[] = [];

beforeAll(async () => {
  nats = await NatsServer.start();
});
afterAll(async () => {
  await nats?.stop();
});
afterEach(async () => {
  fleet?.stop();
  late?.stop();
  late = undefined;
  await client?.close();
  await relay?.close();
  await sim?.stop();
  fleet = undefined;
  client = undefined;
  relay = undefined;
  sim = undefined;
});

async function until(f: ReplicaFleet, pred: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
  if (pred()) return;
  await firstValueFrom(f.changed$.pipe(filter(pred), timeout({ first: ms, with: () => { throw new Error(`timed out after ${ms} ms waiting for ${what}; not live: ${f.notLive().join(', ')}`); } })));
}

async function expectExact(s: Simulator, f: ReplicaFleet, label: string): Promise<void> {
  s.pause();
  const r = await f.checkpoint(s, WAIT_MS);
  if (r.notConverged.length > 0 || r.waitedMs > 3000) {
    // eslint-disable-next-line no-console
    console.log(label, r.waitedMs, JSON.stringify(relay?.describe().map((d) => [d.streamKey, d.status, String(d.publishedSeq), String(d.snapshotSequence), d.syncs])), JSON.stringify(client?.resyncCounts()), diag.map(String).slice(-10));
  }
  expect({ label, notConverged: r.notConverged, divergences: r.divergences }).toEqual({ label, notConverged: [], divergences: [] });
  const { checked, gapped: _gapped, ...faults } = r.events;
  expect({ label, ...faults }).toEqual({ label, duplicates: 0, missing: 0, mismatched: 0, unknown: 0, examples: [] });
  expect({ label, checked: checked > 0 }).toEqual({ label, checked: true });
  s.resume();
}

test('every replica of a BusClient goes live from the bus and equals the truth; again after faults on the relay feed', async () => {
  sim = await startSim({ eventsPerSecond: 400, seed: 11 });
  const trader = sim.engine.accounts[1]!.address;
  const spec: FleetSpec = {
    markets: [
      { market_type: 'perp', market_id: 1 },
      { market_type: 'spot', market_id: 3 },
    ],
    resolutions: [],
    markResolutions: [],
    accounts: [{ address: trader, subaccount_id: 0 }],
  };
  const prefix = 'bc1';
  relay = await startRelay(sim, nats.url, {
    prefix,
    relayId: 'relay-a',
    snapshotAheadMs: 1000,
    // A silent gap on a quiet stream shows only when a refresh snapshot stays ahead of the
    // replica (two refreshes apart): refreshing every second keeps that well inside the checkpoint's bound.
    snapshotRefreshMs: 1000,
    streams: [...marketStreams('perp', 1, MARKET_CHANNELS), ...marketStreams('spot', 3, MARKET_CHANNELS), ...accountStreams(trader, 0)],
  });
  const errors: unknown[] = [];
  client = new BusClient({ natsUrl: nats.url, prefix, replica: { livenessMs: 0 }, onError: (e) => (errors.push(e), diag.push(e)) });
  client.errors$.subscribe((e) => diag.push(e));
  const streams = await client.streams();
  expect(streams.map((s) => s.streamKey)).toEqual(relay.describe().map((d) => d.streamKey).sort());
  fleet = new ReplicaFleet(client, spec).start();
  await until(fleet, () => fleet!.allLive(), 'every replica live from the bus');
  let emissions = 0;
  const counted = fleet.changed$.subscribe(() => emissions++);
  await until(fleet, () => emissions >= 300, '300 emissions');
  counted.unsubscribe();
  await expectExact(sim, fleet, 'steady');

  // Faults on the relay's exchange feed: the relay resyncs, the bus shows a gap, the consumer heals from the KV.
  const r = relay;
  sim.faults.resyncStream('book|market_id=1|is_perps=true');
  sim.faults.skipSilently('trades|market_id=1|is_perps=true', 2);
  sim.faults.skipSilently('bbo|market_id=3|is_perps=false', 1);
  await waitUntil(() => r.describe().every((d) => d.status === 'live') && Object.values(r.breakCounts()).some((b) => Object.values(b).some((n) => n > 0)), 'the relay resynced');
  await until(fleet, () => fleet!.allLive(), 'every replica live again');
  await waitUntil(() => client!.resyncCounts().seq_jump + client!.resyncCounts().resubscribed > 0 || undefined, 'a consumer resync', 15_000).catch(() => undefined);
  await expectExact(sim, fleet, 'after faults');
  expect(fleet.observableErrors).toEqual([]);
  // The consumer never opened a feed connection of its own.
  expect(sim.faults.connections().length).toBe(1); // the relay's
  expect(client.activity().serverSubscriptions).toBe(0);
});

/** The JetStream consumers on the bus's updates stream now. */
async function consumerCount(prefix: string): Promise<number> {
  const nc = await natsConnect(nats.url);
  try {
    const jsm = await jetstreamManager(nc);
    return (await jsm.consumers.list(busNames(prefix).stream).next()).length;
  } finally {
    await nc.close();
  }
}

test('replicas of one stream key share one JetStream consumer, also when they join a running stream', async () => {
  sim = await startSim({ eventsPerSecond: 400, seed: 12 });
  const trader = sim.engine.accounts[1]!.address;
  const account = { address: trader, subaccount_id: 0 };
  const prefix = 'bc2';
  const streams = accountStreams(trader, 0);
  relay = await startRelay(sim, nats.url, { prefix, relayId: 'relay-a', snapshotAheadMs: 1000, streams });
  client = new BusClient({ natsUrl: nats.url, prefix, replica: { livenessMs: 0 }, onError: (e) => diag.push(e) });
  // First the combined account alone (its five parts: five streams, five consumers)...
  fleet = new ReplicaFleet(client, { markets: [], resolutions: [], markResolutions: [], accounts: [account], accountParts: false }).start();
  await until(fleet, () => fleet!.allLive(), 'the account live from the bus');
  await waitUntil(async () => (await consumerCount(prefix)) === streams.length || undefined, `${streams.length} consumers`, WAIT_MS);
  let emissions = 0;
  const counted = fleet.changed$.subscribe(() => emissions++);
  await until(fleet, () => emissions >= 50, '50 account emissions');
  counted.unsubscribe();
  // ...then the same streams again on their own (subaccount, balances, positions, openOrders,
  // fills): they join the running consumers (the updates since the anchor snapshot replayed).
  late = new ReplicaFleet(client, { markets: [], resolutions: [], markResolutions: [], accounts: [account] }).start();
  await until(late, () => late!.allLive(), 'the parts live from the bus');
  expect(await consumerCount(prefix)).toBe(streams.length);
  for (const f of [fleet, late]) {
    sim.pause();
    const r = await f.checkpoint(sim, WAIT_MS);
    expect({ notConverged: r.notConverged, divergences: r.divergences }).toEqual({ notConverged: [], divergences: [] });
    const { checked, gapped: _gapped, ...faults } = r.events;
    expect(faults).toEqual({ duplicates: 0, missing: 0, mismatched: 0, unknown: 0, examples: [] });
    expect(checked).toBeGreaterThan(0);
    sim.resume();
  }
  expect(client.resyncCounts().resubscribed).toBe(0);
  // The last reader of each key leaves: the feed deletes its consumer (well before the
  // consumers' inactive_threshold, 30 s, would remove them).
  fleet.stop();
  expect(await consumerCount(prefix)).toBe(streams.length); // the parts still read them
  late.stop();
  await waitUntil(async () => (await consumerCount(prefix)) === 0 || undefined, 'no consumer left', WAIT_MS);
});

test('a replica rebuilt from the feed anchor, older than what it showed, keeps the recent fills of its position; the other reader of its key is left alone', async () => {
  sim = await startSim({ eventsPerSecond: 400, seed: 13 });
  const scope = { address: sim.engine.accounts[1]!.address, subaccount_id: 0 };
  const prefix = 'bc3';
  // No KV refresh during the test: the feeds' anchor stays the relay's first snapshot.
  relay = await startRelay(sim, nats.url, { prefix, relayId: 'relay-a', snapshotAheadMs: 1000, snapshotRefreshMs: 600_000, streams: accountStreams(scope.address, 0) });
  const bus = new BusSource({ natsUrl: nats.url, prefix, onError: (e) => diag.push(e) });
  const scheduler = new ResyncScheduler();
  const deps = { source: bus, scheduler };
  const account = new AccountReplica(scope, deps, { livenessMs: 0 }).start();
  const fills = createEventReplica('fills', scope, deps, { livenessMs: 0 }).start();
  const newestFill = (e: AccountReplicaState | undefined) => BigInt(e?.state.recentFills.at(-1)?.sequence ?? -1);
  try {
    const first = await firstValueFrom(account.states$.pipe(filter((e) => e.status === 'live' && e.state.recentFills.length > 0), timeout(WAIT_MS)));
    // Fills delivered above the anchor's newest, then the fills replica resyncs: its request
    // reads the KV entry (the anchor, below what was delivered), so that reader (and only it:
    // the account's fills part reads the same feed) is rebuilt from the anchor and the updates since.
    await firstValueFrom(account.states$.pipe(filter((e) => newestFill(e) >= newestFill(first) + 5n), timeout(WAIT_MS)));
    const partStatuses: string[] = [];
    const watchPart = account.status$.subscribe((c) => partStatuses.push(c.to));
    const fillsSnapshot = fills.sync.latest!.snapshotId;
    fills.sync.resync('test: a reader resyncs');
    await firstValueFrom(fills.sync.states$.pipe(filter((e) => e.status === 'live' && e.snapshotId > fillsSnapshot), timeout(WAIT_MS)));
    watchPart.unsubscribe();
    expect(account.latest!.snapshotIds.fills).toBe(first.snapshotIds.fills);
    expect(partStatuses.filter((t) => t !== 'live')).toEqual([]);
    sim.pause();
    const truth = accountTruth(sim, scope);
    const newest = BigInt(truth.recentFills.at(-1)!.sequence);
    const at = await firstValueFrom(account.states$.pipe(filter((e) => e.status === 'live' && newestFill(e) >= newest && diffAccount(scope, e, truth).length === 0), timeout({ first: WAIT_MS, with: () => [account.latest] })));
    expect(diffAccount(scope, at!, truth)).toEqual([]);
    expect(fills.sync.latest?.state.recent.map((f) => f.sequence)).toEqual(truth.recentFills.map((f) => f.sequence));
    sim.resume();
  } finally {
    account.close();
    fills.close();
    scheduler.close();
    await bus.close();
  }
});

/** The name prefixes of the JetStream consumers on the bus (an ordered consumer keeps its prefix when it recreates itself). */
async function consumerPrefixes(prefix: string): Promise<string[]> {
  const nc = await natsConnect(nats.url);
  try {
    const jsm = await jetstreamManager(nc);
    const list = await jsm.consumers.list(busNames(prefix).stream).next();
    return list.map((c) => c.name.replace(/_[0-9]+$/, '')).sort();
  } finally {
    await nc.close();
  }
}

test('without relay heartbeats the replicas are stale and keep their consumers; the next relay makes them live on the same consumers', async () => {
  sim = await startSim({ eventsPerSecond: 400, seed: 14 });
  const prefix = 'bc4';
  const streams = marketStreams('perp', 1, MARKET_CHANNELS);
  const relayA = await startRelay(sim, nats.url, { prefix, relayId: 'relay-a', snapshotAheadMs: 1000, streams });
  relay = relayA;
  client = new BusClient({ natsUrl: nats.url, prefix, replica: { livenessMs: 0 }, onError: (e) => diag.push(e) });
  const spec: FleetSpec = { markets: [{ market_type: 'perp', market_id: 1 }], resolutions: [], markResolutions: [], accounts: [] };
  fleet = new ReplicaFleet(client, spec).start();
  const book = client.orderBook({ market_type: 'perp', market_id: 1 });
  const statuses: string[] = [];
  const watched = book.subscribe((e) => statuses.at(-1) !== e.status && statuses.push(e.status));
  try {
    await waitUntil(() => statuses.at(-1) === 'live' || undefined, 'the book live', WAIT_MS);
    await waitUntil(async () => (await consumerPrefixes(prefix)).length === streams.length || undefined, `${streams.length} consumers`, WAIT_MS);
    const before = await consumerPrefixes(prefix);
    // The relay dies (no closing heartbeat): the book goes stale, the consumers stay.
    await relayA.nats.close();
    await relayA.client.close();
    await waitUntil(() => statuses.at(-1) === 'stale' || undefined, 'the book stale without heartbeats', WAIT_MS);
    expect(await consumerPrefixes(prefix)).toEqual(before);
    await relayA.close();
    // Another relay carries the streams: live again, on the same consumers, and exact.
    relay = await startRelay(sim, nats.url, { prefix, relayId: 'relay-b', snapshotAheadMs: 1000, streams });
    await waitUntil(() => statuses.at(-1) === 'live' || undefined, 'the book live again', WAIT_MS);
    expect(await consumerPrefixes(prefix)).toEqual(before);
    await until(fleet, () => fleet!.allLive(), 'every replica live');
    await expectExact(sim, fleet, 'after the heartbeats came back');
    expect(await consumerPrefixes(prefix)).toEqual(before);
  } finally {
    watched.unsubscribe();
  }
});
