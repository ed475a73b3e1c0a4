/**
 * Two relays on the same streams (high availability): JetStream stores a batch once (message
 * id `<streamKey>#<first>-<last>`: the other relay's batch with the same bounds is dropped),
 * batches cut differently may overlap, and the subject read with the consumer's rule (keep
 * what is above the last update kept) yields every update once, in seq order, without a
 * hole; killing one relay (SIGKILL of an `exchange-replica relay` process) loses nothing.
 */
import { busNames, type BusNames } from '../../src/nats/busProtocol';
import type { ReplicaRelay } from '../../src/nats';
import { streamKey } from '../../src/protocol';
import type { Simulator } from '../../src/simulator';
import { TsxChild } from '../cli/spawnTsx';
import { consumerView, natsConnect, readSubject, startRelay, startSim, truth, waitUntil, type BusMessage } from './busHarness';
import { NatsServer } from './natsServer';
import { WAIT_MS } from '../helpers/deadlines';

jest.setTimeout(120_000);

const BOOK = { channel: 'book', scope: { market_id: 0, is_perps: true } } as const;
const TRADES = { channel: 'trades', scope: { market_id: 0, is_perps: true } } as const;
const BOOK_KEY = streamKey(BOOK.channel, BOOK.scope);
const TRADES_KEY = streamKey(TRADES.channel, TRADES.scope);

let nats: NatsServer;
let prefixes = 0;
const nextNames = () => busNames(`ha${++prefixes}`);

beforeAll(async () => {
  nats = await NatsServer.start();
});
afterAll(async () => {
  await nats?.stop();
});

/** Read with the consumer's rule: each seq once, in order, without a hole, from the first stored one to `last`. */
function expectEveryUpdateOnce(msgs: readonly BusMessage[], last: bigint): void {
  expect(msgs.length).toBeGreaterThan(0);
  const seqs = consumerView(msgs).map((m) => m.seq);
  expect(new Set(seqs).size).toBe(seqs.length);
  seqs.forEach((s, i) => i > 0 && expect(s).toBe(seqs[i - 1]! + 1n));
  expect(seqs[seqs.length - 1]).toBe(last);
}

describe('two relays on the same streams', () => {
  let sim: Simulator | undefined;
  const relays: ReplicaRelay[] = [];
  const children: TsxChild[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop();
    for (const r of relays.splice(0)) await r.close();
    await sim?.stop();
    sim = undefined;
  });

  async function pauseAtTruth(names: BusNames, alive: readonly ReplicaRelay[]): Promise<{ book: bigint; trades: bigint }> {
    sim!.pause();
    const book = truth(sim!, 'orderBook', { market_type: 'perp', market_id: 0, depth: 10 }).sequence;
    const trades = truth(sim!, 'trades', { market_type: 'perp', market_id: 0, limit: 1 }).sequence;
    const at = (r: ReplicaRelay, key: string) => r.describe().find((d) => d.streamKey === key)!.publishedSeq;
    await waitUntil(() => alive.every((r) => at(r, BOOK_KEY) === book && at(r, TRADES_KEY) === trades), `the relays at book ${book}, trades ${trades} (${names.prefix})`);
    return { book, trades };
  }

  it('stores each update once however many relays publish it', async () => {
    sim = await startSim({ eventsPerSecond: 400 });
    const names = nextNames();
    const a = await startRelay(sim, nats.url, { prefix: names.prefix, relayId: 'a', streams: [BOOK, TRADES] });
    relays.push(a);
    const b = await startRelay(sim, nats.url, { prefix: names.prefix, relayId: 'b', streams: [BOOK, TRADES] });
    relays.push(b);
    await waitUntil(() => [a, b].every((r) => r.describe().every((d) => d.status === 'live' && d.published >= 100)), 'both relays live and publishing');
    const last = await pauseAtTruth(names, [a, b]);

    const nc = await natsConnect(nats.url);
    try {
      for (const [key, upTo] of [
        [BOOK_KEY, last.book],
        [TRADES_KEY, last.trades],
      ] as const) {
        const subject = a.describe().find((d) => d.streamKey === key)!.subject;
        const msgs = await readSubject(nc, names, subject, 1, upTo);
        expectEveryUpdateOnce(msgs, upTo);
        // Every PubAck either stored a batch or named the copy already stored (with the same bounds).
        const acks = [a, b].map((r) => r.describe().find((d) => d.streamKey === key)!);
        expect(acks.reduce((n, d) => n + d.published - d.duplicates, 0)).toBe(msgs.length);
        expect(acks.reduce((n, d) => n + d.duplicates, 0)).toBeGreaterThan(0);
        for (const m of msgs) expect(m.msgId).toBe(`${key}#${m.first}-${m.last}`);
      }
    } finally {
      await nc.close();
    }
  });

  it('loses nothing when one relay process is killed', async () => {
    sim = await startSim({ eventsPerSecond: 400 });
    const names = nextNames();
    // Relay A: the CLI in a child process.
    const child = new TsxChild('src/cli/main.ts', [
      'relay', '--rest-url', sim.restUrl, '--nats', nats.url, '--markets', 'perp:0', '--channels', 'book,trades',
      '--prefix', names.prefix, '--relay-id', 'a', '--heartbeat-ms', '200', '--refresh-ms', '500', '--status-ms', '1000',
    ]);
    children.push(child);
    await child.waitForLine((l) => l === `status ${BOOK_KEY} live`, 'relay A: book live', 60_000);
    await child.waitForLine((l) => l === `status ${TRADES_KEY} live`, 'relay A: trades live', WAIT_MS);
    // Relay B in this process.
    const b = await startRelay(sim, nats.url, { prefix: names.prefix, relayId: 'b', streams: [BOOK, TRADES] });
    relays.push(b);
    await waitUntil(() => b.describe().every((d) => d.status === 'live' && d.published >= 50), 'relay B live and publishing');
    const nc = await natsConnect(nats.url);
    try {
      const subject = b.describe().find((d) => d.streamKey === BOOK_KEY)!.subject;
      // A has been storing too.
      await waitUntil(async () => (await readSubject(nc, names, subject)).some((m) => m.relayId === 'a'), 'messages stored by relay A');
      child.signal('SIGKILL');
      const exit = await child.waitForExit(WAIT_MS);
      expect(exit.signal).toBe('SIGKILL');
      const killedAt = b.describe().find((d) => d.streamKey === BOOK_KEY)!.publishedSeq!;
      await waitUntil(() => b.describe().find((d) => d.streamKey === BOOK_KEY)!.publishedSeq! > killedAt + 100n, '100 more book updates after the kill');
      const last = await pauseAtTruth(names, [b]);
      for (const [key, upTo] of [
        [BOOK_KEY, last.book],
        [TRADES_KEY, last.trades],
      ] as const) {
        const msgs = await readSubject(nc, names, b.describe().find((d) => d.streamKey === key)!.subject, 1, upTo);
        expectEveryUpdateOnce(msgs, upTo);
      }
      expect(b.describe().every((d) => d.status === 'live')).toBe(true);
    } finally {
      await nc.close();
    }
  });
});
