/**
 * Many processes, one feed: the simulator, two relays and four consumer processes
 * (test/nats/busConsumerChild.ts, each a BusClient with books, BBO, stats, trades, funding
 * and an account). At checkpoints (engine paused) every consumer replica equals the truth,
 * events exactly once. One relay dies (its NATS connection cut, no closing heartbeat):
 * consumers stay live with no gap, no resync and no duplicate. nats-server stops and comes
 * back: consumers go stale, then live and exact. Simulator faults on the relays' feeds
 * (drops, resync_required, silent gaps): consumers exact again. The exchange sees one feed
 * connection per relay whatever the number of consumers. The consumers leave: their
 * JetStream consumers are deleted.
 *
 * Bounds are generous (a loaded 2-core machine: the simulator, two relays, four consumer
 * processes and nats-server share it); every wait is on an answer or a status, never a sleep.
 */
import { accountStreams, marketStreams, type ReplicaRelay } from '../../src/nats';
import type { Simulator } from '../../src/simulator';
import type { FleetSpec } from '../e2e/ReplicaFleet';
import { TsxChild } from '../cli/spawnTsx';
import { jetstreamManager } from '@nats-io/jetstream';
import { natsConnect, readSnapshot, startRelay, startSim, waitUntil } from './busHarness';
import { busNames } from '../../src/nats/busProtocol';
import { NatsServer } from './natsServer';
import { WAIT_MS } from '../helpers/deadlines';

jest.setTimeout(120_000);

const CONSUMERS = 4;
const MARKET_CHANNELS = ['book', 'bbo', 'marketStats', 'trades', 'fundingRates'] as const;
const PREFIX = 'fan';

let nats: NatsServer | undefined;
let sim: Simulator | undefined;
const relays: ReplicaRelay[] = [];
const children: TsxChild[] = [];

afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  for (const r of relays) await r.close().catch(() => undefined);
  await sim?.stop();
  await nats?.stop();
});

interface StatusLine {
  readonly type: 'status';
  readonly allLive: boolean;
  readonly notLive: string[];
  readonly sawStale: boolean;
  readonly resyncs: Record<string, number>;
  /** The relays whose heartbeats the consumer holds. */
  readonly relays: string[];
  readonly errors: string[];
  readonly observableErrors: string[];
}
interface CheckpointLine {
  readonly type: 'checkpoint';
  readonly error?: string;
  readonly notConverged: string[];
  readonly divergences: string[];
  readonly events: { duplicates: number; missing: number; mismatched: number; unknown: number; checked: number; gapped: number; examples: string[] };
  readonly waitedMs: number;
}

async function ask<T>(child: TsxChild, cmd: string, type: string, ms = WAIT_MS): Promise<T> {
  const from = child.lines.length;
  child.write(`${cmd}\n`);
  const line = await child.waitForLine((l) => l.startsWith(`{"type":"${type}"`), `${type} answer`, ms, from);
  return JSON.parse(line) as T;
}

const statuses = () => Promise.all(children.map((c) => ask<StatusLine>(c, 'status', 'status')));

async function allConsumers(pred: (s: StatusLine) => boolean, what: string, ms = WAIT_MS): Promise<StatusLine[]> {
  let last: StatusLine[] = [];
  return waitUntil(
    async () => {
      last = await statuses();
      return last.every(pred) ? last : undefined;
    },
    what,
    ms,
    100,
  ).catch(async (e: Error) => {
    const nc = await natsConnect(nats!.url);
    const kvView: string[] = [];
    for (const d of relays[1]!.describe()) {
      const r = await readSnapshot(nc, busNames(PREFIX), d.snapshotKey).catch((x: unknown) => String(x));
      kvView.push(typeof r === 'string' ? r : `${d.streamKey} S=${r?.record.sequence} rev=${r?.revision} js=${r?.record.jsStartSeq} by ${r?.record.relayId}`);
    }
    await nc.close();
    // eslint-disable-next-line no-console
    console.log('KV', kvView.join('\n'), '\nNATS', nats!.output().slice(-3000));
    const relayView = relays.map((r) => r.describe().map((d) => `${d.streamKey} ${d.status} pub ${d.publishedSeq} snap ${d.snapshotSequence} syncs ${d.syncs}`));
    throw new Error(`${e.message}: ${JSON.stringify(last.map((s) => ({ notLive: s.notLive, errors: s.errors })))}; relays ${JSON.stringify(relayView)}`);
  });
}

/** The JetStream consumers on the bus's updates stream now. */
async function consumerCount(): Promise<number> {
  const nc = await natsConnect(nats!.url);
  try {
    const jsm = await jetstreamManager(nc);
    return (await jsm.consumers.list(busNames(PREFIX).stream).next()).length;
  } finally {
    await nc.close();
  }
}

/** Every consumer, with the engine paused, equals the truth; returns the event findings. */
async function expectExact(s: Simulator, label: string): Promise<CheckpointLine[]> {
  s.pause();
  try {
    const results = await Promise.all(children.map((c) => ask<CheckpointLine>(c, 'checkpoint', 'checkpoint', 60_000)));
    results.forEach((r, i) => {
      const { checked, gapped: _g, examples, ...faults } = r.events ?? { checked: 0 };
      expect({ label, consumer: i, error: r.error, notConverged: r.notConverged, divergences: r.divergences, ...faults, examples }).toEqual({
        label,
        consumer: i,
        error: undefined,
        notConverged: [],
        divergences: [],
        duplicates: 0,
        missing: 0,
        mismatched: 0,
        unknown: 0,
        examples: [],
      });
      expect({ label, consumer: i, checked: (checked ?? 0) > 0 }).toEqual({ label, consumer: i, checked: true });
    });
    return results;
  } finally {
    s.resume();
  }
}

test('four consumer processes on two relays: exact at checkpoints, through a relay death, a NATS restart and feed faults', async () => {
  const started = Date.now();
  nats = await NatsServer.start();
  sim = await startSim({ eventsPerSecond: 300, seed: 5 });
  const trader = sim.engine.accounts[1]!.address;
  const spec: FleetSpec = { markets: [{ market_type: 'perp', market_id: 1 }], resolutions: [], markResolutions: [], accounts: [{ address: trader, subaccount_id: 0 }] };
  const streams = [...marketStreams('perp', 1, MARKET_CHANNELS), ...accountStreams(trader, 0)];
  // Heartbeats at the library's default (every second, stale after 3 missed).
  for (const id of ['relay-a', 'relay-b']) relays.push(await startRelay(sim, nats.url, { prefix: PREFIX, relayId: id, streams, snapshotAheadMs: 1000, heartbeatMs: 1000 }));
  const [relayA, relayB] = relays as [ReplicaRelay, ReplicaRelay];
  await waitUntil(() => relays.every((r) => r.describe().every((d) => d.status === 'live')), 'both relays live', WAIT_MS);

  for (let i = 0; i < CONSUMERS; i++) children.push(new TsxChild('test/nats/busConsumerChild.ts', [nats.url, PREFIX, sim.restUrl, JSON.stringify(spec)]));
  await Promise.all(children.map((c) => c.waitForLine((l) => l === '{"type":"ready"}', 'ready', 60_000)));
  await allConsumers((s) => s.allLive, 'every consumer live', WAIT_MS);
  // One feed connection per relay, whatever the number of consumers.
  expect(sim.faults.connections().length).toBe(2);
  await expectExact(sim, 'steady');

  // One relay dies (no closing heartbeat): the other one carries on, consumers notice nothing.
  await Promise.all(children.map((c) => ask(c, 'reset', 'reset')));
  const before = await statuses();
  await relayA.nats.close();
  await relayA.client.close();
  await waitUntil(() => sim!.faults.connections().length === 1 || undefined, 'the dead relay off the exchange', WAIT_MS);
  // Past the heartbeat timeout of the dead relay (3 intervals), with updates flowing.
  await allConsumers((s) => s.relays.join() === 'relay-b', 'every consumer past the dead relay\'s heartbeats', WAIT_MS);
  const checkpointsAfterKill = await expectExact(sim, 'after a relay died');
  const after = await statuses();
  after.forEach((s, i) => {
    // eslint-disable-next-line no-console
    if (s.sawStale) console.log(`consumer ${i} stale after the relay died:`, JSON.stringify(s));
    // Never stale, never disconnected (a resync from the KV on a seq jump is allowed: the two relays' publishes interleave).
    expect({ consumer: i, allLive: s.allLive, sawStale: s.sawStale, disconnected: s.resyncs['disconnected'] }).toEqual({ consumer: i, allLive: true, sawStale: false, disconnected: before[i]!.resyncs['disconnected'] });
  });
  checkpointsAfterKill.forEach((r, i) => expect({ consumer: i, gapped: r.events.gapped }).toEqual({ consumer: i, gapped: 0 }));
  expect(sim.faults.connections().length).toBe(1);

  // nats-server stops: every consumer goes stale; it comes back: live and exact.
  await nats.restart();
  await allConsumers((s) => s.sawStale, 'every consumer stale after the NATS restart');
  await allConsumers((s) => s.allLive, 'every consumer live again after the NATS restart', WAIT_MS);
  await expectExact(sim, 'after the NATS restart');

  // Faults on the surviving relay's feed: a drop, resync_required, silent gaps.
  const b = relayB;
  const breaksBefore = JSON.stringify(b.breakCounts());
  sim.faults.resyncStream('book|market_id=1|is_perps=true');
  sim.faults.skipSilently('trades|market_id=1|is_perps=true', 2);
  sim.faults.skipSilently('bbo|market_id=1|is_perps=true', 1);
  await waitUntil(() => JSON.stringify(b.breakCounts()) !== breaksBefore || undefined, 'the relay resynced', WAIT_MS);
  sim.faults.dropAll();
  await waitUntil(() => b.describe().every((d) => d.status === 'live') || undefined, 'the relay live again', WAIT_MS);
  await allConsumers((s) => s.allLive, 'every consumer live after the faults', WAIT_MS);
  await expectExact(sim, 'after feed faults');
  const final = await statuses();
  final.forEach((s, i) => expect({ consumer: i, observableErrors: s.observableErrors }).toEqual({ consumer: i, observableErrors: [] }));
  expect(sim.faults.connections().length).toBe(1);

  // The consumers leave: each deletes its JetStream consumers (well before their inactive_threshold).
  const consumersBefore = await consumerCount();
  expect(consumersBefore).toBeGreaterThan(0);
  await Promise.all(children.map(async (c) => {
    c.write('exit\n');
    expect(await c.waitForExit(WAIT_MS)).toEqual({ code: 0, signal: null });
  }));
  await waitUntil(async () => (await consumerCount()) === 0 || undefined, 'no JetStream consumer left', WAIT_MS);
  // eslint-disable-next-line no-console
  console.log(`bus fan-out test: ${Date.now() - started} ms`);
});
