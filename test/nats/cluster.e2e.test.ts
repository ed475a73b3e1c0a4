/**
 * The bus on a 3-node JetStream cluster (issue item 3): three nats-server processes on
 * 127.0.0.1 (test/nats/natsCluster.ts), the updates stream and the snapshot bucket replicated
 * (R3: `streamLimits.replicas`, `relay --replicas 3`), two relays (homed on n1 and n2, every
 * node's URL given) and four consumer processes (test/nats/busConsumerChild.ts: a BusClient
 * with books, BBO, stats, trades, funding and an account) homed on n1, n2, n3, n1 (each given
 * its node's URL only: the cluster tells it the others). Then the stream leader's node is
 * killed (SIGKILL) and, once it is back and current, the node relay A is connected to.
 *
 * At every checkpoint (engine paused) every consumer equals the truth: no gap, no duplicate,
 * no missing or unknown event, no replica live and wrong. Statuses may pass through `stale` or
 * `resyncing` meanwhile. How long each node loss cost each consumer (time some replica of it
 * was not live, from the kill to the checkpoint) is printed; ER_CLUSTER_ROUNDS repeats the two
 * losses to gather more figures.
 *
 * Every wait is for an answer or a status, bounded only to catch a hang: the machine (2 shared
 * cores) runs three servers, the simulator, two relays and four consumer processes.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { connect } from '@nats-io/transport-node';
import { accountStreams, marketStreams, type ReplicaRelay } from '../../src/nats';
import { busNames } from '../../src/nats/busProtocol';
import type { Simulator } from '../../src/simulator';
import type { FleetSpec } from '../e2e/ReplicaFleet';
import { TsxChild } from '../cli/spawnTsx';
import { startRelay, startSim, waitUntil } from './busHarness';
import { NatsCluster, type ClusterNode } from './natsCluster';

/** JetStream API requests during and right after an election on a loaded machine: a hang guard, not nats.js's 5 s default. */
const JS_TIMEOUT_MS = 60_000;

/** Hang guard of the whole test (three servers, two relays, four consumers, two node losses a round). */
jest.setTimeout(15 * 60_000);

/** A wait for an event: it only catches a hang. */
const WAIT_MS = 120_000;
const CONSUMERS = 4;
const MARKET_CHANNELS = ['book', 'bbo', 'marketStats', 'trades', 'fundingRates'] as const;
const PREFIX = 'cl';
const NAMES = busNames(PREFIX);
const ROUNDS = Math.max(1, Number(process.env.ER_CLUSTER_ROUNDS ?? 1) || 1);

let cluster: NatsCluster | undefined;
let sim: Simulator | undefined;
let nc: NatsConnection | undefined;
const relays: ReplicaRelay[] = [];
/** What each relay survived (for failure messages). */
const relayErrors = new Map<string, string[]>();
const children: TsxChild[] = [];

afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  for (const r of relays) await r.close().catch(() => undefined);
  await nc?.close().catch(() => undefined);
  await sim?.stop();
  await cluster?.stop();
});

interface StatusLine {
  readonly type: 'status';
  readonly allLive: boolean;
  readonly notLive: string[];
  readonly sawStale: boolean;
  readonly resyncs: Record<string, number>;
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
interface OutagesLine {
  readonly type: 'outages';
  readonly outages: [number, number | null][];
}

async function ask<T>(child: TsxChild, cmd: string, type: string, ms = WAIT_MS): Promise<T> {
  const from = child.lines.length;
  child.write(`${cmd}\n`);
  const line = await child.waitForLine((l) => l.startsWith(`{"type":"${type}"`), `${type} answer`, ms, from);
  return JSON.parse(line) as T;
}

const statuses = () => Promise.all(children.map((c) => ask<StatusLine>(c, 'status', 'status')));

function describeRelays(): string {
  return JSON.stringify(relays.map((r) => ({ id: r.relayId, node: r.nats.info?.server_name, errors: (relayErrors.get(r.relayId) ?? []).slice(-8), streams: r.describe().map((d) => `${d.streamKey} ${d.status} pub ${d.publishedSeq} snap ${d.snapshotSequence} syncs ${d.syncs}`), breaks: Object.fromEntries(Object.entries(r.breakCounts()).map(([k, b]) => [k, Object.entries(b).filter(([, n]) => n > 0)])) })));
}

async function allConsumers(pred: (s: StatusLine) => boolean, what: string): Promise<StatusLine[]> {
  let last: StatusLine[] = [];
  return waitUntil(
    async () => {
      last = await statuses();
      return last.every(pred) ? last : undefined;
    },
    what,
    WAIT_MS,
    100,
  ).catch((e: Error) => {
    throw new Error(`${e.message}: ${JSON.stringify(last.map((s) => ({ notLive: s.notLive, errors: s.errors })))}; relays ${describeRelays()}\n${cluster!.output()}`);
  });
}

/**
 * Every consumer, with the engine paused, equals the truth: no gap marker, no duplicate,
 * nothing missing or altered, nothing live and wrong.
 */
async function expectExact(s: Simulator, label: string): Promise<CheckpointLine[]> {
  s.pause();
  try {
    // The consumers converge on their own (a lost JetStream consumer is replaced after its idle heartbeats): the bound only catches a hang.
    const results = await Promise.all(children.map((c) => ask<CheckpointLine>(c, `checkpoint ${WAIT_MS - 10_000}`, 'checkpoint', WAIT_MS)));
    results.forEach((r, i) => {
      const { checked, gapped, examples, ...faults } = r.events ?? { checked: 0, gapped: -1 };
      const got = { label, consumer: i, error: r.error, notConverged: r.notConverged, divergences: r.divergences, gapped, ...faults, examples };
      const want = { label, consumer: i, error: undefined, notConverged: [], divergences: [], gapped: 0, duplicates: 0, missing: 0, mismatched: 0, unknown: 0, examples: [] };
      // eslint-disable-next-line no-console
      if (JSON.stringify(got) !== JSON.stringify(want)) console.log(`checkpoint ${label}, consumer ${i}: relays ${describeRelays()}`);
      expect(got).toEqual(want);
      expect({ label, consumer: i, checked: (checked ?? 0) > 0 }).toEqual({ label, consumer: i, checked: true });
    });
    return results;
  } finally {
    s.resume();
  }
}

/** Per consumer: ms some replica was not live between `from` and `to` (wall clock). */
async function notLiveMs(from: number, to: number): Promise<number[]> {
  const lines = await Promise.all(children.map((c) => ask<OutagesLine>(c, 'outages', 'outages')));
  return lines.map((l) => l.outages.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b ?? to, to) - Math.max(a, from)), 0));
}

async function streamLeader(jsm: JetStreamManager, stream: string): Promise<string> {
  return waitUntil(async () => (await jsm.streams.info(stream).catch(() => undefined))?.cluster?.leader || undefined, `a leader of ${stream}`, WAIT_MS, 100);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

test('a 3-node JetStream cluster, R3: consumers stay exact through the loss of the stream leader\'s node and of a relay\'s node', async () => {
  const started = Date.now();
  const c = await NatsCluster.start(3);
  cluster = c;
  const [n1, n2, n3] = c.nodes as [ClusterNode, ClusterNode, ClusterNode];
  sim = await startSim({ eventsPerSecond: 300, seed: 7 });
  const s = sim;
  const trader = s.engine.accounts[1]!.address;
  const spec: FleetSpec = { markets: [{ market_type: 'perp', market_id: 1 }], resolutions: [], markResolutions: [], accounts: [{ address: trader, subaccount_id: 0 }] };
  const streams = [...marketStreams('perp', 1, MARKET_CHANNELS), ...accountStreams(trader, 0)];
  // Relay A on n1, B on n2: each given every node (its own first, in that order).
  for (const [id, home] of [
    ['relay-a', n1],
    ['relay-b', n2],
  ] as const) {
    const urls = [home.url, ...c.urls.filter((u) => u !== home.url)];
    relays.push(
      await startRelay(s, urls[0]!, {
        natsUrl: urls,
        natsOptions: { maxReconnectAttempts: -1, noRandomize: true },
        prefix: PREFIX,
        relayId: id,
        streams,
        snapshotAheadMs: 1000,
        heartbeatMs: 1000,
        streamLimits: { replicas: 3 },
        onError: (e) => {
          const list = relayErrors.get(id) ?? [];
          list.push(`${new Date().toISOString()} ${String(e)}`.slice(0, 400));
          relayErrors.set(id, list.slice(-50));
        },
      }),
    );
  }
  const [relayA] = relays as [ReplicaRelay, ReplicaRelay];
  expect(relays.map((r) => r.nats.info?.server_name)).toEqual(['n1', 'n2']);
  await waitUntil(() => relays.every((r) => r.describe().every((d) => d.status === 'live')), 'both relays live', WAIT_MS);

  nc = await connect({ servers: c.urls });
  const jsm = await jetstreamManager(nc, { timeout: JS_TIMEOUT_MS });
  // The updates stream and the snapshot bucket are replicated on the three nodes.
  for (const name of [NAMES.stream, `KV_${NAMES.bucket}`]) {
    const info = await jsm.streams.info(name);
    expect({ name, replicas: info.config.num_replicas, peers: [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((p) => p.name)].sort() }).toEqual({ name, replicas: 3, peers: ['n1', 'n2', 'n3'] });
  }

  const homes = [n1, n2, n3, n1];
  for (let i = 0; i < CONSUMERS; i++) children.push(new TsxChild('test/nats/busConsumerChild.ts', [homes[i]!.url, PREFIX, s.restUrl, JSON.stringify(spec)]));
  await Promise.all(children.map((ch) => ch.waitForLine((l) => l === '{"type":"ready"}', 'ready', WAIT_MS)));
  await allConsumers((x) => x.allLive, 'every consumer live');
  await expectExact(s, 'steady');

  const figures: { loss: string; node: string; notLiveMs: number[]; recoveredMs: number }[] = [];
  /** Kills `node`, waits for every relay and consumer to be live again, checks them, brings the node back (current). */
  const loseNode = async (loss: string, node: ClusterNode): Promise<void> => {
    const killedAt = Date.now();
    await node.kill();
    await waitUntil(() => relays.every((r) => r.describe().every((d) => d.status === 'live')) || undefined, `both relays live after losing ${node.name}`, WAIT_MS).catch((e: Error) => {
      throw new Error(`${e.message}: ${describeRelays()}\n${c.output()}`);
    });
    await allConsumers((x) => x.allLive, `every consumer live after losing ${node.name} (${loss})`);
    await expectExact(s, `after losing ${node.name} (${loss})`);
    const checkedAt = Date.now();
    figures.push({ loss, node: node.name, notLiveMs: await notLiveMs(killedAt, checkedAt), recoveredMs: checkedAt - killedAt });
    // The node comes back and catches up (its /healthz: every stream it holds current) before the next loss.
    await node.launch();
    await c.waitHealthy(c.nodes, WAIT_MS);
  };

  for (let round = 0; round < ROUNDS; round++) {
    const leader = await streamLeader(jsm, NAMES.stream);
    await loseNode('stream leader', c.node(leader));
    const relayNode = relayA.nats.info?.server_name;
    expect(relayNode).toBeDefined();
    await loseNode('relay A\'s node', c.node(relayNode!));
  }

  // The relays carry on and every consumer is still exact with every node back.
  await allConsumers((x) => x.allLive, 'every consumer live with the three nodes');
  await expectExact(s, 'with the three nodes back');
  const final = await statuses();
  final.forEach((x, i) => expect({ consumer: i, observableErrors: x.observableErrors }).toEqual({ consumer: i, observableErrors: [] }));
  await Promise.all(
    children.map(async (ch) => {
      ch.write('exit\n');
      expect(await ch.waitForExit(WAIT_MS)).toEqual({ code: 0, signal: null });
    }),
  );

  const all = figures.flatMap((f) => f.notLiveMs);
  // eslint-disable-next-line no-console
  console.log(
    [
      `cluster test: ${Date.now() - started} ms, ${ROUNDS} round(s)`,
      ...figures.map((f) => `lost ${f.node} (${f.loss}): not live per consumer ${f.notLiveMs.map((x) => `${x} ms`).join(', ')}; checkpoint passed ${f.recoveredMs} ms after the kill`),
      `node loss, time not live per consumer: median ${median(all)} ms, max ${Math.max(...all)} ms (${all.length} samples)`,
      `CLUSTER_FIGURES ${JSON.stringify(figures)}`,
    ].join('\n'),
  );
});
