/**
 * Frame fuzzing (seeded, bounded): a scriptable feed server sends the client garbage between
 * the updates of a valid stream: malformed JSON, wrong types, unknown frame types and
 * channels, frames for unknown subscription ids, huge numbers, negative and non-numeric
 * integer strings, duplicated and reordered `seq`. The client never crashes, keeps the
 * connection open, surfaces each garbage frame as a typed error or a resync, and once the
 * valid stream goes on the replica is exactly the model's state.
 */
import fc from 'fast-check';
import { filter, firstValueFrom, timeout, type Subscription } from 'rxjs';
import { ExchangeClient, ExchangeReplicaError, type Bbo, type ReplicaState } from '../../src';
import { HttpStub } from '../helpers/HttpStub';
import { WsTestServer, type ServerConnection } from '../helpers/WsTestServer';
import { frameBarrier } from './frameBarrier';
import { WAIT_MS } from '../helpers/deadlines';

const TS = '1732200000000000000';
const MARKET = { market_type: 'perp', market_id: 0 } as const;

/** What a garbage frame must produce. */
type Expect = 'error' | 'resync' | 'errorAndResync' | 'regression';

interface Garbage {
  readonly label: string;
  /** The frame text, given the live subscription id and the model's current seq. */
  readonly text: (id: string, seq: bigint) => string;
  readonly expect: Expect;
}

const level = fc.record({ price_ticks: fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }).map(String), size_base_lots: fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }).map(String) });
const bboArb: fc.Arbitrary<Bbo> = fc.record({ bid: fc.option(level, { nil: null }), ask: fc.option(level, { nil: null }) });

const update = (id: string, seq: bigint | string | number, data: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ type: 'update', subscription_id: id, channel: 'bbo', seq: typeof seq === 'string' ? seq : typeof seq === 'number' ? seq : String(seq), timestamp_ns: TS, data, ...extra });
const okBbo: Bbo = { bid: { price_ticks: '100', size_base_lots: '1' }, ask: null };

/** Every class of bad input, each with what the client must do about it. */
const garbageArb: fc.Arbitrary<Garbage> = fc.oneof(
  fc.string({ maxLength: 40 }).filter((s) => { try { JSON.parse(s); return false; } catch { return true; } }).map((s): Garbage => ({ label: `malformed JSON ${JSON.stringify(s)}`, text: () => s, expect: 'error' })),
  fc.constantFrom('{"type":"update"', '[1,2,3]', 'null', '42', '"update"', '{}', '{"type":null}').map((s): Garbage => ({ label: `not a frame ${s}`, text: () => s, expect: 'error' })),
  fc.string({ minLength: 1, maxLength: 12 }).filter((t) => !['update', 'subscribed', 'unsubscribed', 'pong', 'resync_required', 'error'].includes(t)).map((t): Garbage => ({ label: `unknown type ${t}`, text: (id) => JSON.stringify({ type: t, subscription_id: id }), expect: 'error' })),
  fc.constantFrom('candles', 'nope', 'book', '').map((ch): Garbage => ({ label: `update naming channel ${ch}`, text: (id, seq) => JSON.stringify({ type: 'update', subscription_id: id, channel: ch, seq: String(seq + 1n), timestamp_ns: TS, data: okBbo }), expect: 'errorAndResync' })),
  fc.string({ minLength: 1, maxLength: 8 }).map((other): Garbage => ({ label: `update for unknown subscription ${other}`, text: (id, seq) => update(`x${other}${id}`, seq + 1n, okBbo), expect: 'error' })),
  fc.constantFrom<[string, (seq: bigint) => unknown]>(
    ['seq as a number', (s) => Number(s + 1n)],
    ['negative seq', () => '-1'],
    ['non-numeric seq', () => '12a'],
    ['seq beyond u64', () => '18446744073709551616'],
    ['empty seq', () => ''],
    ['fractional seq', (s) => `${s + 1n}.5`],
  ).map(([label, seqOf]): Garbage => ({ label, text: (id, seq) => JSON.stringify({ type: 'update', subscription_id: id, channel: 'bbo', seq: seqOf(seq), timestamp_ns: TS, data: okBbo }), expect: 'error' })),
  fc.constantFrom<[string, unknown]>(
    ['price beyond u64', { bid: { price_ticks: '18446744073709551616', size_base_lots: '1' }, ask: null }],
    ['negative size', { bid: { price_ticks: '5', size_base_lots: '-3' }, ask: null }],
    ['numeric price', { bid: { price_ticks: 5, size_base_lots: '1' }, ask: null }],
    ['non-numeric price', { bid: { price_ticks: 'abc', size_base_lots: '1' }, ask: null }],
    ['huge float price', { bid: { price_ticks: 1e308, size_base_lots: '1' }, ask: null }],
    ['missing ask', { bid: null }],
    ['data is an array', [1, 2]],
    ['data is a string', 'bbo'],
    ['data is null', null],
  ).map(([label, data]): Garbage => ({ label: `invalid data: ${label}`, text: (id, seq) => update(id, seq + 1n, data), expect: 'errorAndResync' })),
  fc.constantFrom<[string, Record<string, unknown>]>(
    ['timestamp_ns not a string', { timestamp_ns: 5 }],
    ['subscription_id a number', { subscription_id: 1 }],
  ).map(([label, extra]): Garbage => ({ label: `wrong type: ${label}`, text: (id, seq) => update(id, seq + 1n, okBbo, extra), expect: 'error' })),
  fc.constantFrom('INVALID_MESSAGE', 'UNKNOWN_SUBSCRIPTION', 'SOMETHING_NEW').map((code): Garbage => ({ label: `error frame ${code}`, text: () => JSON.stringify({ type: 'error', request_id: '', subscription_id: null, code, error: 'fuzz' }), expect: 'error' })),
  fc.constant<Garbage>({ label: 'resync_required with an unknown reason', text: (id) => JSON.stringify({ type: 'resync_required', subscription_id: id, channel: 'bbo', reason: 'whim' }), expect: 'error' }),
  fc.constant<Garbage>({ label: 'a subscribed frame answering no request', text: () => JSON.stringify({ type: 'subscribed', request_id: 'nobody', subscription_id: '999', channel: 'bbo' }), expect: 'error' }),
  fc.constant<Garbage>({ label: 'an unsubscribed frame answering no request', text: (id) => JSON.stringify({ type: 'unsubscribed', request_id: 'nobody', subscription_id: id }), expect: 'error' }),
  fc.constant<Garbage>({ label: 'a pong with a bad timestamp', text: () => JSON.stringify({ type: 'pong', request_id: 'x', timestamp_ns: '-5' }), expect: 'error' }),
  fc.constant<Garbage>({ label: 'resync_required for the live subscription', text: (id) => JSON.stringify({ type: 'resync_required', subscription_id: id, channel: 'bbo', reason: 'lag' }), expect: 'resync' }),
  fc.constant<Garbage>({ label: 'a duplicate of the last update (seq already included)', text: (id, seq) => update(id, seq, okBbo), expect: 'regression' }),
  fc.constant<Garbage>({ label: 'an old seq', text: (id, seq) => update(id, seq > 3n ? seq - 3n : 0n, okBbo), expect: 'regression' }),
);

describe('frame fuzzing', () => {
  let server: WsTestServer;
  let stub: HttpStub;
  let client: ExchangeClient;
  let conn: ServerConnection;
  let sub: Subscription;
  let latest: ReplicaState<Bbo> | undefined;
  const model = { seq: 1n, bbo: okBbo };
  const errors: ExchangeReplicaError[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUnhandled);
    server = await WsTestServer.start();
    stub = await HttpStub.start();
    stub.route('/v1/bbo', () => ({ json: { data: model.bbo, sequence: String(model.seq), timestamp_ns: TS } }));
    client = new ExchangeClient({ restUrl: stub.baseUrl, wsUrl: server.url, rest: { retry: { retries: 0 } }, resync: { retry: { retries: 50, initialDelayMs: 1, maxDelayMs: 5 } }, replica: { retryAfterMs: 5, resyncRefillMs: 5 } });
    client.errors$.subscribe((e) => errors.push(e));
    sub = client.bbo(MARKET).subscribe((e) => (latest = e));
    conn = await server.connection(0);
    await live();
  });

  afterAll(async () => {
    sub.unsubscribe();
    await client.close();
    await server.close();
    await stub.close();
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
    expect(unhandled).toEqual([]);
  });

  /** Waits until the replica is live at the model's seq. */
  function live(what = 'live at the model seq'): Promise<unknown> {
    return firstValueFrom(client.bbo(MARKET).pipe(filter((e) => e.status === 'live' && e.seq === model.seq), timeout({ first: WAIT_MS, with: () => { throw new Error(`${what}: last ${latest?.status} at ${latest?.seq}, model at ${model.seq}`); } })));
  }

  const resyncs = () => Object.values(client.resyncCounts()).reduce((a, b) => a + b, 0);

  test('garbage between valid updates: typed errors or resyncs, connection kept, replica exact', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(garbageArb, fc.array(bboArb, { maxLength: 3 })), { minLength: 1, maxLength: 6 }), fc.array(bboArb, { minLength: 1, maxLength: 3 }), async (steps, tail) => {
        const id = conn.idOf('bbo')!;
        // Each run starts live (a failed run, while shrinking, may have left a resync behind).
        send(id, okBbo);
        await live('live at the start of a run');
        for (const [garbage, valid] of steps) {
          const e0 = errors.length;
          const r0 = resyncs();
          // A replica already resyncing (after the previous garbage) has nothing to resync again.
          const wasLive = latest?.status === 'live';
          // An update applied since the snapshot proves the stream reached it: a repeat or an older seq is then a regression.
          const followedStream = wasLive && latest?.cause === 'update';
          conn.send(garbage.text(id, model.seq));
          // A ping's pong is a barrier: the garbage was processed when it arrives.
          await barrier();
          const gotError = errors.length > e0 && errors.slice(e0).every((e) => e instanceof ExchangeReplicaError);
          const gotResync = resyncs() > r0 || !wasLive;
          const outcome = { label: garbage.label, error: gotError, resync: gotResync };
          if (garbage.expect === 'error') expect(outcome).toEqual({ ...outcome, error: true });
          if (garbage.expect === 'errorAndResync') expect(outcome).toEqual({ ...outcome, error: true, resync: true });
          if (garbage.expect === 'resync') expect(outcome).toEqual({ ...outcome, error: false, resync: true });
          // Right after a snapshot shown before any update arrived, the stream may legitimately still be behind it.
          if (garbage.expect === 'regression') expect(outcome).toEqual({ ...outcome, error: false, resync: followedStream ? true : outcome.resync });
          for (const b of valid) send(id, b);
        }
        for (const b of tail) send(id, b);
        await live(`after ${steps.map(([g]) => g.label).join(' / ')}`);
        expect(latest!.state).toEqual(model.bbo);
        expect(client.connection.generation).toBe(1);
        expect(client.connection.state).toBe('open');
      }),
      { seed: 4242, numRuns: 60 },
    );
  });

  test('reordered and duplicated seq: resync, then exact', async () => {
    const id = conn.idOf('bbo')!;
    for (let round = 0; round < 10; round++) {
      const a: Bbo = { bid: { price_ticks: String(200 + round), size_base_lots: '2' }, ask: null };
      const b: Bbo = { bid: { price_ticks: String(300 + round), size_base_lots: '3' }, ask: { price_ticks: '400', size_base_lots: '1' } };
      const s = model.seq;
      const r0 = client.resyncCounts().seq_jump;
      // s+2 before s+1: a jump (resync), then s+1 and a duplicate of s+2.
      conn.send(update(id, s + 2n, b));
      conn.send(update(id, s + 1n, a));
      conn.send(update(id, s + 2n, b));
      model.seq = s + 2n;
      model.bbo = b;
      await barrier();
      expect(client.resyncCounts().seq_jump).toBeGreaterThan(r0);
      send(id, { bid: null, ask: { price_ticks: String(500 + round), size_base_lots: '9' } });
      await live(`round ${round}`);
      expect(latest!.state).toEqual(model.bbo);
    }
    expect(client.connection.generation).toBe(1);
  });

  function send(id: string, bbo: Bbo): void {
    model.seq += 1n;
    model.bbo = bbo;
    conn.send(update(id, model.seq, bbo));
  }

  /** Resolves when the client got a pong for a ping sent now (frames before it were processed). */
  async function barrier(): Promise<void> {
    await frameBarrier(client, conn, `barrier-${conn.framesOf('ping').length}`, TS);
  }
});
