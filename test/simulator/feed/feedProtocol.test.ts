import WebSocket from 'ws';
import { streamKey } from '../../../src/protocol';
import { ADDRESS, BOOK0, OTHER_ADDRESS, startFeed, type FeedHarness, type Frame } from './feedHarness';

const bookData = (i: number) => ({ bids: [{ price_ticks: String(100 + i), size_base_lots: '5' }], asks: [] });

describe('FeedServer: client frames and their answers', () => {
  let h: FeedHarness;
  beforeEach(async () => {
    h = await startFeed();
  });
  afterEach(() => h.close());

  it('acknowledges a subscribe with the documented keys and then sends updates with the stream seq', async () => {
    const c = await h.connect();
    c.send({ type: 'subscribe', request_id: 'r1', channel: 'book', market_id: 0, is_perps: true });
    const ack = await c.waitFor((f) => f.request_id === 'r1');
    expect(Object.keys(ack)).toEqual(['type', 'request_id', 'subscription_id', 'channel']);
    expect(ack).toMatchObject({ type: 'subscribed', channel: 'book' });
    expect(typeof ack.subscription_id).toBe('string');

    h.hub.publish('book', BOOK0, bookData(1));
    const before = BigInt(Date.now() - 1000) * 1_000_000n;
    const [u] = await c.waitForCount((f) => f.type === 'update', 1);
    expect(Object.keys(u!)).toEqual(['type', 'subscription_id', 'channel', 'seq', 'timestamp_ns', 'data']);
    expect(u).toMatchObject({ subscription_id: ack.subscription_id, channel: 'book', seq: '1', data: bookData(1) });
    expect(BigInt(u!.timestamp_ns)).toBeGreaterThan(before);
    expect(c.invalid).toEqual([]);
  });

  it('answers ping with pong echoing request_id and a wall-clock timestamp_ns', async () => {
    const c = await h.connect();
    const before = BigInt(Date.now()) * 1_000_000n;
    const pong = await c.roundTrip('p-1');
    expect(Object.keys(pong)).toEqual(['type', 'request_id', 'timestamp_ns']);
    expect(pong.request_id).toBe('p-1');
    expect(BigInt(pong.timestamp_ns)).toBeGreaterThanOrEqual(before - 1_000_000_000n);
    expect(BigInt(pong.timestamp_ns)).toBeLessThan(BigInt(Date.now() + 1000) * 1_000_000n);
  });

  it('numbers a stream contiguously for every subscriber, including two subscriptions on one connection', async () => {
    const a = await h.connect();
    const b = await h.connect();
    const a1 = await a.subscribe('book', BOOK0);
    const a2 = await a.subscribe('book', BOOK0);
    const b1 = await b.subscribe('book', BOOK0);
    expect(new Set([a1, a2, b1]).size).toBe(3);
    for (let i = 1; i <= 5; i++) h.hub.publish('book', BOOK0, bookData(i));
    h.hub.publish('bbo', BOOK0, { bid: null, ask: null });
    const late = await h.connect();
    const l1 = await late.subscribe('book', BOOK0);
    for (let i = 6; i <= 8; i++) h.hub.publish('book', BOOK0, bookData(i));
    await Promise.all([a.roundTrip(), b.roundTrip(), late.roundTrip()]);
    const seqs = (c: typeof a, id: string) => c.updates(id).map((f) => f.seq);
    const all = ['1', '2', '3', '4', '5', '6', '7', '8'];
    expect(seqs(a, a1)).toEqual(all);
    expect(seqs(a, a2)).toEqual(all);
    expect(seqs(b, b1)).toEqual(all);
    expect(seqs(late, l1)).toEqual(['6', '7', '8']);
    expect(a.updates(a1).map((f) => f.data)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map(bookData));
    expect(a.invalid).toEqual([]);
  });

  it('acknowledges unsubscribe and sends nothing more for that subscription', async () => {
    const c = await h.connect();
    const keep = await c.subscribe('book', BOOK0);
    const gone = await c.subscribe('book', BOOK0);
    h.hub.publish('book', BOOK0, bookData(1));
    c.send({ type: 'unsubscribe', request_id: 'u1', subscription_id: gone });
    const ack = await c.waitFor((f) => f.request_id === 'u1');
    expect(ack).toEqual({ type: 'unsubscribed', request_id: 'u1', subscription_id: gone });
    h.hub.publish('book', BOOK0, bookData(2));
    await c.roundTrip();
    expect(c.updates(gone).map((f) => f.seq)).toEqual(['1']);
    expect(c.updates(keep).map((f) => f.seq)).toEqual(['1', '2']);
    expect(h.feed.connections()[0]!.subscriptions.map((s) => s.id)).toEqual([keep]);
  });

  it('gives subscription ids never reused on a later connection', async () => {
    const a = await h.connect();
    const first = await a.subscribe('book', BOOK0);
    a.terminate();
    await a.closed;
    const b = await h.connect();
    const second = await b.subscribe('book', BOOK0);
    expect(second).not.toBe(first);
  });

  it('lists connections with their subscriptions and stream keys', async () => {
    const c = await h.connect();
    const id = await c.subscribe('orders', { address: ADDRESS, subaccount_id: 1 });
    const [conn] = h.feed.connections();
    expect(conn!.subscriptions).toEqual([{ id, channel: 'orders', scope: { address: ADDRESS, subaccount_id: 1 }, key: streamKey('orders', { address: ADDRESS, subaccount_id: 1 }) }]);
    expect(h.feed.subscribedStreams()).toEqual([streamKey('orders', { address: ADDRESS, subaccount_id: 1 })]);
  });

  describe('errors that keep the connection open', () => {
    const expectOpenAfter = async (c: Awaited<ReturnType<FeedHarness['connect']>>) => {
      await c.roundTrip();
      expect(c.ws.readyState).toBe(WebSocket.OPEN);
      expect(c.invalid).toEqual([]);
    };
    const errorFor = (c: Awaited<ReturnType<FeedHarness['connect']>>, n: number) => c.waitForCount((f) => f.type === 'error', n);

    it('INVALID_MESSAGE for non-JSON, non-object, no string request_id (request_id "") and unknown type (echoed)', async () => {
      const c = await h.connect();
      c.send('not json');
      c.send('[1,2]');
      c.send('"text"');
      c.send({ type: 'ping' });
      c.send({ type: 'ping', request_id: 5 });
      c.send({ type: 'hello', request_id: 'x-1' });
      c.send({ request_id: 'x-2' });
      c.send({ type: 'unsubscribe', request_id: 'x-3' });
      c.send({ type: 'subscribe', request_id: 'x-4' });
      c.ws.send(Buffer.from('{"type":"ping","request_id":"bin"}'), { binary: true });
      const errors = await errorFor(c, 10);
      expect(errors.map((e) => [e.code, e.request_id, e.subscription_id])).toEqual([
        ['INVALID_MESSAGE', '', null],
        ['INVALID_MESSAGE', '', null],
        ['INVALID_MESSAGE', '', null],
        ['INVALID_MESSAGE', '', null],
        ['INVALID_MESSAGE', '', null],
        ['INVALID_MESSAGE', 'x-1', null],
        ['INVALID_MESSAGE', 'x-2', null],
        ['INVALID_MESSAGE', 'x-3', null],
        ['INVALID_MESSAGE', 'x-4', null],
        ['INVALID_MESSAGE', '', null],
      ]);
      for (const e of errors) expect(Object.keys(e)).toEqual(['type', 'request_id', 'subscription_id', 'code', 'error']);
      await expectOpenAfter(c);
    });

    it('UNKNOWN_CHANNEL for a channel that does not exist', async () => {
      const c = await h.connect();
      c.send({ type: 'subscribe', request_id: 'c1', channel: 'orderbook', market_id: 0, is_perps: true });
      const [e] = await errorFor(c, 1);
      expect(e).toMatchObject({ code: 'UNKNOWN_CHANNEL', request_id: 'c1', subscription_id: null });
      expect(e!.error).toContain('orderbook');
      await expectOpenAfter(c);
    });

    it('INVALID_SUBSCRIPTION for missing, ill-typed and unexpected keys and for unknown markets or accounts', async () => {
      const c = await h.connect();
      const cases: Array<[Frame, string]> = [
        [{ channel: 'book', market_id: 0 }, 'is_perps'],
        [{ channel: 'book', market_id: -1, is_perps: true }, 'market_id'],
        [{ channel: 'book', market_id: 0, is_perps: 'yes' }, 'is_perps'],
        [{ channel: 'book', market_id: 0, is_perps: true, interval: '1m' }, 'interval'],
        [{ channel: 'book', market_id: 0, is_perps: true, depth: 5 }, 'depth'],
        [{ channel: 'candles', market_id: 0, is_perps: true, interval: '2m' }, 'interval'],
        [{ channel: 'markCandles', market_id: 0, is_perps: true, interval: '1m' }, 'is_perps'],
        [{ channel: 'orders', address: 'nope', subaccount_id: 0 }, 'address'],
        [{ channel: 'book', market_id: 9, is_perps: true }, 'market 9'],
        [{ channel: 'book', market_id: 2, is_perps: false }, 'spot market 2'],
        [{ channel: 'markCandles', market_id: 1, interval: '1m' }, 'perp market 1'],
        [{ channel: 'fundingRates', market_id: 1 }, 'perp market 1'],
        [{ channel: 'balances', address: OTHER_ADDRESS, subaccount_id: 0 }, 'account'],
        [{ channel: 'balances', address: ADDRESS, subaccount_id: 5 }, 'subaccount 5'],
      ];
      cases.forEach(([frame], i) => c.send({ type: 'subscribe', request_id: `s${i}`, ...frame }));
      const errors = await errorFor(c, cases.length);
      errors.forEach((e, i) => {
        expect(e).toMatchObject({ code: 'INVALID_SUBSCRIPTION', request_id: `s${i}`, subscription_id: null });
        expect(e.error).toContain(cases[i]![1]);
      });
      expect(h.feed.connections()[0]!.subscriptions).toEqual([]);
      await expectOpenAfter(c);
      // The valid forms of the same channels are accepted.
      await c.subscribe('markCandles', { market_id: 2, interval: '1m' });
      await c.subscribe('fundingRates', { market_id: 0 });
      await c.subscribe('candles', { market_id: 1, is_perps: false, interval: '1d' });
      await c.subscribe('balances', { address: ADDRESS, subaccount_id: 1 });
    });

    it('UNKNOWN_SUBSCRIPTION for an id not active on this connection, echoing it', async () => {
      const a = await h.connect();
      const b = await h.connect();
      const other = await b.subscribe('book', BOOK0);
      a.send({ type: 'unsubscribe', request_id: 'n1', subscription_id: other });
      a.send({ type: 'unsubscribe', request_id: 'n2', subscription_id: '999999' });
      const own = await a.subscribe('book', BOOK0);
      a.send({ type: 'unsubscribe', request_id: 'n3', subscription_id: own });
      a.send({ type: 'unsubscribe', request_id: 'n4', subscription_id: own });
      const errors = await errorFor(a, 3);
      expect(errors.map((e) => [e.code, e.request_id, e.subscription_id])).toEqual([
        ['UNKNOWN_SUBSCRIPTION', 'n1', other],
        ['UNKNOWN_SUBSCRIPTION', 'n2', '999999'],
        ['UNKNOWN_SUBSCRIPTION', 'n4', own],
      ]);
      await expectOpenAfter(a);
      // b's subscription is untouched.
      h.hub.publish('book', BOOK0, bookData(1));
      await b.waitFor((f) => f.type === 'update' && f.subscription_id === other);
    });
  });

  it('refuses an upgrade on another path', async () => {
    const url = h.url.replace('/ws', '/other');
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(url);
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('error', () => {});
    });
    expect(status).toBe(404);
  });
});
