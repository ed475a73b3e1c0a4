/**
 * Book frame fuzzing (seeded, bounded): between valid `book` updates the server sends
 * updates that cross the book, name a level twice, carry sizes or prices of the wrong type,
 * negative or beyond u64, or lack a side. Each is surfaced (typed error) and triggers a
 * resync; the connection stays open; once the valid stream goes on, the replica equals the
 * model book level by level.
 */
import fc from 'fast-check';
import { filter, firstValueFrom, timeout, type Subscription } from 'rxjs';
import { ExchangeClient, type ExchangeReplicaError, type OrderBook, type PriceLevel, type ReplicaState } from '../../src';
import { HttpStub } from '../helpers/HttpStub';
import { WsTestServer, type ServerConnection } from '../helpers/WsTestServer';
import { frameBarrier } from './frameBarrier';
import { WAIT_MS } from '../helpers/deadlines';

const TS = '1732200000000000000';
const MARKET = { market_type: 'spot', market_id: 3 } as const;

/** The model: bids below 100, asks above 100, so valid updates never cross. */
const model = { seq: 1n, bids: new Map<number, number>([[99, 5], [98, 7]]), asks: new Map<number, number>([[101, 4], [105, 2]]) };
const levels = (m: Map<number, number>, desc: boolean): PriceLevel[] =>
  [...m.entries()].sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0])).map(([p, s]) => ({ price_ticks: String(p), size_base_lots: String(s) }));
const modelBook = () => ({ bids: levels(model.bids, true), asks: levels(model.asks, false) });

/** A valid update: distinct levels per side, inside each side's range (size 0 removes). The best level of each side stays. */
const validArb = fc.record({
  bids: fc.uniqueArray(fc.tuple(fc.integer({ min: 1, max: 97 }), fc.integer({ min: 0, max: 50 })), { selector: (t) => t[0], maxLength: 4 }),
  asks: fc.uniqueArray(fc.tuple(fc.integer({ min: 102, max: 199 }), fc.integer({ min: 0, max: 50 })), { selector: (t) => t[0], maxLength: 4 }),
});

interface Garbage {
  readonly label: string;
  readonly data: unknown;
  /** Caught by the channel's schema (at once) rather than by the book's checks (when applied: at once if live, else when the snapshot comes). */
  readonly schema?: boolean;
}

const lv = (p: unknown, s: unknown) => ({ price_ticks: p, size_base_lots: s });
const garbageArb: fc.Arbitrary<Garbage> = fc.oneof(
  fc.integer({ min: 101, max: 300 }).map((p): Garbage => ({ label: `a bid at ${p} crossing the asks`, data: { bids: [lv(String(p), '3')], asks: [] } })),
  fc.integer({ min: 1, max: 99 }).map((p): Garbage => ({ label: `an ask at ${p} crossing the bids`, data: { bids: [], asks: [lv(String(p), '3')] } })),
  fc.constant<Garbage>({ label: 'the best bid removed and a lower one locked with the ask', data: { bids: [lv('101', '1')], asks: [] } }),
  fc.constantFrom<[string, unknown]>(
    ['size as a number', lv('50', 3)],
    ['negative size', lv('50', '-3')],
    ['size beyond u64', lv('50', '18446744073709551616')],
    ['non-numeric price', lv('5x', '1')],
    ['empty price', lv('', '1')],
    ['price as null', lv(null, '1')],
    ['fractional size', lv('50', '1.5')],
  ).map(([label, level]): Garbage => ({ label, data: { bids: [level], asks: [] }, schema: true })),
  fc.constantFrom<[string, unknown]>(
    ['no asks key', { bids: [] }],
    ['levels not an array', { bids: {}, asks: [] }],
    ['a level missing its size', { bids: [{ price_ticks: '50' }], asks: [] }],
    ['data is a list', [[50, 1]]],
    ['a bid level twice', { bids: [lv('50', '1'), lv('50', '2')], asks: [] }],
    ['an ask level twice, spelled two ways', { bids: [], asks: [lv('150', '1'), lv('0150', '2')] }],
  ).map(([label, data]): Garbage => ({ label, data, schema: true })),
);

describe('book frame fuzzing', () => {
  let server: WsTestServer;
  let stub: HttpStub;
  let client: ExchangeClient;
  let conn: ServerConnection;
  let sub: Subscription;
  let latest: ReplicaState<OrderBook> | undefined;
  const errors: ExchangeReplicaError[] = [];

  beforeAll(async () => {
    // Every garbage update costs a resync: the per-stream resync budget (one per second past a
    // burst of five by default) is not this test's subject, so it refills at once here.
    server = await WsTestServer.start();
    stub = await HttpStub.start();
    stub.route('/v1/orderBook', () => ({ json: { data: modelBook(), sequence: String(model.seq), timestamp_ns: TS } }));
    client = new ExchangeClient({ restUrl: stub.baseUrl, wsUrl: server.url, rest: { retry: { retries: 0 } }, resync: { retry: { retries: 50, initialDelayMs: 1, maxDelayMs: 5 } }, replica: { retryAfterMs: 5, livenessMs: 0, resyncRefillMs: 5 } });
    client.errors$.subscribe((e) => errors.push(e));
    sub = client.orderBook(MARKET).subscribe((e) => (latest = e));
    conn = await server.connection(0);
    await live('first sync');
  });

  afterAll(async () => {
    sub.unsubscribe();
    await client.close();
    await server.close();
    await stub.close();
  });

  function live(what: string): Promise<unknown> {
    return firstValueFrom(client.orderBook(MARKET).pipe(filter((e) => e.status === 'live' && e.seq === model.seq), timeout({ first: WAIT_MS, with: () => { throw new Error(`${what}: last ${latest?.status} at ${latest?.seq}, model at ${model.seq}`); } })));
  }

  function sendUpdate(id: string, seq: bigint, data: unknown): void {
    conn.send({ type: 'update', subscription_id: id, channel: 'book', seq: String(seq), timestamp_ns: TS, data });
  }

  function sendValid(id: string, u: { bids: [number, number][]; asks: [number, number][] }): void {
    for (const [p, s] of u.bids) s === 0 ? model.bids.delete(p) : model.bids.set(p, s);
    for (const [p, s] of u.asks) s === 0 ? model.asks.delete(p) : model.asks.set(p, s);
    model.seq += 1n;
    sendUpdate(id, model.seq, { bids: u.bids.map(([p, s]) => lv(String(p), String(s))), asks: u.asks.map(([p, s]) => lv(String(p), String(s))) });
  }

  /** Resolves once the client processed everything sent before (an unsolicited pong is the marker). */
  async function barrier(n: number): Promise<void> {
    await frameBarrier(client, conn, `book-barrier-${n}`, TS);
  }

  test('invalid book updates: surfaced, resynced, then exact', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(garbageArb, fc.array(validArb, { maxLength: 2 })), { minLength: 1, maxLength: 5 }), validArb, async (steps, last) => {
        const id = conn.idOf('book')!;
        sendValid(id, { bids: [], asks: [] });
        await live('start of a run');
        for (const [g, valid] of steps) {
          const wasLive = latest?.status === 'live';
          const e0 = errors.length;
          const r0 = Object.values(client.resyncCounts()).reduce((a, b) => a + b, 0);
          sendUpdate(id, model.seq + 1n, g.data);
          await barrier(n++);
          const resynced = Object.values(client.resyncCounts()).reduce((a, b) => a + b, 0) > r0 || !wasLive;
          // While resyncing, an update the book rejects is held with the buffer and judged when the snapshot comes.
          const error = errors.length > e0 || (!wasLive && g.schema !== true);
          expect({ label: g.label, error, resynced }).toEqual({ label: g.label, error: true, resynced: true });
          for (const u of valid) sendValid(id, u);
        }
        sendValid(id, last);
        await live(steps.map(([g]) => g.label).join(' / '));
        const book = latest!.state;
        expect(book.toSnapshot()).toEqual(modelBook());
        expect(book.isCrossed()).toBe(false);
        expect(client.connection.generation).toBe(1);
      }),
      { seed: 777, numRuns: 100 },
    );
  });
});
