/** SubscriptionRouter over real sockets: lazy connect, scope checks, sharing, correlation, refusals. */
import { FeedError, InvalidParameterError, RequestTimeoutError } from '../../src/errors';
import { SubscriptionRouter, type UpdateEvent } from '../../src/router';
import { Connection } from '../../src/connection';
import { BOOK_0, BOOK_1, bookUpdate, closeHarnesses, EMPTY_BOOK_UPDATE, startHarness, StreamRecorder } from './routerHarness';
import type { ChannelName, Scope } from '../../src/protocol';

afterEach(closeHarnesses);

describe('SubscriptionRouter basics', () => {
  test('connects lazily on the first subscription and subscribes with the scope', async () => {
    const h = await startHarness();
    const events = h.router.stream('book', BOOK_0);
    expect(h.connection.state).toBe('idle');
    const rec = new StreamRecorder(events);
    await rec.waitCount('subscribed', 1);
    expect(rec.events[0]).toEqual({ kind: 'subscribed', subscriptionId: '1', generation: 1 });
    const conn = h.server.connections[0]!;
    expect(conn.framesOf('subscribe')).toEqual([{ type: 'subscribe', request_id: expect.any(String), channel: 'book', market_id: 0, is_perps: true }]);
    expect(h.router.activeServerSubscriptions()).toBe(1);
    expect(h.router.pendingRequests()).toBe(0);

    conn.sendUpdate('1', 7, bookUpdate(100));
    await rec.waitCount('update', 1);
    const u = rec.updates()[0]!;
    expect(u.seq).toBe(7n);
    expect(u.timestampNs).toBe(1732200000000000000n);
    expect(typeof u.receivedAtNs).toBe('bigint');
    expect(u.receivedAtNs).toBeGreaterThan(1_600_000_000_000_000_000n);
    expect(u.data).toEqual(bookUpdate(100));
  });

  test.each<[string, string, Record<string, unknown>, string]>([
    ['missing key', 'book', { market_id: 0 }, 'is_perps'],
    ['ill-typed key', 'book', { market_id: -1, is_perps: true }, 'market_id'],
    ['key of another channel', 'bbo', { market_id: 0, is_perps: true, interval: '1m' }, 'interval'],
    ['unknown key', 'book', { market_id: 0, is_perps: true, foo: 1 }, 'foo'],
    ['unknown channel', 'nope', { market_id: 0 }, 'channel'],
  ])('bad scope (%s): InvalidParameterError naming the key, nothing sent', async (_name, channel, scope, key) => {
    const h = await startHarness();
    const rec = new StreamRecorder(h.router.stream(channel as ChannelName, scope as Scope));
    expect(rec.error).toBeInstanceOf(InvalidParameterError);
    expect(rec.error!.param).toBe(key);
    expect(rec.error!.message).toContain(key);
    expect(h.connection.state).toBe('idle');
    expect(h.router.pendingRequests()).toBe(0);
  });

  test('identical streams share one server subscription; the last unsubscribe sends unsubscribe', async () => {
    const h = await startHarness();
    const a = new StreamRecorder(h.router.stream('book', { market_id: 0, is_perps: true }));
    const b = new StreamRecorder(h.router.stream('book', { is_perps: true, market_id: 0 }));
    await a.waitCount('subscribed', 1);
    await b.waitCount('subscribed', 1);
    // A late joiner gets the subscription replayed at once.
    const c = new StreamRecorder(h.router.stream('book', BOOK_0));
    expect(c.events).toEqual([{ kind: 'subscribed', subscriptionId: '1', generation: 1 }]);
    const conn = h.server.connections[0]!;
    expect(conn.framesOf('subscribe')).toHaveLength(1);

    conn.sendUpdate('1', 1, EMPTY_BOOK_UPDATE);
    await c.waitCount('update', 1);
    await a.waitCount('update', 1);
    expect(a.updates()[0]).toBe(b.updates()[0]);

    a.unsubscribe();
    b.unsubscribe();
    conn.sendUpdate('1', 2, EMPTY_BOOK_UPDATE);
    await c.waitCount('update', 2);
    expect(conn.framesOf('unsubscribe')).toHaveLength(0);
    expect(a.count('update')).toBe(1);

    c.unsubscribe();
    await h.settled(0);
    expect(conn.framesOf('unsubscribe')).toEqual([{ type: 'unsubscribe', request_id: expect.any(String), subscription_id: '1' }]);
    expect(h.router.activeServerSubscriptions()).toBe(0);
    expect(h.errors).toEqual([]);
  });

  test('acks are matched by request_id, whatever their order', async () => {
    const h = await startHarness({ server: { autoAck: false } });
    const book = new StreamRecorder(h.router.stream('book', BOOK_0));
    const bbo = new StreamRecorder(h.router.stream('bbo', BOOK_0));
    const conn = await h.server.connection(0);
    await conn.waitForFrame(() => conn.unanswered.length === 2, 'two subscribes');
    expect(h.router.pendingRequests()).toBe(2);
    const [bookReq, bboReq] = conn.unanswered;
    const bboId = conn.ack(bboReq!);
    const bookId = conn.ack(bookReq!);
    await book.waitCount('subscribed', 1);
    await bbo.waitCount('subscribed', 1);
    expect(book.last('subscribed')!.subscriptionId).toBe(bookId);
    expect(bbo.last('subscribed')!.subscriptionId).toBe(bboId);
    conn.sendUpdate(bboId, 1, { bid: null, ask: { price_ticks: '10', size_base_lots: '1' } });
    conn.sendUpdate(bookId, 1, EMPTY_BOOK_UPDATE);
    await book.waitCount('update', 1);
    await bbo.waitCount('update', 1);
    expect(bbo.updates()[0]!.data).toEqual({ bid: null, ask: { price_ticks: '10', size_base_lots: '1' } });
    expect(h.router.pendingRequests()).toBe(0);
  });

  test('an unanswered subscribe times out with RequestTimeoutError; a late ack is undone', async () => {
    const h = await startHarness({ server: { autoAck: false }, router: { requestTimeoutMs: 150 } });
    const rec = new StreamRecorder(h.router.stream('book', BOOK_0));
    const other = new StreamRecorder(h.router.stream('bbo', BOOK_0));
    await rec.waitError();
    expect(rec.error).toBeInstanceOf(RequestTimeoutError);
    expect(rec.error!.code).toBe('ERR_REQUEST_TIMEOUT');
    await other.waitError();
    expect(h.router.pendingRequests()).toBe(0);
    const conn = h.server.connections[0]!;
    conn.ack(conn.unanswered[0]!);
    await h.settled(0);
    expect(conn.framesOf('unsubscribe')).toHaveLength(1);
    expect(h.connection.state).toBe('open');
  });

  test('a server code is never taken for a library code: an error frame saying ERR_ABORTED is ERR_FEED_ERROR, with serverCode', async () => {
    const h = await startHarness({ server: { refuseSubscribe: () => ({ code: 'ERR_ABORTED', error: 'not really aborted' }) } });
    const r = new StreamRecorder(h.router.stream('book', BOOK_0));
    await r.waitError();
    expect(r.error).toBeInstanceOf(FeedError);
    expect(r.error).toMatchObject({ code: 'ERR_FEED_ERROR', serverCode: 'ERR_ABORTED' });
  });

  test('UNKNOWN_CHANNEL / INVALID_SUBSCRIPTION error only the observables of that stream', async () => {
    const h = await startHarness({
      server: {
        refuseSubscribe: (f) =>
          f.market_id === 999 ? { code: 'INVALID_SUBSCRIPTION', error: 'market 999 does not exist' } : f.channel === 'fundingRates' ? { code: 'UNKNOWN_CHANNEL', error: 'no fundingRates here' } : undefined,
      },
    });
    const good = new StreamRecorder(h.router.stream('book', BOOK_0));
    const bad1 = new StreamRecorder(h.router.stream('book', { market_id: 999, is_perps: true }));
    const bad2 = new StreamRecorder(h.router.stream('book', { market_id: 999, is_perps: true }));
    const unknown = new StreamRecorder(h.router.stream('fundingRates', { market_id: 0 }));
    await bad1.waitError();
    await bad2.waitError();
    await unknown.waitError();
    expect(bad1.error).toBeInstanceOf(FeedError);
    expect(bad1.error).toMatchObject({ code: 'INVALID_SUBSCRIPTION', serverCode: 'INVALID_SUBSCRIPTION' });
    expect(bad1.error!.message).toContain('market 999 does not exist');
    expect(bad2.error).toBe(bad1.error);
    expect(unknown.error!.code).toBe('UNKNOWN_CHANNEL');
    await good.waitCount('subscribed', 1);
    h.server.connections[0]!.sendUpdate(good.last('subscribed')!.subscriptionId, 1, EMPTY_BOOK_UPDATE);
    await good.waitCount('update', 1);
    expect(good.error).toBeUndefined();
    expect(h.connection.state).toBe('open');
    expect(h.router.pendingRequests()).toBe(0);
    expect(h.router.activeServerSubscriptions()).toBe(1);
    // A refused stream can be asked for again (a new request, refused again).
    const again = new StreamRecorder(h.router.stream('book', { market_id: 999, is_perps: true }));
    await again.waitError();
    expect(h.server.connections[0]!.framesOf('subscribe')).toHaveLength(4);
  });

  test('resync_required is forwarded with its reason; raw() gives only updates', async () => {
    const h = await startHarness();
    const rec = new StreamRecorder(h.router.stream('trades', BOOK_1));
    const raw: UpdateEvent[] = [];
    h.router.raw('trades', BOOK_1).subscribe((u) => raw.push(u));
    await rec.waitCount('subscribed', 1);
    const conn = h.server.connections[0]!;
    conn.sendResync('1', 'lag');
    conn.sendUpdate('1', 9, { trades: [] });
    await rec.waitCount('update', 1);
    expect(rec.kinds()).toEqual(['subscribed', 'resync_required', 'update']);
    expect(rec.events[1]).toEqual({ kind: 'resync_required', reason: 'lag' });
    expect(raw.map((u) => u.kind)).toEqual(['update']);
    expect(conn.framesOf('subscribe')).toHaveLength(1);
  });

  test('FEED_UNAVAILABLE errors every stream with the FeedError; later streams error at once', async () => {
    const h = await startHarness({ server: { refuseConnectionsWith: 'FEED_UNAVAILABLE' } });
    const rec = new StreamRecorder(h.router.stream('book', BOOK_0));
    await rec.waitError();
    expect(rec.error).toBeInstanceOf(FeedError);
    expect(rec.error!.code).toBe('FEED_UNAVAILABLE');
    const later = new StreamRecorder(h.router.stream('bbo', BOOK_0));
    expect(later.error!.code).toBe('FEED_UNAVAILABLE');
    expect(h.connection.state).toBe('failed');
    expect(h.router.activeServerSubscriptions()).toBe(0);
    expect(h.router.pendingRequests()).toBe(0);
  });

  test('close(): unsubscribes on the server, completes subscribers, refuses new streams', async () => {
    const h = await startHarness();
    const rec = new StreamRecorder(h.router.stream('book', BOOK_0));
    await rec.waitCount('subscribed', 1);
    const conn = h.server.connections[0]!;
    h.router.close();
    expect(rec.completed).toBe(true);
    await conn.waitForFrame((f) => f.type === 'unsubscribe', 'unsubscribe on close');
    const after = new StreamRecorder(h.router.stream('book', BOOK_0));
    expect(after.error!.code).toBe('ERR_CLIENT_CLOSED');
    expect(h.router.activeServerSubscriptions()).toBe(0);
    expect(h.router.pendingRequests()).toBe(0);
  });

  test('a connection closed by its owner errors the streams with ClientClosedError', async () => {
    const h = await startHarness();
    const rec = new StreamRecorder(h.router.stream('book', BOOK_0));
    await rec.waitCount('subscribed', 1);
    h.connection.close();
    expect(rec.error!.code).toBe('ERR_CLIENT_CLOSED');
  });

  test('option checks', () => {
    const c = new Connection({ url: 'ws://127.0.0.1:1/ws' });
    expect(() => new SubscriptionRouter(c, { requestTimeoutMs: 0 })).toThrow(expect.objectContaining({ param: 'requestTimeoutMs' }));
    c.close();
  });
});
