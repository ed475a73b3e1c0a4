/**
 * A socket that cannot even be set up (its class throws: a malformed URL, a browser's
 * SecurityError; or a listener setup throws) is reported on `error` as ERR_CONNECTION_FAILED
 * with the thrown error as `cause`, and retried with backoff: against the real simulator,
 * the connection then opens and serves; nothing throws out of a timer.
 */
import WebSocket from 'ws';
import { Connection, type StateChange } from '../../src/connection';
import { ConnectionFailedError, type ExchangeReplicaError } from '../../src/errors';
import { Simulator } from '../../src/simulator';
import { waitUntil } from '../helpers/WsTestServer';
import { StandardSocket } from './StandardSocket';

let sim: Simulator;
const connections: Connection[] = [];

beforeAll(async () => {
  sim = await Simulator.start({ seed: 7 });
});
afterEach(() => {
  for (const c of connections.splice(0)) c.close();
});
afterAll(async () => {
  await sim.stop();
});

/** What a browser throws for a URL its page may not open (a DOMException in a browser). */
class SecurityError extends Error {
  override readonly name = 'SecurityError';
}

/** A `ws` class that throws in its constructor the first `n` times. */
function wsThrowingFirst(n: number): { ctor: new (url: string, options: WebSocket.ClientOptions) => WebSocket; thrown: Error[] } {
  const thrown: Error[] = [];
  class ThrowsFirst extends WebSocket {
    constructor(url: string, options: WebSocket.ClientOptions) {
      if (thrown.length < n) {
        const e = new SyntaxError(`The URL '${url}' is invalid (attempt ${thrown.length + 1})`);
        thrown.push(e);
        throw e;
      }
      super(url, options);
    }
  }
  return { ctor: ThrowsFirst, thrown };
}

/** A standard-shaped class that throws in its constructor the first `n` times. */
function standardThrowingFirst(n: number): { ctor: typeof StandardSocket; thrown: Error[] } {
  const thrown: Error[] = [];
  class ThrowsFirst extends StandardSocket {
    constructor(url: string) {
      if (thrown.length < n) {
        const e = new SecurityError(`Failed to construct 'WebSocket': access to ${url} refused (attempt ${thrown.length + 1})`);
        thrown.push(e);
        throw e;
      }
      super(url);
    }
  }
  return { ctor: ThrowsFirst, thrown };
}

function watch(c: Connection): { errors: ExchangeReplicaError[]; states: StateChange[] } {
  const r = { errors: [] as ExchangeReplicaError[], states: [] as StateChange[] };
  c.on('error', (e) => r.errors.push(e));
  c.on('state', (s) => r.states.push(s));
  return r;
}

describe.each([
  ['ws-style class', wsThrowingFirst],
  ['standard class', standardThrowingFirst],
])('%s whose constructor throws the first 3 times', (_label, throwingFirst) => {
  test('each failure is reported with its cause and retried with backoff; then it opens and serves the simulator', async () => {
    const { ctor, thrown } = throwingFirst(3);
    const c = new Connection({ url: sim.wsUrl, WebSocket: ctor, reconnect: { initialDelayMs: 5, maxDelayMs: 40, jitter: 0 } });
    connections.push(c);
    const r = watch(c);
    const messages: string[] = [];
    c.on('message', (m) => messages.push(m));
    c.connect();
    await waitUntil(c as never, 'state', () => c.state === 'open', 'open after the failures');
    expect(thrown).toHaveLength(3);
    expect(r.errors).toHaveLength(3);
    r.errors.forEach((e, i) => {
      expect(e).toBeInstanceOf(ConnectionFailedError);
      expect(e.code).toBe('ERR_CONNECTION_FAILED');
      expect(e.cause).toBe(thrown[i]);
      expect(e.message).toContain(thrown[i]!.message);
    });
    expect(r.states.map((s) => s.to)).toEqual(['connecting', 'reconnecting', 'open']);
    expect(c.generation).toBe(1);
    // The socket serves: a ping is answered.
    expect(c.send({ type: 'ping', request_id: c.nextRequestId() })).toBe(true);
    await waitUntil(c as never, 'message', () => messages.some((m) => m.includes('"pong"')), 'a pong');
  });
});

test('a listener setup that throws is reported, the half-made socket ended, and the next attempt works', async () => {
  const made: WebSocket[] = [];
  const boom = new Error('listener registry full');
  class ThrowingOn extends WebSocket {
    constructor(url: string, options: WebSocket.ClientOptions) {
      super(url, options);
      made.push(this);
      if (made.length > 1) return;
      // The first socket refuses its 'message' listener.
      const on = this.on.bind(this);
      const refusing = (event: string, listener: (...args: unknown[]) => void): WebSocket => {
        if (event === 'message') throw boom;
        return on(event, listener);
      };
      Reflect.defineProperty(this, 'on', { value: refusing });
    }
  }
  const c = new Connection({ url: sim.wsUrl, WebSocket: ThrowingOn, reconnect: { initialDelayMs: 5, jitter: 0 } });
  connections.push(c);
  const r = watch(c);
  c.connect();
  await waitUntil(c as never, 'state', () => c.state === 'open', 'open on the second socket');
  expect(r.errors).toHaveLength(1);
  expect(r.errors[0]).toMatchObject({ code: 'ERR_CONNECTION_FAILED', cause: boom });
  expect(made).toHaveLength(2);
  await waitUntil(made[0] as never, 'close', () => made[0]!.readyState === WebSocket.CLOSED, 'the first socket ended');
});

test('retries run out: failed with ERR_CONNECTION_FAILED whose cause is the last failure', async () => {
  const { ctor, thrown } = wsThrowingFirst(Number.POSITIVE_INFINITY);
  const c = new Connection({ url: sim.wsUrl, WebSocket: ctor, reconnect: { initialDelayMs: 1, jitter: 0, retries: 2 } });
  connections.push(c);
  const r = watch(c);
  c.connect();
  await waitUntil(c as never, 'state', () => c.state === 'failed', 'failed');
  // The first attempt and 2 retries, each reported; then the final failure.
  expect(thrown).toHaveLength(3);
  expect(r.errors.map((e) => e.code)).toEqual(['ERR_CONNECTION_FAILED', 'ERR_CONNECTION_FAILED', 'ERR_CONNECTION_FAILED', 'ERR_CONNECTION_FAILED']);
  expect(c.failureError).toBe(r.errors[3]);
  expect(c.failureError!.cause).toBe(r.errors[2]);
});
