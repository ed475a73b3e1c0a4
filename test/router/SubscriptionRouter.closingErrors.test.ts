/**
 * The error frames after which the server closes, decoded once by the router, which tells
 * the connection what to do: FEED_UNAVAILABLE is final on a fresh socket and a reconnect on
 * a serving one; HEARTBEAT_TIMEOUT reconnects with the server's reason. Real sockets.
 */
import WebSocket from 'ws';
import type { CloseInfo } from '../../src/connection';
import { FeedError, type ExchangeReplicaError } from '../../src/errors';
import type { WsTestServerOptions } from '../helpers/WsTestServer';
import { BOOK_0, closeHarnesses, startHarness, StreamRecorder } from './routerHarness';

afterEach(closeHarnesses);

/** Counts the sockets the connection creates. */
const created = { count: 0 };
class CountingWebSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    created.count++;
  }
}
beforeEach(() => (created.count = 0));

test('FEED_UNAVAILABLE on a fresh socket is final: failed with a FeedError, no reconnect, streams error with it', async () => {
  const h = await startHarness({ server: { refuseConnectionsWith: 'FEED_UNAVAILABLE' }, connection: { WebSocket: CountingWebSocket, reconnect: { initialDelayMs: 1, jitter: 0 } } });
  const connectionErrors: ExchangeReplicaError[] = [];
  const closes: CloseInfo[] = [];
  h.connection.on('error', (e) => connectionErrors.push(e));
  h.connection.on('close', (i) => closes.push(i));
  const book = new StreamRecorder(h.router.stream('book', BOOK_0));
  await book.waitError();
  expect(book.error).toBeInstanceOf(FeedError);
  expect(book.error).toMatchObject({ code: 'FEED_UNAVAILABLE', message: expect.stringMatching(new RegExp(`feed at ${h.server.url} is not available.*not reconnecting`)) });
  expect(h.connection.state).toBe('failed');
  expect(h.connection.failureError).toBe(book.error);
  expect(connectionErrors).toEqual([book.error]);
  expect(closes.map((c) => c.willReconnect)).toEqual([false]);
  // The frame is the connection's business, not a router error.
  expect(h.errors).toEqual([]);

  await h.server.connections[0]!.waitClosed();
  // A probe connects after the refusal was handled: had the client been looping (1 ms backoff), it would have come back by now.
  const probe = new WebSocket(h.server.url);
  probe.on('error', () => undefined);
  await h.server.connection(1);
  probe.terminate();
  expect(created.count).toBe(1);
  expect(h.connection.state).toBe('failed');
  // A later stream fails at once with the same error.
  const late = new StreamRecorder(h.router.stream('bbo', BOOK_0));
  expect(late.error).toBe(book.error);
});

test('FEED_UNAVAILABLE on a serving socket reconnects; on the fresh socket after it, it is final', async () => {
  const serverOptions: WsTestServerOptions = {};
  const h = await startHarness({ server: serverOptions, connection: { WebSocket: CountingWebSocket } });
  const closes: CloseInfo[] = [];
  h.connection.on('close', (i) => closes.push(i));
  const book = new StreamRecorder(h.router.stream('book', BOOK_0));
  await book.waitCount('subscribed', 1);

  serverOptions.refuseConnectionsWith = 'FEED_UNAVAILABLE';
  h.server.connections[0]!.sendError('FEED_UNAVAILABLE', 'deploying');
  await book.waitError();
  expect(closes[0]).toEqual({ code: 1000, reason: expect.stringContaining('FEED_UNAVAILABLE on a connection that was serving (deploying): reconnecting'), willReconnect: true });
  expect(book.kinds()).toEqual(['subscribed', 'disconnected']);
  expect(book.error).toMatchObject({ code: 'FEED_UNAVAILABLE' });
  expect(h.connection.state).toBe('failed');
  expect(created.count).toBe(2);
  await h.server.connections[0]!.waitClosed();
});

test('HEARTBEAT_TIMEOUT: the close that follows reconnects with the server reason, streams re-subscribe', async () => {
  const h = await startHarness();
  const closes: CloseInfo[] = [];
  h.connection.on('close', (i) => closes.push(i));
  const book = new StreamRecorder(h.router.stream('book', BOOK_0));
  await book.waitCount('subscribed', 1);
  h.server.connections[0]!.heartbeatTimeout();
  await book.waitCount('subscribed', 2);
  expect(closes).toEqual([{ code: 1000, reason: 'server sent HEARTBEAT_TIMEOUT: no message received for 60 seconds', willReconnect: true }]);
  expect(book.kinds()).toEqual(['subscribed', 'disconnected', 'subscribed']);
  expect(h.connection.generation).toBe(2);
  expect(h.errors).toEqual([]);
});
