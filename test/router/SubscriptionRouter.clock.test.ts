/** The router reads time only through its `clock` option: receive stamps and request deadlines. */
import { RequestTimeoutError } from '../../src/errors';
import { ManualClock } from '../helpers/ManualClock';
import { BOOK_0, closeHarnesses, EMPTY_BOOK_UPDATE, startHarness, StreamRecorder } from './routerHarness';

afterEach(closeHarnesses);

test('receivedAtNs is the clock reading when the frame arrived', async () => {
  const clock = new ManualClock(0, 5_000_000_000n);
  const h = await startHarness({ router: { clock } });
  const book = new StreamRecorder(h.router.stream('book', BOOK_0));
  await book.waitCount('subscribed', 1);
  await clock.advance(1.5);
  const id = book.last('subscribed')!.subscriptionId;
  h.server.connections[0]!.sendUpdate(id, 1, EMPTY_BOOK_UPDATE, 'book');
  await book.waitCount('update', 1);
  expect(book.updates()[0]!.receivedAtNs).toBe(5_001_500_000n);
});

test('a subscribe times out on the clock, not on the process timers', async () => {
  const clock = new ManualClock();
  const h = await startHarness({ server: { autoAck: false }, router: { clock, requestTimeoutMs: 10_000 } });
  const book = new StreamRecorder(h.router.stream('book', BOOK_0));
  await (await h.server.connection(0)).waitForFrame((f) => f.type === 'subscribe', 'the subscribe');
  await clock.advance(9_999);
  expect(book.error).toBeUndefined();
  expect(h.router.pendingRequests()).toBe(1);
  await clock.advance(1);
  await book.waitError();
  expect(book.error).toBeInstanceOf(RequestTimeoutError);
  expect(h.router.pendingRequests()).toBe(0);
});
