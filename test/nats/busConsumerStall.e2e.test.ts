/**
 * A BusClient's JetStream consumers (push consumers read by a core NATS subscription,
 * src/nats/PushConsumer.ts) against a relay, the simulator and a real nats-server:
 * - an idle stream keeps its consumers: the server's idle heartbeats count as life;
 * - a consumer that stops delivering (deleted on the server) is noticed within two idle
 *   heartbeats and replaced from the KV entry: the replicas go stale, then live and exact;
 * - a nats-server restart: live again on new consumers, exact (file storage, and memory
 *   storage, where the stream and the bucket are lost and recreated).
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { BusClient, marketStreams, type ReplicaRelay } from '../../src/nats';
import { busNames } from '../../src/nats/busProtocol';
import type { Simulator } from '../../src/simulator';
import { ReplicaFleet, type FleetSpec } from '../e2e/ReplicaFleet';
import { natsConnect, startRelay, startSim, waitUntil } from './busHarness';
import { NatsServer } from './natsServer';
import { WAIT_MS } from '../helpers/deadlines';

const CHANNELS = ['book', 'bbo', 'marketStats', 'trades', 'fundingRates'] as const;
const HEARTBEAT_MS = 300;

let nats: NatsServer;
let sim: Simulator | undefined;
let relay: ReplicaRelay | undefined;
let client: BusClient | undefined;
let fleet: ReplicaFleet | undefined;
const diag: unknown[] = [];

beforeAll(async () => {
  nats = await NatsServer.start();
});
afterAll(async () => {
  await nats?.stop();
});
afterEach(async () => {
  fleet?.stop();
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
  await firstValueFrom(f.changed$.pipe(filter(pred), timeout({ first: ms, with: () => { throw new Error(`timed out after ${ms} ms waiting for ${what}; not live: ${f.notLive().join(', ')}; ${diag.map(String).slice(-5).join(' | ')}`); } })));
}

async function expectExact(s: Simulator, f: ReplicaFleet, label: string): Promise<void> {
  s.pause();
  const r = await f.checkpoint(s, WAIT_MS);
  expect({ label, notConverged: r.notConverged, divergences: r.divergences }).toEqual({ label, notConverged: [], divergences: [] });
  const { checked: _checked, gapped: _gapped, ...faults } = r.events;
  expect({ label, ...faults }).toEqual({ label, duplicates: 0, missing: 0, mismatched: 0, unknown: 0, examples: [] });
  s.resume();
}

/** The names of the JetStream consumers on the bus, sorted. */
async function consumerNames(prefix: string): Promise<string[]> {
  const nc = await natsConnect(nats.url);
  try {
    const jsm = await jetstreamManager(nc);
    return (await jsm.consumers.list(busNames(prefix).stream).next()).map((c) => c.name).sort();
  } finally {
    await nc.close();
  }
}

async function start(prefix: string, seed: number, storage: 'file' | 'memory' = 'file'): Promise<{ fleet: ReplicaFleet; streams: number; statuses: string[] }> {
  sim = await startSim({ eventsPerSecond: 400, seed });
  const streams = marketStreams('perp', 1, CHANNELS);
  relay = await startRelay(sim, nats.url, { prefix, relayId: 'relay-a', snapshotAheadMs: 1000, streams, streamLimits: { storage } });
  client = new BusClient({ natsUrl: nats.url, prefix, consumerHeartbeatMs: HEARTBEAT_MS, replica: { livenessMs: 0 }, onError: (e) => diag.push(e) });
  const spec: FleetSpec = { markets: [{ market_type: 'perp', market_id: 1 }], resolutions: [], markResolutions: [], accounts: [] };
  const f = new ReplicaFleet(client, spec).start();
  const statuses: string[] = [];
  client.orderBook({ market_type: 'perp', market_id: 1 }).subscribe((e) => statuses.at(-1) !== e.status && statuses.push(e.status));
  await until(f, () => f.allLive(), 'every replica live from the bus');
  return { fleet: f, streams: streams.length, statuses };
}

test('an idle stream keeps its consumers; a consumer deleted on the server is replaced from the KV entry, exact again', async () => {
  const prefix = 'cs1';
  const started = await start(prefix, 21);
  fleet = started.fleet;
  await waitUntil(async () => (await consumerNames(prefix)).length === started.streams || undefined, `${started.streams} consumers`, WAIT_MS);
  const before = await consumerNames(prefix);

  // Idle (the simulator paused) for many more than two heartbeats: nothing restarts.
  sim!.pause();
  const nc = await natsConnect(nats.url);
  try {
    let beats = 0;
    const hb = nc.subscribe(busNames(prefix).heartbeatSubjects, { callback: () => void beats++ });
    await waitUntil(() => beats >= 12 || undefined, '12 relay heartbeats (2.4 s, 4 stall thresholds)', WAIT_MS);
    hb.unsubscribe();
  } finally {
    await nc.close();
  }
  expect(await consumerNames(prefix)).toEqual(before);
  expect(started.statuses.at(-1)).toBe('live');
  sim!.resume();

  // Every consumer deleted behind the client's back: noticed, replaced, live and exact.
  const admin = await natsConnect(nats.url);
  try {
    const jsm = await jetstreamManager(admin);
    for (const name of before) await jsm.consumers.delete(busNames(prefix).stream, name);
  } finally {
    await admin.close();
  }
  await waitUntil(() => started.statuses.slice(-2).join() === 'stale,live' || started.statuses.slice(-3).join() === 'stale,resyncing,live' || undefined, 'the book stale, then live again', WAIT_MS);
  // Each feed notices its own consumer's silence (quiet streams by their heartbeats): every one replaced.
  const after = await waitUntil(async () => {
    const names = await consumerNames(prefix);
    return (names.length === started.streams && names.every((n) => !before.includes(n)) && names) || undefined;
  }, `${started.streams} new consumers`, 20_000);
  expect(after).toHaveLength(started.streams);
  await until(fleet, () => fleet!.allLive(), 'every replica live again');
  expect(diag.map(String).filter((d) => !/sent nothing/.test(d))).toEqual([]);
  await expectExact(sim!, fleet, 'after the consumers were replaced');
});

// A memory stream and bucket are lost in the restart: the relay recreates them and starts new
// epochs; JetStream sequences and KV revisions count again from 1 (a consumer must not take a
// new entry with an old entry's revision for the old one: a quiet stream would stay one short).
test.each(['file', 'memory'] as const)('after a nats-server restart (%s storage) the replicas are live again on new consumers, exact', async (storage) => {
  const prefix = `cs2${storage}`;
  const started = await start(prefix, 22, storage);
  fleet = started.fleet;
  await waitUntil(async () => (await consumerNames(prefix)).length === started.streams || undefined, `${started.streams} consumers`, WAIT_MS);
  const seen = started.statuses.length;
  await nats.restart();
  await waitUntil(() => (started.statuses.slice(seen).includes('stale') && started.statuses.at(-1) === 'live') || undefined, 'the book stale, then live again', WAIT_MS);
  await until(fleet, () => fleet!.allLive(), 'every replica live again');
  await waitUntil(async () => (await consumerNames(prefix)).length === started.streams || undefined, `${started.streams} consumers after the restart`, WAIT_MS);
  await expectExact(sim!, fleet, 'after the restart');
});
