/**
 * The connection reads time only through its `clock` option: keep-alive, connect timeout,
 * backoff and the stable period all run on an injected manual clock, with the process's
 * timers untouched.
 */
import { Connection, type CloseInfo } from '../../src/connection';
import { ManualClock } from '../helpers/ManualClock';
import { FakeSocket } from './FakeSocket';

const connections: Connection[] = [];
afterEach(() => {
  for (const c of connections.splice(0)) c.close();
  FakeSocket.reset();
});

function make(clock: ManualClock): Connection {
  const c = new Connection({
    url: 'ws://fake.invalid/ws',
    WebSocket: FakeSocket,
    clock,
    heartbeatIntervalMs: 1_000,
    pongTimeoutMs: 500,
    connectTimeoutMs: 2_000,
    reconnect: { initialDelayMs: 100, maxDelayMs: 1_000, jitter: 0, stableAfterMs: 5_000 },
  });
  connections.push(c);
  return c;
}

test('every timer of the connection runs on the injected clock', async () => {
  const clock = new ManualClock();
  const c = make(clock);
  const closes: CloseInfo[] = [];
  c.on('close', (i) => closes.push(i));
  c.connect();

  // Connect timeout, then the first backoff delay.
  await clock.advance(1_999);
  expect(FakeSocket.last().terminated).toBe(false);
  await clock.advance(1);
  expect(FakeSocket.last().terminated).toBe(true);
  expect(c.state).toBe('reconnecting');
  await clock.advance(99);
  expect(FakeSocket.instances).toHaveLength(1);
  await clock.advance(1);
  expect(FakeSocket.instances).toHaveLength(2);

  // Keep-alive: a ping per interval, a dead socket after a silent pong window.
  const s = FakeSocket.last();
  s.open();
  await clock.advance(1_000);
  expect(s.pings()).toBe(1);
  await clock.advance(500);
  expect(s.terminated).toBe(true);
  expect(closes).toEqual([{ code: 1006, reason: expect.stringContaining('no frame from the server within 500 ms'), willReconnect: true }]);

  // Backoff continued (second retry: 200 ms); the stable period then resets it.
  await clock.advance(200);
  expect(FakeSocket.instances).toHaveLength(3);
  FakeSocket.last().open();
  for (let t = 0; t < 5_000; t += 500) {
    await clock.advance(500);
    FakeSocket.last().receive({ type: 'pong', request_id: 'x', timestamp_ns: '1' });
  }
  FakeSocket.last().fail();
  await clock.advance(100);
  expect(FakeSocket.instances).toHaveLength(4);

  c.close();
  expect(clock.pendingTimers).toBe(0);
});
