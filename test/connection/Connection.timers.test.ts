/**
 * Time is the subject here (heartbeat, pong deadline, backoff, stable reset, close), so
 * these tests run on jest's fake timers with a scriptable socket double.
 */
import { Connection, type CloseInfo, type ConnectionOptions, type StateChange } from '../../src/connection';
import { ExchangeReplicaError, FeedError } from '../../src/errors';
import { FakeSocket } from './FakeSocket';
import { seededRandom as mulberry32 } from '../../benchmarks/lib/rng';


const connections: Connection[] = [];
function make(options: Partial<ConnectionOptions> = {}): Connection {
  const c = new Connection({ url: 'ws://fake.invalid/ws', WebSocket: FakeSocket, random: () => 0, ...options });
  connections.push(c);
  return c;
}

/** Lets promise continuations (the reconnect loop) run without moving the clock. */
const flush = () => jest.advanceTimersByTimeAsync(0);

/** Fails the current socket and returns the delay until the connection created the next one. */
async function failAndMeasure(): Promise<number> {
  const count = FakeSocket.instances.length;
  const failedAt = Date.now();
  FakeSocket.last().fail();
  await flush();
  await jest.advanceTimersToNextTimerAsync();
  expect(FakeSocket.instances.length).toBe(count + 1);
  return FakeSocket.last().createdAt - failedAt;
}

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
  FakeSocket.reset();
});

afterEach(() => {
  for (const c of connections.splice(0)) c.close();
  jest.useRealTimers();
});

describe('Connection (fake timers)', () => {
  test('is lazy: no socket before connect(), one socket after, connect() again is a no-op', () => {
    const c = make();
    expect(FakeSocket.instances).toHaveLength(0);
    expect(c.state).toBe('idle');
    c.connect();
    c.connect();
    expect(FakeSocket.instances).toHaveLength(1);
    expect(c.state).toBe('connecting');
    FakeSocket.last().open();
    expect(c.state).toBe('open');
  });

  test('pings every heartbeatIntervalMs; any server frame answers; silence past pongTimeoutMs kills the socket', async () => {
    const c = make({ heartbeatIntervalMs: 15_000, pongTimeoutMs: 10_000 });
    const closes: CloseInfo[] = [];
    const messages: string[] = [];
    c.on('close', (i) => closes.push(i));
    c.on('message', (m) => messages.push(m));
    c.connect();
    const s = FakeSocket.last();
    s.open();

    await jest.advanceTimersByTimeAsync(14_999);
    expect(s.pings()).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(s.pings()).toBe(1);
    const ping = JSON.parse(s.sent[0]!) as { type: string; request_id: string };
    expect(ping).toEqual({ type: 'ping', request_id: expect.any(String) });

    // A pong just before the deadline keeps it alive.
    await jest.advanceTimersByTimeAsync(9_999);
    s.receive({ type: 'pong', request_id: ping.request_id, timestamp_ns: '1' });
    expect(messages).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(5_001);
    expect(s.pings()).toBe(2);

    // Any frame counts as life, not only a pong.
    await jest.advanceTimersByTimeAsync(9_000);
    s.receive({ type: 'update', subscription_id: '1', channel: 'bbo', seq: '1', timestamp_ns: '1', data: {} });
    await jest.advanceTimersByTimeAsync(6_000);
    expect(s.pings()).toBe(3);
    expect(c.state).toBe('open');

    // Silence: dead exactly at the deadline.
    await jest.advanceTimersByTimeAsync(9_999);
    expect(c.state).toBe('open');
    expect(s.terminated).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(s.terminated).toBe(true);
    expect(c.state).toBe('reconnecting');
    expect(closes).toEqual([{ code: 1006, reason: expect.stringContaining('no frame from the server within 10000 ms'), willReconnect: true }]);
    // The dead socket gets no more pings.
    const sentBefore = s.sent.length;
    await jest.advanceTimersByTimeAsync(60_000);
    expect(s.sent.length).toBe(sentBefore);
  });

  test('backoff delays grow by factor up to maxDelayMs', async () => {
    const c = make({ reconnect: { initialDelayMs: 100, maxDelayMs: 1_000, factor: 2, jitter: 0 } });
    c.connect();
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) delays.push(await failAndMeasure());
    expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
    expect(c.state).toBe('reconnecting');
  });

  test('jitter keeps each delay within [base * (1 - jitter), base] and follows the injected random source', async () => {
    const draws: number[] = [];
    const seeded = mulberry32(42);
    const random = () => {
      const r = seeded();
      draws.push(r);
      return r;
    };
    const c = make({ random, reconnect: { initialDelayMs: 100, maxDelayMs: 1_000, factor: 2, jitter: 0.5 } });
    c.connect();
    for (let attempt = 0; attempt < 8; attempt++) {
      const delay = await failAndMeasure();
      const base = Math.min(1_000, 100 * 2 ** attempt);
      expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.5));
      expect(delay).toBeLessThanOrEqual(base);
      expect(delay).toBe(Math.round(base * (1 - 0.5 * draws[attempt]!)));
    }
  });

  test('the attempt counter resets only after the connection stayed open stableAfterMs', async () => {
    const c = make({ reconnect: { initialDelayMs: 100, maxDelayMs: 10_000, factor: 2, jitter: 0, stableAfterMs: 5_000 } });
    const opens: number[] = [];
    c.on('open', (i) => opens.push(i.attempts));
    c.connect();
    expect(await failAndMeasure()).toBe(100);
    expect(await failAndMeasure()).toBe(200);
    FakeSocket.last().open();
    expect(opens).toEqual([2]);

    // Dropped before it was stable: backoff continues.
    await jest.advanceTimersByTimeAsync(4_999);
    expect(await failAndMeasure()).toBe(400);
    FakeSocket.last().open();

    // Stable: the next drop starts over.
    await jest.advanceTimersByTimeAsync(5_000);
    expect(await failAndMeasure()).toBe(100);
  });

  test('a socket that does not open within connectTimeoutMs counts as a failed attempt', async () => {
    const c = make({ connectTimeoutMs: 2_000, reconnect: { initialDelayMs: 100, jitter: 0 } });
    c.connect();
    const first = FakeSocket.last();
    await jest.advanceTimersByTimeAsync(1_999);
    expect(first.terminated).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(first.terminated).toBe(true);
    expect(c.state).toBe('reconnecting');
    await jest.advanceTimersByTimeAsync(100);
    expect(FakeSocket.instances).toHaveLength(2);
  });

  test('a socket class that throws: reported, retried with backoff, no connect timer left behind, nothing thrown from a timer', async () => {
    let throwsLeft = 2;
    const thrown: Error[] = [];
    class Throwing extends FakeSocket {
      constructor(url: string) {
        if (throwsLeft-- > 0) {
          thrown.push(new SyntaxError(`The URL '${url}' is invalid`));
          throw thrown[thrown.length - 1];
        }
        super(url);
      }
    }
    const c = make({ WebSocket: Throwing, connectTimeoutMs: 1_000, reconnect: { initialDelayMs: 100, jitter: 0 } });
    const errors: ExchangeReplicaError[] = [];
    c.on('error', (e) => errors.push(e));
    c.connect();
    await flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ERR_CONNECTION_FAILED', cause: thrown[0] });
    expect(c.state).toBe('reconnecting');
    // Only the backoff's sleep: the failed attempt left no connect timer.
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(100);
    expect(errors).toHaveLength(2);
    expect(errors[1]!.cause).toBe(thrown[1]);
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(200);
    expect(FakeSocket.instances).toHaveLength(1);
    FakeSocket.last().open();
    expect(c.state).toBe('open');
    // Well past every connect timeout of the failed attempts: nothing fires for them.
    await jest.advanceTimersByTimeAsync(5_000);
    expect(errors).toHaveLength(2);
    c.close();
    expect(jest.getTimerCount()).toBe(0);
  });

  test('retries exhausted: failed, with a ConnectionFailedError, nothing left running', async () => {
    const c = make({ reconnect: { initialDelayMs: 10, jitter: 0, retries: 3 } });
    const errors: ExchangeReplicaError[] = [];
    c.on('error', (e) => errors.push(e));
    c.connect();
    FakeSocket.last().fail();
    for (let i = 0; i < 3; i++) {
      await jest.advanceTimersByTimeAsync(1_000);
      FakeSocket.last().fail();
    }
    await flush();
    expect(FakeSocket.instances).toHaveLength(4);
    expect(c.state).toBe('failed');
    // Each failed attempt is reported (its socket's error as cause), then the final failure.
    expect(errors.map((e) => e.code)).toEqual(Array(5).fill('ERR_CONNECTION_FAILED'));
    expect(errors[0]!.cause).toEqual(new Error('ECONNRESET'));
    expect(c.failureError).toBe(errors[4]);
    expect(c.failureError!.cause).toBe(errors[3]);
    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(FakeSocket.instances).toHaveLength(4);
  });

  test('fail(): failed at once with that error, socket closed, no reconnect, nothing left running', async () => {
    const c = make();
    const errors: ExchangeReplicaError[] = [];
    const closes: CloseInfo[] = [];
    c.on('error', (e) => errors.push(e));
    c.on('close', (i) => closes.push(i));
    c.connect();
    const s = FakeSocket.last();
    s.open();
    const refusal = new FeedError('FEED_UNAVAILABLE', 'no feed here');
    c.fail(refusal, 'server sent FEED_UNAVAILABLE');
    expect(c.state).toBe('failed');
    expect(c.failureError).toBe(refusal);
    expect(errors).toEqual([refusal]);
    expect(closes).toEqual([{ code: 1000, reason: 'server sent FEED_UNAVAILABLE', willReconnect: false }]);
    expect(s.closedByClient).toBe(true);
    c.fail(new FeedError('FEED_UNAVAILABLE', 'again'));
    expect(errors).toHaveLength(1);
    s.fail(1000);
    await jest.advanceTimersByTimeAsync(120_000);
    expect(FakeSocket.instances).toHaveLength(1);
    expect(jest.getTimerCount()).toBe(0);
    expect(c.send({ type: 'ping', request_id: 'x' })).toBe(false);
  });

  test('error frames are handed on like any other frame: the connection does not read them', async () => {
    const c = make();
    const messages: string[] = [];
    c.on('message', (m) => messages.push(m));
    c.connect();
    FakeSocket.last().open();
    const frame = { type: 'error', request_id: '', subscription_id: null, code: 'FEED_UNAVAILABLE', error: 'no feed here' };
    FakeSocket.last().receive(frame);
    expect(messages).toEqual([JSON.stringify(frame)]);
    expect(c.state).toBe('open');
  });

  test('reconnect(): closes the open socket and reconnects with backoff, with that reason', async () => {
    const c = make({ reconnect: { initialDelayMs: 50, jitter: 0 } });
    const closes: CloseInfo[] = [];
    c.on('close', (i) => closes.push(i));
    c.connect();
    const first = FakeSocket.last();
    first.open();
    c.reconnect('feed withdrawn');
    expect(first.closedByClient).toBe(true);
    expect(c.state).toBe('reconnecting');
    expect(closes).toEqual([{ code: 1000, reason: 'feed withdrawn', willReconnect: true }]);
    await jest.advanceTimersByTimeAsync(49);
    expect(FakeSocket.instances).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(FakeSocket.instances).toHaveLength(2);
    // Not open: nothing to do.
    c.reconnect('again');
    expect(closes).toHaveLength(1);
  });

  test('expectClose(): the close that follows reconnects with that reason', async () => {
    const c = make({ reconnect: { initialDelayMs: 50, jitter: 0 } });
    const closes: CloseInfo[] = [];
    c.on('close', (i) => closes.push(i));
    c.connect();
    FakeSocket.last().open();
    c.expectClose('server sent HEARTBEAT_TIMEOUT: idle');
    expect(c.state).toBe('open');
    FakeSocket.last().fail(1000);
    expect(c.state).toBe('reconnecting');
    expect(closes).toEqual([{ code: 1000, reason: 'server sent HEARTBEAT_TIMEOUT: idle', willReconnect: true }]);
    await jest.advanceTimersByTimeAsync(50);
    expect(FakeSocket.instances).toHaveLength(2);
    // The reason belonged to that socket only.
    FakeSocket.last().open();
    FakeSocket.last().fail(1000);
    expect(closes[1]!.reason).toMatch(/socket closed by the server \(code 1000/);
  });

  test('close() cancels everything, from any state', async () => {
    // While waiting for a backoff delay.
    const a = make({ reconnect: { initialDelayMs: 5_000 } });
    a.connect();
    FakeSocket.last().fail();
    await flush();
    expect(jest.getTimerCount()).toBe(1);
    a.close();
    expect(a.state).toBe('closed');
    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(FakeSocket.instances).toHaveLength(1);

    // While a socket is opening.
    const b = make();
    b.connect();
    const opening = FakeSocket.last();
    b.close();
    await flush();
    expect(opening.terminated).toBe(true);
    expect(jest.getTimerCount()).toBe(0);

    // While open (keep-alive and stable timers running).
    const c = make();
    const closes: CloseInfo[] = [];
    c.on('close', (i) => closes.push(i));
    c.connect();
    const open = FakeSocket.last();
    open.open();
    expect(jest.getTimerCount()).toBeGreaterThan(0);
    c.close();
    c.close();
    expect(open.closedByClient).toBe(true);
    expect(closes).toEqual([{ code: 1000, reason: 'closed by the client', willReconnect: false }]);
    expect(jest.getTimerCount()).toBe(0);
    expect(c.send({ type: 'ping', request_id: 'x' })).toBe(false);
    c.connect();
    expect(FakeSocket.instances).toHaveLength(3);
  });

  test('state changes are published on the emitter and on state$, in order, each with a reason', async () => {
    const c = make({ reconnect: { initialDelayMs: 10, jitter: 0 } });
    const fromEmitter: StateChange[] = [];
    const fromSubject: StateChange[] = [];
    c.on('state', (s) => fromEmitter.push(s));
    let completed = false;
    c.state$.subscribe({ next: (s) => fromSubject.push(s), complete: () => (completed = true) });
    c.connect();
    FakeSocket.last().open();
    FakeSocket.last().fail();
    await jest.advanceTimersByTimeAsync(10);
    FakeSocket.last().open();
    c.close();
    const path = (xs: StateChange[]) => xs.map((x) => `${x.from}>${x.to}`);
    expect(path(fromEmitter)).toEqual(['idle>connecting', 'connecting>open', 'open>reconnecting', 'reconnecting>open', 'open>closed']);
    expect(path(fromSubject)).toEqual(['idle>idle', ...path(fromEmitter)]);
    expect(fromEmitter.every((s) => s.reason.length > 0)).toBe(true);
    expect(completed).toBe(true);
  });

  test('send() sends only on an open socket and never replays frames after a reconnect', async () => {
    const c = make({ reconnect: { initialDelayMs: 10, jitter: 0 } });
    expect(c.send({ type: 'ping', request_id: 'a' })).toBe(false);
    c.connect();
    expect(c.send({ type: 'ping', request_id: 'b' })).toBe(false);
    const first = FakeSocket.last();
    first.open();
    expect(c.send({ type: 'ping', request_id: 'c' })).toBe(true);
    first.fail();
    expect(c.send({ type: 'ping', request_id: 'd' })).toBe(false);
    await jest.advanceTimersByTimeAsync(10);
    const second = FakeSocket.last();
    second.open();
    expect(first.sent.map((s) => JSON.parse(s).request_id)).toEqual(['c']);
    expect(second.sent).toEqual([]);
  });
});
