/**
 * Size limit of feed frames (`maxFrameBytes`) over real sockets on 127.0.0.1: a frame over
 * the limit, plain or compressed and inflating past it, closes that socket with 1009, is
 * reported as ERR_FRAME_TOO_LARGE on the connection's `error` event, and the connection
 * reconnects; frames under the limit keep flowing.
 */
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { Connection, type CloseInfo, type ConnectionOptions, type OpenInfo } from '../../src/connection';
import type { WebSocketClientOptions } from '../../src/connection/connectionOptions';
import { ExchangeReplicaError, FrameTooLargeError, InvalidParameterError } from '../../src/errors';
import { WAIT_MS } from '../helpers/deadlines';
import { waitUntil } from '../helpers/WsTestServer';
import { StandardSocket } from './StandardSocket';

const MiB = 1024 * 1024;

/** A bare feed server: records its sockets; the test decides what each one sends. */
class FrameServer {
  readonly sockets: WebSocket[] = [];
  readonly closed = new Set<WebSocket>();
  private constructor(
    private readonly wss: WebSocketServer,
    readonly url: string,
  ) {
    wss.on('connection', (socket) => {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.closed.add(socket);
        wss.emit('socket-closed');
      });
      this.sockets.push(socket);
    });
  }

  static start(perMessageDeflate: boolean): Promise<FrameServer> {
    return new Promise((resolve, reject) => {
      // The server's own limit only bounds what it receives; it sends whatever the test asks.
      const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws', perMessageDeflate });
      wss.once('error', reject);
      wss.once('listening', () => resolve(new FrameServer(wss, `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`)));
    });
  }

  async socket(index: number): Promise<WebSocket> {
    await waitUntil(this.wss as never, 'connection', () => this.sockets.length > index, `server socket #${index}`);
    return this.sockets[index]!;
  }

  async waitClosed(socket: WebSocket): Promise<void> {
    await waitUntil(this.wss as never, 'socket-closed', () => this.closed.has(socket), 'server socket closed');
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}

let server: FrameServer | undefined;
const connections: Connection[] = [];

afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

function make(url: string, options: Partial<ConnectionOptions> = {}): Connection {
  // Connecting and the pings are not the subject: their bounds must not fire while a loaded machine moves 20 MiB.
  const c = new Connection({ url, reconnect: { initialDelayMs: 5, maxDelayMs: 50, jitter: 0 }, connectTimeoutMs: WAIT_MS, pongTimeoutMs: WAIT_MS, ...options });
  connections.push(c);
  return c;
}

interface Recorded {
  errors: ExchangeReplicaError[];
  closes: CloseInfo[];
  opens: OpenInfo[];
  messages: string[];
}

function record(c: Connection): Recorded {
  const r: Recorded = { errors: [], closes: [], opens: [], messages: [] };
  c.on('error', (e) => r.errors.push(e));
  c.on('close', (x) => r.closes.push(x));
  c.on('open', (x) => r.opens.push(x));
  c.on('message', (x) => r.messages.push(x));
  return r;
}

/** A frame of exactly `bytes` bytes that is valid protocol-looking JSON text (highly compressible). */
function bigFrame(bytes: number): string {
  const head = '{"type":"pong","request_id":"';
  const tail = '"}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

/** Sends an oversized frame on socket 0 and checks: reported, 1009, reconnected, and the new socket serves. */
async function expectDropAndReconnect(c: Connection, r: Recorded, limit: number): Promise<void> {
  const first = await server!.socket(0);
  await server!.waitClosed(first);
  await server!.socket(1);
  await waitUntil(c as never, 'open', () => r.opens.length === 2, 'second open');
  expect(r.errors).toHaveLength(1);
  const error = r.errors[0]!;
  expect(error).toBeInstanceOf(FrameTooLargeError);
  expect(error.code).toBe('ERR_FRAME_TOO_LARGE');
  expect((error as FrameTooLargeError).limitBytes).toBe(limit);
  expect(error.message).toContain('maxFrameBytes');
  expect(error.message).toContain(String(limit));
  expect(r.closes).toEqual([{ code: 1009, reason: error.message, willReconnect: true }]);
  expect(r.messages).toEqual([]);
  expect(c.state).toBe('open');
  expect(c.generation).toBe(2);
  // The replacement socket delivers frames under the limit.
  const small = bigFrame(Math.min(limit, 4096));
  server!.sockets[1]!.send(small);
  await waitUntil(c as never, 'message', () => r.messages.length === 1, 'a frame on the new socket');
  expect(r.messages).toEqual([small]);
}

describe('Connection: maxFrameBytes', () => {
  test('the socket class receives maxPayload and perMessageDeflate; the default limit is 16 MiB', () => {
    const seen: WebSocketClientOptions[] = [];
    class Probe extends WebSocket {
      constructor(url: string, options: WebSocketClientOptions) {
        super(url, options);
        seen.push(options);
        this.on('error', () => undefined);
      }
    }
    const c = make('ws://127.0.0.1:9/ws', { WebSocket: Probe, connectTimeoutMs: 50 });
    expect(c.options.maxFrameBytes).toBe(16 * MiB);
    c.connect();
    // With the Node socket's own limits, which `ws` ignores, and the connection's clock for its timers.
    const limits = { maxFragments: 1024, maxQueuedWriteBytes: 1 * MiB, maxHandshakeHeadBytes: 64 * 1024, clock: c.options.clock };
    expect(seen).toEqual([{ maxPayload: 16 * MiB, perMessageDeflate: true, ...limits }]);
    const d = make('ws://127.0.0.1:9/ws', { WebSocket: Probe, maxFrameBytes: 1234, connectTimeoutMs: 50 });
    d.connect();
    expect(seen[1]).toEqual({ maxPayload: 1234, perMessageDeflate: true, ...limits, clock: d.options.clock });
  });

  test.each([0, -1, 1.5, Number.NaN, 2 ** 31, Number.POSITIVE_INFINITY])('maxFrameBytes %p is rejected, naming the option', (value) => {
    let error: unknown;
    try {
      new Connection({ url: 'ws://127.0.0.1:9/ws', maxFrameBytes: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect(error).toMatchObject({ code: 'ERR_INVALID_PARAMETER', param: 'maxFrameBytes' });
  });

  test('a frame over the limit closes that socket (1009), is reported as ERR_FRAME_TOO_LARGE, and the connection reconnects', async () => {
    server = await FrameServer.start(false);
    const limit = 1 * MiB;
    const c = make(server.url, { maxFrameBytes: limit });
    const r = record(c);
    c.connect();
    const first = await server.socket(0);
    await waitUntil(c as never, 'open', () => r.opens.length === 1, 'first open');
    // Exactly at the limit passes; one byte more does not.
    first.send(bigFrame(limit));
    await waitUntil(c as never, 'message', () => r.messages.length === 1, 'the frame at the limit');
    r.messages.length = 0;
    first.send(bigFrame(limit + 1));
    await expectDropAndReconnect(c, r, limit);
  });

  test('the default limit holds: a 20 MiB frame is refused', async () => {
    server = await FrameServer.start(false);
    const c = make(server.url);
    const r = record(c);
    c.connect();
    (await server.socket(0)).send(bigFrame(20 * MiB));
    await expectDropAndReconnect(c, r, 16 * MiB);
  });

  test('the default socket offers no permessage-deflate: a server that would compress sends plain frames', async () => {
    server = await FrameServer.start(true);
    const c = make(server.url);
    const r = record(c);
    c.connect();
    const first = await server.socket(0);
    await waitUntil(c as never, 'open', () => r.opens.length === 1, 'first open');
    expect(first.extensions).toBe('');
    first.send('{"type":"pong"}');
    await waitUntil(c as never, 'message', () => r.messages.length === 1, 'a plain frame');
    expect(r.messages).toEqual(['{"type":"pong"}']);
  });

  test('permessage-deflate (the ws socket class offers it): a small compressed frame that inflates past the limit is refused the same way', async () => {
    server = await FrameServer.start(true);
    const c = make(server.url, { WebSocket });
    const r = record(c);
    c.connect();
    const first = await server.socket(0);
    await waitUntil(c as never, 'open', () => r.opens.length === 1, 'first open');
    expect(first.extensions).toContain('permessage-deflate');
    const tcp = (first as unknown as { _socket: Socket })._socket;
    const before = tcp.bytesWritten;
    // 48 MiB of text, a few tens of KB on the wire.
    first.send(bigFrame(48 * MiB));
    await expectDropAndReconnect(c, r, 16 * MiB);
    expect(tcp.bytesWritten - before).toBeLessThan(1 * MiB);
  });

  test('a socket class that ignores the options still has oversized frames refused (after receipt)', async () => {
    server = await FrameServer.start(false);
    class IgnoresOptions extends WebSocket {
      constructor(url: string) {
        super(url);
      }
    }
    const limit = 64 * 1024;
    const c = make(server.url, { maxFrameBytes: limit, WebSocket: IgnoresOptions });
    const r = record(c);
    c.connect();
    (await server.socket(0)).send(bigFrame(limit + 1));
    await expectDropAndReconnect(c, r, limit);
  });

  describe('a standard WebSocket (no payload limit of its own): checked after receipt', () => {
    test.each([
      ['text, one byte over', (limit: number) => bigFrame(limit + 1)],
      // 2 bytes per character in UTF-8: fewer characters than the limit, more bytes.
      ['text, multi-byte characters', (limit: number) => `"${'é'.repeat(Math.ceil(limit / 2))}"`],
      ['binary (an ArrayBuffer)', (limit: number) => Buffer.from(bigFrame(limit + 1))],
    ])('%s: refused, 1009, reconnected', async (_label, frame) => {
      StandardSocket.instances.length = 0;
      server = await FrameServer.start(false);
      const limit = 64 * 1024;
      const c = make(server.url, { maxFrameBytes: limit, WebSocket: StandardSocket });
      const r = record(c);
      c.connect();
      const first = await server.socket(0);
      await waitUntil(c as never, 'open', () => r.opens.length === 1, 'first open');
      // Exactly at the limit passes, as text and as binary.
      first.send(bigFrame(limit));
      first.send(Buffer.from(bigFrame(limit)));
      await waitUntil(c as never, 'message', () => r.messages.length === 2, 'two frames at the limit');
      expect(r.messages).toEqual([bigFrame(limit), bigFrame(limit)]);
      r.messages.length = 0;
      first.send(frame(limit));
      await expectDropAndReconnect(c, r, limit);
      // The dropped socket was closed by the client (no code: the standard allows only 1000 and 3000-4999).
      expect(StandardSocket.instances[0]!.closedWith).toEqual({ code: undefined, reason: undefined });
    });
  });

  test('an error listener that closes the connection stops the reconnect', async () => {
    server = await FrameServer.start(false);
    const c = make(server.url, { maxFrameBytes: 1024 });
    const r = record(c);
    c.on('error', () => c.close());
    c.connect();
    (await server.socket(0)).send(bigFrame(2048));
    await waitUntil(c as never, 'state', () => c.state === 'closed', 'closed');
    expect(r.errors.map((e) => e.code)).toEqual(['ERR_FRAME_TOO_LARGE']);
    expect(r.closes).toEqual([]);
    await server.waitClosed(server.sockets[0]!);
    expect(server.sockets).toHaveLength(1);
  });
});
