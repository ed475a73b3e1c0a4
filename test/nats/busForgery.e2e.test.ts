/**
 * Sanity inside a trusted bus (issue item 2): a consumer believes nothing no relay could send.
 * Each forgery is what anyone who can publish on an unauthenticated bus could do, done here
 * with a plain NATS connection against a real nats-server, a relay and the simulator's truth:
 * - a heartbeat announcing `intervalMs: 1e12`: judged at the default interval, so the stream
 *   goes stale a few seconds after the only relay stopped (it stayed live for good);
 * - a KV entry at seq 10^15: the relay replaces it (an entry ahead of its own stream), a
 *   running consumer that resyncs falls back to the stream, a consumer that starts meanwhile
 *   waits for the next write; every one is live and exact (they froze in resyncing, or showed
 *   the forged state);
 * - a batch published first under the relay's next message id (JetStream then drops the
 *   relay's real batch as a duplicate): the relay sees that the stored message is not its
 *   batch, publishes a reset and starts a new epoch; the consumer resyncs and is exact (it
 *   stayed live and wrong for good).
 */
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BusClient, type ReplicaRelay } from '../../src/nats';
import { busNames, encodeHeartbeat, encodeSnapshotRecord, encodeUpdateBatch, encodeUpdateMessage, heartbeatSubject, messageId, snapshotKey, updateMessagePrefix, updateSubject } from '../../src/nats/busProtocol';
import { streamKey } from '../../src/protocol';
import type { Simulator } from '../../src/simulator';
import { truthOf } from '../helpers/truth';
import { readSnapshot, startRelay, startSim, waitUntil } from './busHarness';
import { BookWatch } from './bookWatch';
import { NatsServer } from './natsServer';

jest.setTimeout(120_000);

const BOOK = { channel: 'book' as const, scope: { market_id: 0, is_perps: true } };
const BOOK_KEY = streamKey(BOOK.channel, BOOK.scope);

let nats: NatsServer;
let sim: Simulator | undefined;
let relay: ReplicaRelay | undefined;
let forger: NatsConnection | undefined;
const clients: BusClient[] = [];
const watches: BookWatch[] = [];

beforeAll(async () => {
  nats = await NatsServer.start();
});
afterAll(async () => {
  await nats?.stop();
});
afterEach(async () => {
  for (const w of watches.splice(0)) w.stop();
  for (const c of clients.splice(0)) await c.close();
  await relay?.close();
  await forger?.close();
  await sim?.stop();
  relay = undefined;
  forger = undefined;
  sim = undefined;
});

function client(prefix: string, errors?: unknown[]): BusClient {
  const c = new BusClient({ natsUrl: nats.url, prefix, replica: { livenessMs: 0 }, ...(errors ? { onError: (e: unknown) => void errors.push(e) } : {}) });
  clients.push(c);
  return c;
}

function watch(c: BusClient): BookWatch {
  const w = new BookWatch(c, 0);
  watches.push(w);
  return w;
}

test('a heartbeat announcing intervalMs 1e12 does not keep a stream live: stale a few seconds after the only relay stopped', async () => {
  const prefix = 'fhb';
  sim = await startSim({ seed: 31 });
  relay = await startRelay(sim, nats.url, { prefix, relayId: 'relay-hb', streams: [BOOK] });
  const errors: unknown[] = [];
  const c = client(prefix, errors);
  const w = watch(c);
  await w.until('live');

  forger = await connect({ servers: nats.url });
  const names = busNames(prefix);
  forger.publish(heartbeatSubject(names, 'ghost'), encodeHeartbeat({ ...relay.heartbeat(), relayId: 'ghost', intervalMs: 1e12 }));
  await forger.flush();
  await waitUntil(() => c.bus.carried().some((s) => s.relays.some((r) => r.relayId === 'ghost')), 'the forged heartbeat read');

  await relay.close();
  relay = undefined;
  await w.until('stale', 'the book stale once the only relay stopped (the forged heartbeat judged at 1000 ms)');
  expect(errors.map(String).join('\n')).toMatch(/relay "ghost" announces an interval of 1000000000000 ms, outside what a relay may announce \(10 to 60000 ms\): judged at 1000 ms/);
});

test('a KV entry at seq 10^15: the relay replaces it, a resyncing consumer falls back to the stream, a new one waits for the next write; all exact', async () => {
  const prefix = 'fkv';
  const names = busNames(prefix);
  sim = await startSim({ seed: 32 });
  relay = await startRelay(sim, nats.url, { prefix, relayId: 'relay-kv', streams: [BOOK], snapshotRefreshMs: 2000 });
  const errors: unknown[] = [];
  const running = watch(client(prefix, errors));
  await running.until('live');
  expect(await running.diffAtCheckpoint(sim)).toEqual([]);

  forger = await connect({ servers: nats.url });
  const key = snapshotKey(BOOK.channel, BOOK.scope);
  const entry = (await readSnapshot(forger, names, key))!.record;
  const kv = await new Kvm(jetstream(forger)).open(names.bucket);
  await kv.put(key, encodeSnapshotRecord({ ...entry, sequence: 10n ** 15n, relayId: 'forger', writtenAtNs: entry.writtenAtNs + 1n }));

  // A consumer that starts while the forged entry is there, and the running one resyncing (the relay's feed resyncs: a hole on the bus).
  const fresh = watch(client(prefix, errors));
  sim.faults.skipSilently(BOOK_KEY, 2);
  await waitUntil(() => running.statuses.includes('resyncing'), 'the running consumer to resync (the hole on the bus)');
  expect(await running.diffAtCheckpoint(sim)).toEqual([]);
  expect(await fresh.diffAtCheckpoint(sim)).toEqual([]);
  const now = await readSnapshot(forger, names, key);
  expect({ relayId: now?.record.relayId, below: now !== undefined && now.record.sequence < 10n ** 15n }).toEqual({ relayId: 'relay-kv', below: true });
  // The forged sequence was never shown.
  expect([running.latest!.seq, fresh.latest!.seq].every((s) => s < 10n ** 15n)).toBe(true);
});

test("a batch published first under the relay's next message id: the relay resets and starts a new epoch, the consumer resyncs and is exact", async () => {
  const prefix = 'fdup';
  const names = busNames(prefix);
  sim = await startSim({ seed: 33 });
  const r = await startRelay(sim, nats.url, { prefix, relayId: 'relay-dup', streams: [BOOK] });
  relay = r;
  const errors: unknown[] = [];
  const c = client(prefix, errors);
  const w = watch(c);
  await w.until('live');

  // The exchange paused at P, the relay and the consumer at P.
  sim.pause();
  const P = truthOf(sim, BOOK.channel, BOOK.scope).sequence;
  await waitUntil(() => r.describe()[0]!.publishedSeq === P && w.latest?.seq === P, `the relay and the consumer at ${P}`);

  // The forger publishes update P + 1 (a bid level at tick 1) under the id the relay's next batch will have.
  forger = await connect({ servers: nats.url });
  const frame = encodeUpdateMessage(updateMessagePrefix('book', BOOK_KEY), 'book', P + 1n, 1n, { bids: [{ price_ticks: '1', size_base_lots: '777' }], asks: [] });
  await jetstream(forger).publish(updateSubject(names, BOOK.channel, BOOK.scope), encodeUpdateBatch(P + 1n, [frame]), { msgID: messageId(BOOK_KEY, P + 1n, P + 1n) });
  await waitUntil(() => w.latest?.seq === P + 1n, 'the consumer to apply the forged update');

  // The exchange's real P + 1: the relay's batch [P+1..P+1] is answered as a duplicate of the forged one.
  const liveAt = w.statuses.length;
  while (truthOf(sim, BOOK.channel, BOOK.scope).sequence === P) sim.step(1);
  expect(truthOf(sim, BOOK.channel, BOOK.scope).sequence).toBe(P + 1n);
  await waitUntil(() => w.statuses.slice(liveAt).includes('resyncing'), 'the consumer to resync after the forged update');
  sim.resume();
  expect(await w.diffAtCheckpoint(sim)).toEqual([]);
  expect(r.breakCounts()[BOOK_KEY]!.duplicate_conflict).toBe(1);
  expect(errors.map(String).join('\n')).toMatch(/a relay reset book\|market_id=0\|is_perps=true at stream sequence \d+/);
});
