/**
 * A BusClient reading crafted batches from a real nats-server (no relay: this test plays it,
 * writing the stream, the KV entry and the heartbeats itself), so that the batches can be cut
 * as two HA relays may cut them: overlapping batches (stored under different message ids) and
 * a batch wholly below what was delivered are trimmed, every update is emitted once and in
 * order; a gap between batches resyncs from the KV entry; a batch whose frames do not match
 * its head, and a message of the previous format version (one bare update frame), are never
 * applied, the latter reported with the version named.
 */
import { jetstreamManager, jetstream, RetentionPolicy, DiscardPolicy, StorageType, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Subscription } from 'rxjs';
import { BusClient } from '../../src/nats';
import { BUS_FORMAT_VERSION, busNames, DEFAULT_STREAM_LIMITS, encodeHeartbeat, encodeSnapshotRecord, encodeUpdateBatch, encodeUpdateMessage, heartbeatSubject, messageId, snapshotKey, updateMessagePrefix, updateStreamConfig, updateSubject } from '../../src/nats/busProtocol';
import { streamKey } from '../../src/protocol';
import type { OrderBook } from '../../src/replicas/book';
import { natsConnect, waitUntil } from './busHarness';
import { NatsServer } from './natsServer';

const names = busNames('bt1');
const SCOPE = { market_id: 0, is_perps: true } as const;
const KEY = streamKey('book', SCOPE);
const SUBJECT = updateSubject(names, 'book', SCOPE);
const PREFIX = updateMessagePrefix('book', KEY);
const PRICE = '100';

/** The book after update `seq`: one bid at PRICE whose size is the seq (so the book tells which update it applied last). */
const bookAt = (seq: bigint) => ({ bids: [{ price_ticks: PRICE, size_base_lots: String(seq) }], asks: [] });
const frame = (seq: bigint) => encodeUpdateMessage(PREFIX, 'book', seq, 1_700_000_000_000_000_000n + seq, bookAt(seq));
const batchText = (first: bigint, last: bigint) => {
  const frames: string[] = [];
  for (let s = first; s <= last; s++) frames.push(frame(s));
  return encodeUpdateBatch(first, frames);
};

let nats: NatsServer;
let nc: NatsConnection;
let js: JetStreamClient;
let kv: KV;
let heartbeats: ReturnType<typeof setInterval> | undefined;
let client: BusClient | undefined;
let sub: Subscription | undefined;

beforeAll(async () => {
  nats = await NatsServer.start();
  nc = await natsConnect(nats.url);
  const jsm = await jetstreamManager(nc);
  const wire = updateStreamConfig(names, { ...DEFAULT_STREAM_LIMITS, storage: 'memory' });
  await jsm.streams.add({ ...wire, subjects: [...wire.subjects], retention: RetentionPolicy.Limits, discard: DiscardPolicy.Old, storage: StorageType.Memory });
  js = jetstream(nc);
  kv = await new Kvm(js).create(names.bucket, { history: 1, storage: StorageType.Memory });
});
afterAll(async () => {
  if (heartbeats !== undefined) clearInterval(heartbeats);
  sub?.unsubscribe();
  await client?.close();
  await nc?.close();
  await nats?.stop();
});

/** Stores a batch as a relay would (message id from its bounds); the JetStream sequence it got. */
async function publish(text: string, id: string): Promise<number> {
  return (await js.publish(SUBJECT, text, { msgID: id })).seq;
}
const publishBatch = (first: bigint, last: bigint) => publish(batchText(first, last), messageId(KEY, first, last));

/** The newest snapshot written: the heartbeats vouch for it, as a relay's do (a consumer believes no entry ahead of the stream that no relay vouches for). */
let written: bigint | null = null;

async function writeSnapshot(sequence: bigint, jsStartSeq: number): Promise<void> {
  written = sequence;
  await kv.put(
    snapshotKey('book', SCOPE),
    encodeSnapshotRecord({ v: BUS_FORMAT_VERSION, streamKey: KEY, channel: 'book', scope: SCOPE, subject: SUBJECT, operation: 'orderBook', sequence, timestampNs: 1n, data: bookAt(sequence), jsStream: names.stream, jsStartSeq, writtenAtNs: 1n, relayId: 'test' }),
  );
}

function beat(): void {
  nc.publish(
    heartbeatSubject(names, 'test'),
    encodeHeartbeat({
      v: BUS_FORMAT_VERSION, relayId: 'test', state: 'running', atNs: 1n, intervalMs: 100, snapshotRefreshMs: 1000, feed: 'open', jsStream: names.stream, bucket: names.bucket,
      streams: [{ streamKey: KEY, channel: 'book', scope: SCOPE, subject: SUBJECT, snapshotKey: snapshotKey('book', SCOPE), status: 'live', publishedSeq: null, snapshotSequence: written, published: 0, duplicates: 0, messages: 0, syncs: 1 }],
    }),
  );
}

test('trims overlapping batches, resyncs on a gap, never applies a malformed batch or one of another format version', async () => {
  await writeSnapshot(10n, 1);
  heartbeats = setInterval(beat, 100);
  beat();
  const errors: string[] = [];
  client = new BusClient({ natsUrl: nats.url, prefix: names.prefix, replica: { livenessMs: 0 }, onError: (e) => errors.push(String(e)) });
  const applied: bigint[] = [];
  let status = '';
  let size = '';
  sub = client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe((e) => {
    status = e.status;
    if (e.cause === 'update') applied.push(e.seq);
    size = (e.state as OrderBook | undefined)?.top(1).bids[0]?.size_base_lots ?? '';
  });
  const at = (seq: bigint, what: string) => waitUntil(() => status === 'live' && size === String(seq), `${what}: live at ${seq} (status ${status}, size ${size})`);
  const resyncs = () => Object.values(client!.resyncCounts()).reduce((a, b) => a + b, 0);
  await at(10n, 'the snapshot');

  // Two relays' cuts: [11..13] and [11..15] both stored (different ids), then [14..16], [16..18]; [12..12] and a
  // second [14..16] (same id: JetStream drops it) add nothing.
  const stored = [await publishBatch(11n, 13n), await publishBatch(11n, 15n), await publishBatch(14n, 16n), await publishBatch(12n, 12n), await publishBatch(14n, 16n), await publishBatch(16n, 18n)];
  expect(stored[4]).toBe(stored[2]); // the duplicate names the stored copy
  await at(18n, 'overlapping batches');
  expect(applied).toEqual([11n, 12n, 13n, 14n, 15n, 16n, 17n, 18n]);
  expect(resyncs()).toBe(0);

  // A gap between batches (19, 20 never stored): the replica resyncs, and waits for a KV entry past the hole.
  const gapAt = await publishBatch(21n, 22n);
  await waitUntil(() => status !== 'live', 'the replica leaving live on the gap');
  await writeSnapshot(22n, gapAt);
  await publishBatch(23n, 24n);
  await at(24n, 'after the gap');
  // 21 and 22 never applied after 18 (23 and 24 may come folded onto the new snapshot rather than as updates).
  expect(applied.filter((s) => s > 18n && s < 23n)).toEqual([]);
  expect(client.resyncCounts().seq_jump).toBeGreaterThanOrEqual(1);

  // A batch whose frames do not match its head (25 then 27 under 25..26): refused whole, nothing of it applied.
  const bad = `{"v":${BUS_FORMAT_VERSION},"first":"25","last":"26"}\n${frame(25n)}\n${frame(27n)}`;
  await publish(bad, messageId(KEY, 25n, 26n) + '-bad');
  await waitUntil(() => errors.some((e) => /frame 1 of batch 25..26 holds seq 27/.test(e)), 'the malformed batch reported');
  expect(size).toBe('24'); // not even its valid first frame
  await publishBatch(25n, 26n);
  await at(26n, 'after the malformed batch');

  // A version 2 message (one bare update frame): refused, and the error names the versions.
  await publish(frame(27n), `${KEY}#27`);
  await waitUntil(() => errors.some((e) => /bare update frame \(bus format version 2\), this reader reads version 3/.test(e)), 'the old-version message reported');
  expect(size).toBe('26');
  await publishBatch(27n, 27n);
  await at(27n, 'after the old-version message');
  // Every update applied once, in order.
  expect(applied).toEqual([...applied].sort((a, b) => (a < b ? -1 : 1)));
  expect(new Set(applied).size).toBe(applied.length);
});
