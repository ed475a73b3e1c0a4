/**
 * A `book` update that lists a price twice on a side, end to end (real socket, router,
 * decoder, replica): the decoder rejects it, the router reports a coded ERR_FRAME_INVALID
 * naming the price and the side and resyncs the stream, and the replica is never live with
 * the state the last listing would have made. Likewise a snapshot answer that lists a price
 * twice is refused (ERR_RESPONSE_INVALID) and the next good one makes the replica live.
 */
import { filter, firstValueFrom, timeout, type Subscription } from 'rxjs';
import { ExchangeClient, type ExchangeReplicaError, type OrderBook, type PriceLevel, type ReplicaState } from '../../../src';
import { HttpStub, type StubReply } from '../../helpers/HttpStub';
import { WsTestServer, type ServerConnection } from '../../helpers/WsTestServer';
import { WAIT_MS } from '../../helpers/deadlines';

const MARKET = { market_type: 'spot', market_id: 3 } as const;
const TS = '1732200000000000000';
const L = (p: number, s: number): PriceLevel => ({ price_ticks: String(p), size_base_lots: String(s) });

/** What an emission showed when it was emitted (the book is a live object: copied at once). */
interface Seen {
  readonly status: string;
  readonly seq: bigint;
  readonly snapshotId: number;
  readonly bids: PriceLevel[];
}

describe('a book update listing a price twice, through the client', () => {
  let server: WsTestServer;
  let stub: HttpStub;
  let client: ExchangeClient;
  let sub: Subscription | undefined;
  const errors: ExchangeReplicaError[] = [];
  const seen: Seen[] = [];

  beforeEach(async () => {
    server = await WsTestServer.start();
    stub = await HttpStub.start();
    client = new ExchangeClient({ restUrl: stub.baseUrl, wsUrl: server.url, rest: { retry: { retries: 0 } }, resync: { retry: { retries: 5, initialDelayMs: 1, maxDelayMs: 5 } }, replica: { retryAfterMs: 5, livenessMs: 0 } });
    client.errors$.subscribe((e) => errors.push(e));
    errors.length = 0;
    seen.length = 0;
  });

  afterEach(async () => {
    sub?.unsubscribe();
    await client.close();
    await server.close();
    await stub.close();
  });

  function watch(): void {
    sub = client.orderBook(MARKET).subscribe((e: ReplicaState<OrderBook>) => seen.push({ status: e.status, seq: e.seq, snapshotId: e.snapshotId, bids: e.state.toSnapshot().bids }));
  }

  function live(seq: bigint, what: string): Promise<ReplicaState<OrderBook>> {
    return firstValueFrom(client.orderBook(MARKET).pipe(filter((e) => e.status === 'live' && e.seq === seq), timeout({ first: WAIT_MS, with: () => { throw new Error(`${what}: not live at seq ${seq}`); } })));
  }

  /** Resolves once the client processed every frame sent before (an unsolicited pong is the marker). */
  async function barrier(conn: ServerConnection, id: string): Promise<void> {
    const got = new Promise<void>((resolve) => {
      const on = (text: string) => {
        if (!text.includes(`"${id}"`)) return;
        client.connection.off('message', on);
        resolve();
      };
      client.connection.on('message', on);
    });
    conn.send({ type: 'pong', request_id: id, timestamp_ns: TS });
    await got;
  }

  const answer = (seq: number, bids: PriceLevel[], asks: PriceLevel[]): StubReply => ({ json: { data: { bids, asks }, sequence: String(seq), timestamp_ns: TS } });

  it('is reported as ERR_FRAME_INVALID naming the price and the side, resyncs the stream, and never shows the last-one-wins book', async () => {
    // The resync's snapshot waits until the test has looked at the replica between the two.
    let release!: () => void;
    const resyncAnswer = new Promise<StubReply>((resolve) => (release = () => resolve(answer(2, [L(99, 5), L(98, 7), L(97, 1)], [L(101, 4)]))));
    let fetches = 0;
    stub.route('/v1/orderBook', () => (++fetches === 1 ? answer(1, [L(99, 5), L(98, 7)], [L(101, 4)]) : resyncAnswer));
    watch();
    const conn = await server.connection(0);
    await live(1n, 'first sync');
    const id = conn.idOf('book')!;

    // Price 97 twice in the bids: applied, the last listing (size 9) would win.
    conn.send({ type: 'update', subscription_id: id, channel: 'book', seq: '2', timestamp_ns: TS, data: { bids: [L(97, 1), L(97, 9)], asks: [] } });
    await barrier(conn, 'after-the-bad-update');

    const frameErrors = errors.filter((e) => e.code === 'ERR_FRAME_INVALID');
    expect(frameErrors).toHaveLength(1);
    expect(frameErrors[0]!.message).toContain('bids[1].price_ticks: price 97 appears twice in bids (bids[0] and bids[1])');
    expect(frameErrors[0]!.context).toMatchObject({ channel: 'book', subscriptionId: id });
    expect(client.resyncCounts().resync_required).toBe(1);
    expect(seen[seen.length - 1]!.status).toBe('resyncing');
    expect(seen.filter((e) => e.status === 'live').map((e) => e.seq)).toEqual([1n]);

    release();
    const healed = await live(2n, 'after the resync');
    expect(healed.snapshotId).toBe(2);
    expect(healed.state.toSnapshot()).toEqual({ bids: [L(99, 5), L(98, 7), L(97, 1)], asks: [L(101, 4)] });
    // Never, live or not, a book holding the last listing of the repeated price.
    expect(seen.some((e) => e.bids.some((l) => l.price_ticks === '97' && l.size_base_lots === '9'))).toBe(false);
    // The connection stayed up: only the stream resynced.
    expect(client.connection.generation).toBe(1);
  });

  it('refuses a snapshot answer listing a price twice (ERR_RESPONSE_INVALID) and goes live on the next good one', async () => {
    stub.script('/v1/orderBook', [answer(1, [L(99, 5), L(99, 6)], [L(101, 4)]), answer(1, [L(99, 5)], [L(101, 4)])]);
    watch();
    const first = await live(1n, 'sync after a refused snapshot');
    expect(first.state.toSnapshot()).toEqual({ bids: [L(99, 5)], asks: [L(101, 4)] });
    expect(stub.requestsTo('/v1/orderBook')).toHaveLength(2);
    const refused = errors.filter((e) => e.code === 'ERR_RESPONSE_INVALID');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.message).toContain('data.bids[1].price_ticks: price 99 appears twice in bids');
    expect(seen.some((e) => e.bids.some((l) => l.size_base_lots === '6'))).toBe(false);
  });
});
