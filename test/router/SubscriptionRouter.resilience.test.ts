/** SubscriptionRouter over real sockets: reconnects, churn, bad frames, misbehaving subscribers. */
import { EventEmitter } from 'node:events';
import { config, map, type Subscription } from 'rxjs';
import WebSocket from 'ws';
import { FrameError } from '../../src/errors';
import { decodeServerFrame, fastDecodeServerFrame, type DriftReport } from '../../src/protocol';
import type { DriftContext, FrameDecoder, RouterEvent } from '../../src/router';
import { waitUntil } from '../helpers/WsTestServer';
import { BOOK_0, BOOK_1, bookUpdate, closeHarnesses, EMPTY_BOOK_UPDATE, startHarness, StreamRecorder } from './routerHarness';
import { seededRandom as mulberry32 } from '../../benchmarks/lib/rng';

afterEach(closeHarnesses);


describe('SubscriptionRouter resilience', () => {
  test('after an abrupt drop: disconnected, then every live stream re-subscribed with its new id; old ids are dead', async () => {
    const h = await startHarness({ server: { firstIdOf: (i) => 100 * i + 1 } });
    const book = new StreamRecorder(h.router.stream('book', BOOK_0));
    const bbo = new StreamRecorder(h.router.stream('bbo', BOOK_0));
    await book.waitCount('subscribed', 1);
    await bbo.waitCount('subscribed', 1);
    const oldIds = [book.last('subscribed')!.subscriptionId, bbo.last('subscribed')!.subscriptionId].sort();
    expect(oldIds).toEqual(['1', '2']);

    h.server.connections[0]!.drop();
    await book.waitCount('subscribed', 2);
    await bbo.waitCount('subscribed', 2);
    expect(book.kinds()).toEqual(['subscribed', 'disconnected', 'subscribed']);
    const conn1 = h.server.connections[1]!;
    expect(conn1.framesOf('subscribe')).toHaveLength(2);
    expect(conn1.framesOf('unsubscribe')).toHaveLength(0);
    const bookNew = book.last('subscribed')!;
    expect(bookNew.generation).toBe(2);
    expect(['101', '102']).toContain(bookNew.subscriptionId);

    // An update naming an old id on the new connection reaches nobody and is reported.
    conn1.sendUpdate('1', 5, EMPTY_BOOK_UPDATE, 'book');
    await h.waitErrors(1);
    expect(h.errors[0]).toBeInstanceOf(FrameError);
    expect(h.errors[0]!.message).toContain('unknown subscription id 1');
    conn1.sendUpdate(bookNew.subscriptionId, 6, bookUpdate(5));
    await book.waitCount('update', 1);
    expect(book.updates()[0]!.seq).toBe(6n);
    expect(bbo.count('update')).toBe(0);
    expect(h.router.activeServerSubscriptions()).toBe(2);
  });

  test('ids reused by the next connection route to their new owners', async () => {
    const h = await startHarness();
    const book = new StreamRecorder(h.router.stream('book', BOOK_0));
    await book.waitCount('subscribed', 1);
    const bbo = new StreamRecorder(h.router.stream('bbo', BOOK_0));
    await bbo.waitCount('subscribed', 1);
    book.unsubscribe();
    await h.settled(1);
    h.server.connections[0]!.drop();
    await bbo.waitCount('subscribed', 2);
    // bbo had id 2 on the first socket, and has id 1 on the second one.
    expect(bbo.last('subscribed')!.subscriptionId).toBe('1');
    h.server.connections[1]!.sendUpdate('1', 1, { bid: null, ask: null });
    await bbo.waitCount('update', 1);
    expect(h.server.connections[1]!.framesOf('subscribe').map((f) => f.channel)).toEqual(['bbo']);
  });

  test('streams opened and closed while disconnected: frames only on open sockets, server state consistent', async () => {
    const sendStates: number[] = [];
    class RecordingWebSocket extends WebSocket {
      override send(data: string): void {
        sendStates.push(this.readyState);
        super.send(data);
      }
    }
    const h = await startHarness({ connection: { WebSocket: RecordingWebSocket, reconnect: { initialDelayMs: 30, jitter: 0 } } });
    const kept = new StreamRecorder(h.router.stream('book', BOOK_0));
    const dropped = new StreamRecorder(h.router.stream('bbo', BOOK_0));
    await kept.waitCount('subscribed', 1);
    await dropped.waitCount('subscribed', 1);
    h.server.connections[0]!.drop();
    await kept.waitCount('disconnected', 1);
    expect(h.connection.state).toBe('reconnecting');
    // While no socket is open: churn.
    dropped.unsubscribe();
    const added = new StreamRecorder(h.router.stream('trades', BOOK_1));
    const flicker = new StreamRecorder(h.router.stream('marketStats', BOOK_1));
    flicker.unsubscribe();
    expect(h.router.pendingRequests()).toBe(0);
    expect(h.router.activeServerSubscriptions()).toBe(0);

    await kept.waitCount('subscribed', 2);
    await added.waitCount('subscribed', 1);
    await h.settled(2);
    const conn1 = h.server.connections[1]!;
    expect(conn1.framesOf('subscribe').map((f) => f.channel).sort()).toEqual(['book', 'trades']);
    expect(conn1.framesOf('unsubscribe')).toHaveLength(0);
    expect(sendStates.every((s) => s === WebSocket.OPEN)).toBe(true);
    expect(h.router.activeServerSubscriptions()).toBe(2);
  });

  test('unsubscribe while the subscribe is in flight: the ack is followed by an unsubscribe', async () => {
    const h = await startHarness({ server: { autoAck: false } });
    const rec = new StreamRecorder(h.router.stream('book', BOOK_0));
    const conn = await h.server.connection(0);
    await conn.waitForFrame((f) => f.type === 'subscribe', 'subscribe');
    rec.unsubscribe();
    expect(h.router.pendingRequests()).toBe(1);
    conn.ack(conn.unanswered.shift()!);
    await h.settled(0);
    expect(conn.framesOf('unsubscribe')).toHaveLength(1);
    expect(rec.events).toEqual([]);
    expect(h.router.activeServerSubscriptions()).toBe(0);
  });

  test('subscribe, unsubscribe, subscribe while in flight: one server subscription, delivered to the newcomer', async () => {
    const h = await startHarness({ server: { autoAck: false } });
    const first = new StreamRecorder(h.router.stream('book', BOOK_0));
    const conn = await h.server.connection(0);
    await conn.waitForFrame((f) => f.type === 'subscribe', 'subscribe');
    first.unsubscribe();
    const second = new StreamRecorder(h.router.stream('book', BOOK_0));
    conn.ack(conn.unanswered.shift()!);
    await second.waitCount('subscribed', 1);
    await h.settled(1);
    expect(conn.framesOf('subscribe')).toHaveLength(1);
    expect(conn.framesOf('unsubscribe')).toHaveLength(0);
    expect(first.events).toEqual([]);
    second.unsubscribe();
    await h.settled(0);
  });

  test('seeded random churn over several streams never leaks or doubles a server subscription', async () => {
    const h = await startHarness();
    const random = mulberry32(7);
    const scopes = [BOOK_0, BOOK_1, { market_id: 2, is_perps: true }];
    const held: Subscription[][] = scopes.map(() => []);
    for (let round = 0; round < 6; round++) {
      for (let op = 0; op < 40; op++) {
        const k = Math.floor(random() * scopes.length);
        const subs = held[k]!;
        if (subs.length > 0 && random() < 0.5) subs.splice(Math.floor(random() * subs.length), 1)[0]!.unsubscribe();
        else subs.push(h.router.stream('book', scopes[k]!).subscribe());
      }
      const wanted = held.filter((s) => s.length > 0).length;
      await h.settled(wanted);
      expect(h.router.activeServerSubscriptions()).toBe(wanted);
      const live = [...h.server.connections[0]!.subscriptions.values()].map((f) => f.market_id).sort();
      expect(live).toEqual(scopes.map((s, i) => (held[i]!.length > 0 ? s.market_id : undefined)).filter((x) => x !== undefined).sort());
    }
    for (const subs of held) for (const s of subs.splice(0)) s.unsubscribe();
    await h.settled(0);
    expect(h.router.activeServerSubscriptions()).toBe(0);
    expect(h.router.pendingRequests()).toBe(0);
    expect(h.errors).toEqual([]);
  });

  test('a throwing subscriber does not disturb the others nor the router', async () => {
    const unhandled: unknown[] = [];
    const reported = new EventEmitter();
    const previous = config.onUnhandledError;
    config.onUnhandledError = (e) => {
      unhandled.push(e);
      reported.emit('reported');
    };
    try {
      const h = await startHarness();
      const thrower = h.router.stream('book', BOOK_0).subscribe(() => {
        throw new Error('subscriber bug');
      });
      const failing = new StreamRecorder(
        h.router.stream('book', BOOK_0).pipe(
          map((e: RouterEvent) => {
            if (e.kind === 'update') throw new Error('operator bug');
            return e;
          }),
        ),
      );
      const healthy = new StreamRecorder(h.router.stream('book', BOOK_0));
      await healthy.waitCount('subscribed', 1);
      const conn = h.server.connections[0]!;
      for (let seq = 1; seq <= 3; seq++) conn.sendUpdate('1', seq, bookUpdate(seq));
      await healthy.waitCount('update', 3);
      expect(healthy.updates().map((u) => u.seq)).toEqual([1n, 2n, 3n]);
      expect(failing.error!.message).toBe('operator bug');
      // The router still serves new streams on the same connection.
      const other = new StreamRecorder(h.router.stream('bbo', BOOK_0));
      await other.waitCount('subscribed', 1);
      // RxJS reports a throwing subscriber asynchronously, once per event it threw on.
      await waitUntil(reported, 'reported', () => unhandled.length >= 4, 'unhandled subscriber errors reported');
      expect(unhandled.every((e) => (e as Error).message === 'subscriber bug')).toBe(true);
      thrower.unsubscribe();
      healthy.unsubscribe();
      other.unsubscribe();
      await h.settled(0);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  test('an update that fails validation: resync_required invalid_update for that stream only, FrameError reported', async () => {
    const h = await startHarness();
    const book = new StreamRecorder(h.router.stream('book', BOOK_0));
    const bbo = new StreamRecorder(h.router.stream('bbo', BOOK_0));
    await book.waitCount('subscribed', 1);
    await bbo.waitCount('subscribed', 1);
    const conn = h.server.connections[0]!;
    const bookId = book.last('subscribed')!.subscriptionId;
    const bboId = bbo.last('subscribed')!.subscriptionId;
    conn.sendUpdate(bookId, 1, { bids: [{ price_ticks: '-1', size_base_lots: '1' }], asks: [] });
    conn.sendUpdate(bboId, 1, { bid: null, ask: null });
    await bbo.waitCount('update', 1);
    await book.waitCount('resync_required', 1);
    expect(book.last('resync_required')).toEqual({ kind: 'resync_required', reason: 'invalid_update' });
    expect(book.count('update')).toBe(0);
    expect(bbo.count('resync_required')).toBe(0);
    await h.waitErrors(1);
    expect(h.errors[0]).toBeInstanceOf(FrameError);
    expect(h.errors[0]!.context).toMatchObject({ channel: 'book', subscriptionId: bookId });
    expect(h.errors[0]!.message).toContain('bids[0].price_ticks');
    // The stream goes on.
    conn.sendUpdate(bookId, 2, EMPTY_BOOK_UPDATE);
    await book.waitCount('update', 1);
  });

  test.each([
    ['a seq that is not a Uint64', (id: string) => `{"type":"update","subscription_id":"${id}","channel":"book","seq":"-1","timestamp_ns":"5","data":{"bids":[],"asks":[]}}`],
    ['a timestamp_ns that is not a Uint64', (id: string) => `{"type":"update","subscription_id":"${id}","channel":"book","seq":"1","timestamp_ns":"1e9","data":{"bids":[],"asks":[]}}`],
    ['a frame that is not JSON', (id: string) => `{"type":"update","subscription_id":"${id}","channel":"book","seq":"1",`],
  ])('an update with %s resyncs its subscription (not only reported)', async (_what, frame) => {
    const h = await startHarness();
    const book = new StreamRecorder(h.router.stream('book', BOOK_0));
    const bbo = new StreamRecorder(h.router.stream('bbo', BOOK_0));
    await book.waitCount('subscribed', 1);
    await bbo.waitCount('subscribed', 1);
    const bookId = book.last('subscribed')!.subscriptionId;
    h.server.connections[0]!.send(frame(bookId));
    await book.waitCount('resync_required', 1);
    expect(book.last('resync_required')).toEqual({ kind: 'resync_required', reason: 'invalid_update' });
    expect(bbo.count('resync_required')).toBe(0);
    await h.waitErrors(1);
    expect(h.errors[0]).toBeInstanceOf(FrameError);
    expect(h.errors[0]!.context).toMatchObject({ channel: 'book', subscriptionId: bookId });
  });

  test('a decoder that throws on an update: the frame is reported and the subscription it names resyncs', async () => {
    const h = await startHarness({
      router: {
        decode: (text, options) => {
          if (text.includes('"type":"update"')) throw new RangeError('Maximum call stack size exceeded');
          return fastDecodeServerFrame(text, options);
        },
      },
    });
    const book = new StreamRecorder(h.router.stream('book', BOOK_0));
    await book.waitCount('subscribed', 1);
    const bookId = book.last('subscribed')!.subscriptionId;
    h.server.connections[0]!.sendUpdate(bookId, 1, EMPTY_BOOK_UPDATE);
    await book.waitCount('resync_required', 1);
    await h.waitErrors(1);
    expect(h.errors[0]).toBeInstanceOf(FrameError);
    expect(h.errors[0]!.message).toContain('Maximum call stack size exceeded');
    expect(h.errors[0]!.context).toMatchObject({ stream: 'book|market_id=0|is_perps=true' });
  });

  test('schema drift: unexpected keys dropped and reported by default, rejected when strict', async () => {
    const drift: Array<[DriftReport, DriftContext]> = [];
    const lax = await startHarness({ router: { onDrift: (r, c) => drift.push([r, c]) } });
    const rec = new StreamRecorder(lax.router.stream('book', BOOK_0));
    await rec.waitCount('subscribed', 1);
    lax.server.connections[0]!.sendUpdate('1', 1, { bids: [{ price_ticks: '1', size_base_lots: '2', venue: 'x' }], asks: [] });
    await rec.waitCount('update', 1);
    expect(rec.updates()[0]!.data).toEqual({ bids: [{ price_ticks: '1', size_base_lots: '2' }], asks: [] });
    expect(drift).toEqual([[{ path: 'bids[0]', keys: ['venue'] }, { channel: 'book', stream: 'book|market_id=0|is_perps=true' }]]);

    const strict = await startHarness({ router: { strict: true } });
    const srec = new StreamRecorder(strict.router.stream('book', BOOK_0));
    await srec.waitCount('subscribed', 1);
    strict.server.connections[0]!.sendUpdate('1', 1, { bids: [], asks: [], extra: true });
    await srec.waitCount('resync_required', 1);
    expect(srec.count('update')).toBe(0);
  });

  test('unparseable frames, unknown frame types and unknown ids are reported; nothing breaks', async () => {
    const h = await startHarness();
    const rec = new StreamRecorder(h.router.stream('book', BOOK_0));
    await rec.waitCount('subscribed', 1);
    const conn = h.server.connections[0]!;
    conn.send('{not json');
    conn.send({ type: 'snapshot', subscription_id: '1' });
    conn.sendUpdate('77', 1, EMPTY_BOOK_UPDATE, 'book');
    conn.sendResync('78', 'gap');
    conn.send({ type: 'subscribed', request_id: 'nobody', subscription_id: '9', channel: 'book' });
    conn.sendError('INVALID_MESSAGE', 'what was that', '');
    conn.sendUpdate('1', 1, EMPTY_BOOK_UPDATE);
    await rec.waitCount('update', 1);
    await h.waitErrors(6);
    expect(h.errors.map((e) => e.code)).toEqual(['ERR_FRAME_INVALID', 'ERR_FRAME_INVALID', 'ERR_FRAME_INVALID', 'ERR_FRAME_INVALID', 'ERR_FRAME_INVALID', 'INVALID_MESSAGE']);
    expect(h.errors[0]!.message).toMatch(/not valid JSON/);
    expect(h.errors[2]!.context.subscriptionId).toBe('77');
    expect(h.connection.state).toBe('open');
    // The unreadable frame of an unknown type named subscription 1: it may have carried a change, so that stream resyncs.
    expect(rec.kinds()).toEqual(['subscribed', 'resync_required', 'update']);
  });

  test('an injected decoder is used; data it marks as validated is not checked again', async () => {
    let calls = 0;
    const decode: FrameDecoder = (text, opts) => {
      calls++;
      const r = decodeServerFrame(text, opts);
      // Pretend to be a fast path that validated this update's data (deliberately not book-shaped).
      return r.ok && r.frame.type === 'update' && (r.frame.data as { trusted?: boolean }).trusted ? { ...r, dataValidated: true } : r;
    };
    const h = await startHarness({ router: { decode } });
    const rec = new StreamRecorder(h.router.stream('book', BOOK_0));
    await rec.waitCount('subscribed', 1);
    const conn = h.server.connections[0]!;
    conn.sendUpdate('1', 1, { trusted: true });
    conn.sendUpdate('1', 2, { untrusted: true });
    await rec.waitCount('resync_required', 1);
    expect(rec.kinds()).toEqual(['subscribed', 'update', 'resync_required']);
    expect(rec.updates()[0]!.data).toEqual({ trusted: true });
    expect(calls).toBeGreaterThanOrEqual(3);
  });
});
