/**
 * Connection over real sockets on 127.0.0.1 against the scriptable test server. What the
 * server's closing error frames (FEED_UNAVAILABLE, HEARTBEAT_TIMEOUT) mean is the router's
 * to decide: see test/router/SubscriptionRouter.closingErrors.test.ts.
 */
import WebSocket from 'ws';
import { Connection, type CloseInfo, type ConnectionOptions, type ConnectionStateName, type OpenInfo } from '../../src/connection';
import { ManualClock } from '../helpers/ManualClock';
import { waitUntil, WsTestServer } from '../helpers/WsTestServer';
import { WAIT_MS } from '../helpers/deadlines';

/** Records how many sockets were created and the readyState at every send. */
const recorder = { created: 0, sendStates: [] as number[] };
class RecordingWebSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    recorder.created++;
  }
  override send(data: string): void {
    recorder.sendStates.push(this.readyState);
    super.send(data);
  }
}

let server: WsTestServer | undefined;
const connections: Connection[] = [];

function make(url: string, options: Partial<ConnectionOptions> = {}): Connection {
  const c = new Connection({ url, WebSocket: RecordingWebSocket, reconnect: { initialDelayMs: 5, maxDelayMs: 50, jitter: 0 }, ...options });
  connections.push(c);
  return c;
}

function waitState(c: Connection, state: ConnectionStateName, timeoutMs = WAIT_MS): Promise<void> {
  return waitUntil(c as never, 'state', () => c.state === state, `connection state ${state}`, timeoutMs);
}

function record<T>(c: Connection, event: 'open' | 'close' | 'error'): T[] {
  const out: T[] = [];
  (c.on as (e: string, l: (x: T) => void) => unknown).call(c, event, (x: T) => out.push(x));
  return out;
}

beforeEach(() => {
  recorder.created = 0;
  recorder.sendStates = [];
});

afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

describe('Connection (real sockets)', () => {
  test('lazy: no socket until connect(), then open with generation 1', async () => {
    server = await WsTestServer.start();
    const c = make(server.url);
    const opens = record<OpenInfo>(c, 'open');
    expect(c.state).toBe('idle');
    expect(recorder.created).toBe(0);
    c.connect();
    await waitState(c, 'open');
    await server.connection(0);
    expect(recorder.created).toBe(1);
    expect(opens).toEqual([{ generation: 1, attempts: 0 }]);
  });

  test('abrupt drop: reconnects, the new socket is a new generation', async () => {
    server = await WsTestServer.start();
    const c = make(server.url);
    const opens = record<OpenInfo>(c, 'open');
    const closes = record<CloseInfo>(c, 'close');
    c.connect();
    await waitState(c, 'open');
    (await server.connection(0)).drop();
    await server.connection(1);
    await waitUntil(c as never, 'open', () => opens.length === 2, 'second open');
    expect(closes).toHaveLength(1);
    expect(closes[0]).toMatchObject({ code: 1006, willReconnect: true });
    expect(c.generation).toBe(2);
  });

  test('a server that stops answering pings is declared dead and replaced', async () => {
    server = await WsTestServer.start({ answerPings: false });
    const c = make(server.url, { heartbeatIntervalMs: 30, pongTimeoutMs: 60 });
    const closes = record<CloseInfo>(c, 'close');
    c.connect();
    await server.connection(1);
    expect(closes[0]).toMatchObject({ code: 1006, reason: expect.stringContaining('no frame from the server'), willReconnect: true });
    expect(server.connections[0]!.framesOf('ping').length).toBeGreaterThan(0);
  });

  test('frames are only ever written to open sockets', async () => {
    server = await WsTestServer.start();
    const c = make(server.url, { heartbeatIntervalMs: 20, pongTimeoutMs: 1000 });
    const sendResults: boolean[] = [];
    const trySend = () => sendResults.push(c.send({ type: 'ping', request_id: c.nextRequestId() }));
    trySend();
    c.connect();
    trySend();
    // Try to send at every transition and every message, through two drops.
    c.on('state', trySend);
    c.on('close', trySend);
    c.on('message', trySend);
    await waitState(c, 'open');
    (await server.connection(0)).drop();
    await server.connection(1);
    await waitState(c, 'open');
    (await server.connection(1)).heartbeatTimeout();
    const third = await server.connection(2);
    await third.waitForFrame((f) => f.type === 'ping', 'a ping on the third socket');
    c.close();
    trySend();
    expect(sendResults.filter((x) => !x).length).toBeGreaterThan(3);
    expect(recorder.sendStates.length).toBeGreaterThan(0);
    expect(recorder.sendStates.every((s) => s === WebSocket.OPEN)).toBe(true);
  });

  test('close(): the server sees a normal close, nothing reconnects', async () => {
    server = await WsTestServer.start();
    // Every timer of the connection (reconnect backoff, keep-alive, connect timeout) is on this clock.
    const clock = new ManualClock();
    const c = make(server.url, { clock });
    c.connect();
    await waitState(c, 'open');
    const conn = await server.connection(0);
    c.close();
    expect(c.state).toBe('closed');
    await conn.waitClosed();
    // Nothing is scheduled, and past any reconnect delay no socket was created.
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(60_000);
    expect(recorder.created).toBe(1);
    expect(c.state).toBe('closed');
    expect(server.connections).toHaveLength(1);
  });
});
