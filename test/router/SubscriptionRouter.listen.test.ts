/** SubscriptionRouter.listen: the direct path replicas use, with the semantics of `stream`. */
import { ClientClosedError, FeedError, InvalidParameterError, SubscriberError } from '../../src/errors';
import type { RouterEvent, StreamListener } from '../../src/router';
import type { Scope } from '../../src/protocol';
import { waitUntil } from '../helpers/WsTestServer';
import { BOOK_0, bookUpdate, closeHarnesses, startHarness, StreamRecorder } from './routerHarness';
import { EventEmitter } from 'node:events';

afterEach(closeHarnesses);

/** A listener recording what it gets; `onNext` runs after each event is recorded. */
class Recorder extends EventEmitter implements StreamListener {
  readonly events: RouterEvent[] = [];
  error_: unknown;
  completed = false;
  onNext: ((e: RouterEvent) => void) | undefined;
  next(e: RouterEvent): void {
    this.events.push(e);
    this.emit('event');
    this.onNext?.(e);
  }
  error(e: unknown): void {
    this.error_ = e;
    this.emit('event');
  }
  complete(): void {
    this.completed = true;
    this.emit('event');
  }
  count(kind: RouterEvent['kind']): number {
    return this.events.filter((e) => e.kind === kind).length;
  }
  waitCount(kind: RouterEvent['kind'], n: number): Promise<void> {
    return waitUntil(this, 'event', () => this.count(kind) >= n, `${n} ${kind}`);
  }
}

describe('SubscriptionRouter.listen', () => {
  test('gets the same events as a stream subscriber, in order, sharing the server subscription', async () => {
    const h = await startHarness();
    const direct = new Recorder();
    const unlisten = h.router.listen('book', BOOK_0, direct);
    const rx = new StreamRecorder(h.router.stream('book', BOOK_0));
    await direct.waitCount('subscribed', 1);
    await rx.waitCount('subscribed', 1);
    const conn = h.server.connections[0]!;
    expect(conn.framesOf('subscribe')).toHaveLength(1);
    conn.sendUpdate('1', 1, bookUpdate(100));
    conn.sendUpdate('1', 2, bookUpdate(101));
    await direct.waitCount('update', 2);
    await rx.waitCount('update', 2);
    expect(direct.events).toEqual(rx.events);
    unlisten();
    unlisten(); // idempotent
    rx.unsubscribe();
    await h.settled(0);
    expect(conn.framesOf('unsubscribe')).toHaveLength(1);
  });

  test('a listener unsubscribed by another during a dispatch gets nothing more; one that throws affects nobody', async () => {
    const h = await startHarness();
    const first = new Recorder();
    const second = new Recorder();
    const third = new Recorder();
    h.router.listen('book', BOOK_0, first);
    const unlistenSecond = h.router.listen('book', BOOK_0, second);
    h.router.listen('book', BOOK_0, third);
    await third.waitCount('subscribed', 1);
    first.onNext = (e) => {
      if (e.kind === 'update') {
        unlistenSecond();
        throw new Error('consumer bug');
      }
    };
    const errors = h.router.errors;
    const reported: unknown[] = [];
    errors.subscribe((e) => reported.push(e));
    h.server.connections[0]!.sendUpdate('1', 1, bookUpdate(100));
    await third.waitCount('update', 1);
    expect(first.count('update')).toBe(1);
    expect(second.count('update')).toBe(0);
    expect(reported).toEqual([expect.any(SubscriberError)]);
  });

  test('refusals error the listener at once, and a refused subscribe errors every listener', async () => {
    const h = await startHarness({ server: { refuseSubscribe: (f) => (f.channel === 'bbo' ? { code: 'INVALID_SUBSCRIPTION', error: 'no such market' } : undefined) } });
    const bad = new Recorder();
    const unlisten = h.router.listen('book', { market_id: 0 } as unknown as Scope, bad);
    expect(bad.error_).toBeInstanceOf(InvalidParameterError);
    unlisten();
    const refused = new Recorder();
    h.router.listen('bbo', BOOK_0, refused);
    await waitUntil(refused, 'event', () => refused.error_ !== undefined, 'an error');
    expect(refused.error_).toBeInstanceOf(FeedError);
    h.router.close();
    const late = new Recorder();
    h.router.listen('book', BOOK_0, late);
    expect(late.error_).toBeInstanceOf(ClientClosedError);
  });

  test('close() completes every listener; one that throws on the end does not stop the others', async () => {
    const h = await startHarness();
    const a = new Recorder();
    const b = new Recorder();
    a.complete = () => {
      throw new Error('consumer bug');
    };
    h.router.listen('book', BOOK_0, a);
    h.router.listen('book', BOOK_0, b);
    await b.waitCount('subscribed', 1);
    h.router.close();
    expect(b.completed).toBe(true);
  });
});
