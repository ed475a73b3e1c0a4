/**
 * Fragment floods over real sockets on 127.0.0.1 (a raw server writes the frames): a message
 * in more fragments than `maxFragmentsPerMessage` closes that socket with 1009, is reported
 * as ERR_TOO_MANY_FRAGMENTS on the connection's `error` event, and the connection
 * reconnects; a message at the limit is delivered; what the reader holds for a fragmented
 * message is its payload, not a Buffer per fragment; and fragments that never end do not
 * keep a socket alive.
 */
import { Connection, type CloseInfo, type ConnectionOptions, type OpenInfo } from '../../src/connection';
import { FrameReader } from '../../src/connection/node/FrameReader';
import { ExchangeReplicaError, InvalidParameterError, TooManyFragmentsError } from '../../src/errors';
import { waitUntil } from '../helpers/WsTestServer';
import { RawWsServer, serverFrame, upgradeAnswer } from './RawWsServer';
import { WAIT_MS } from '../helpers/deadlines';

const OP_TEXT = 0x1;
const OP_CONTINUATION = 0x0;
const OP_CLOSE = 0x8;

let server: RawWsServer | undefined;
const connections: Connection[] = [];

afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

function make(url: string, options: Partial<ConnectionOptions> = {}): Connection {
  const c = new Connection({ url, reconnect: { initialDelayMs: 5, maxDelayMs: 50, jitter: 0 }, ...options });
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

/** `text` in `count` fragments (the first holds the rest of the text when it does not divide). */
function fragmented(text: string, count: number): Buffer {
  const bytes = Buffer.from(text);
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const piece = i === count - 1 ? bytes.subarray(i) : bytes.subarray(i, i + 1);
    frames.push(serverFrame(i === 0 ? OP_TEXT : OP_CONTINUATION, i < bytes.length ? piece : new Uint8Array(), i === count - 1));
  }
  return Buffer.concat(frames);
}

/** An endless message: a first fragment, then `count` empty continuations, never a FIN. */
function* emptyFragments(count: number): Generator<Buffer> {
  const empty = serverFrame(OP_CONTINUATION, new Uint8Array(), false);
  yield serverFrame(OP_TEXT, Buffer.from('{'), false);
  // 64 KiB writes: 2-byte frames, 32k of them per write.
  const batch = Buffer.concat(Array.from({ length: 32 * 1024 }, () => empty));
  for (let sent = 0; sent < count; sent += 32 * 1024) yield batch;
}

describe('Connection: maxFragmentsPerMessage', () => {
  test('the default is 1024; values outside [1, 2^31 - 1] are rejected, naming the option', () => {
    expect(make('ws://127.0.0.1:9/ws').options.maxFragmentsPerMessage).toBe(1024);
    for (const value of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
      let error: unknown;
      try {
        new Connection({ url: 'ws://127.0.0.1:9/ws', maxFragmentsPerMessage: value });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidParameterError);
      expect(error).toMatchObject({ code: 'ERR_INVALID_PARAMETER', param: 'maxFragmentsPerMessage' });
    }
  });

  test('a flood of empty fragments (a message without end): ERR_TOO_MANY_FRAGMENTS, close 1009, reconnect, the new socket serves', async () => {
    server = await RawWsServer.start((peer) => {
      peer.write(upgradeAnswer(peer.key));
      // The first socket gets 4 MB of empty fragments (2M frames); the next one serves.
      if (server!.peers.indexOf(peer) === 0) void peer.writeAll(emptyFragments(2 * 1024 * 1024));
      else peer.write(serverFrame(OP_TEXT, Buffer.from('{"type":"pong"}')));
    });
    const c = make(server.url);
    const r = record(c);
    c.connect();
    await waitUntil(c as never, 'open', () => r.opens.length === 2, 'a second open', WAIT_MS);
    expect(r.errors).toHaveLength(1);
    const error = r.errors[0]!;
    expect(error).toBeInstanceOf(TooManyFragmentsError);
    expect(error.code).toBe('ERR_TOO_MANY_FRAGMENTS');
    expect((error as TooManyFragmentsError).limit).toBe(1024);
    expect(error.message).toContain('maxFragmentsPerMessage');
    expect(error.cause).toMatchObject({ code: 'WS_ERR_TOO_MANY_FRAGMENTS', closeCode: 1009 });
    expect(r.closes).toEqual([{ code: 1009, reason: error.message, willReconnect: true }]);
    // The client said why before it dropped the socket: a close frame with 1009.
    const first = server.peers[0]!;
    await first.waitForFrame((f) => f.opcode === OP_CLOSE, 'the close frame');
    expect(first.clientFrames().find((f) => f.opcode === OP_CLOSE)!.payload.readUInt16BE(0)).toBe(1009);
    await first.waitClosed();
    await waitUntil(c as never, 'message', () => r.messages.length === 1, 'a message on the new socket', WAIT_MS);
    expect(r.messages).toEqual(['{"type":"pong"}']);
    expect(c.generation).toBe(2);
  });

  test('a message in exactly maxFragmentsPerMessage fragments is delivered; one fragment more is refused', async () => {
    const text = '{"type":"pong","request_id":"fragmented"}';
    let sent = 0;
    server = await RawWsServer.start((peer) => {
      peer.write(upgradeAnswer(peer.key));
      // The first socket: 8 fragments (delivered), then 9 (refused). The next one: 8 again.
      peer.write(fragmented(text, 8));
      if (sent++ === 0) peer.write(fragmented(text, 9));
    });
    const c = make(server.url, { maxFragmentsPerMessage: 8 });
    const r = record(c);
    c.connect();
    await waitUntil(c as never, 'message', () => r.messages.length === 2, 'two messages', WAIT_MS);
    expect(r.messages).toEqual([text, text]);
    expect(r.errors.map((e) => e.code)).toEqual(['ERR_TOO_MANY_FRAGMENTS']);
    expect((r.errors[0] as TooManyFragmentsError).limit).toBe(8);
    expect(r.closes.map((x) => x.code)).toEqual([1009]);
    expect(c.generation).toBe(2);
  });

  test('fragments that never end do not keep a socket alive: the keep-alive counts whole messages', async () => {
    server = await RawWsServer.start((peer) => {
      peer.write(upgradeAnswer(peer.key));
      if (server!.peers.indexOf(peer) > 0) return;
      // Each protocol ping from the client is answered with one more fragment of a message that never ends.
      peer.write(serverFrame(OP_TEXT, Buffer.from('{'), false));
      peer.on('data', () => peer.write(serverFrame(OP_CONTINUATION, Buffer.from(' '), false)));
    });
    const c = make(server.url, { heartbeatIntervalMs: 50, pongTimeoutMs: 200 });
    const r = record(c);
    c.connect();
    await waitUntil(c as never, 'open', () => r.opens.length === 2, 'a second open', WAIT_MS);
    expect(r.closes).toHaveLength(1);
    expect(r.closes[0]).toMatchObject({ code: 1006, willReconnect: true });
    expect(r.closes[0]!.reason).toMatch(/no frame from the server within 200 ms/);
    expect(r.messages).toEqual([]);
  });
});

describe('FrameReader: what a fragmented message costs', () => {
  const sink = { text: () => undefined, binary: () => undefined, ping: () => undefined, pong: () => undefined, close: () => undefined, violation: () => undefined };

  /** Feeds `frames` one frame per read (the worst case for anything kept per read or per frame). */
  function feed(reader: FrameReader, frames: Buffer[]): void {
    for (const f of frames) reader.push(f, f.length);
  }

  test('a message in 1-byte fragments holds about its payload, not a Buffer per fragment', () => {
    const fragments = 200_000;
    const reader = new FrameReader(sink, 1 << 20, 1 << 20);
    const one = serverFrame(OP_CONTINUATION, Buffer.from('x'), false);
    feed(reader, [serverFrame(OP_TEXT, Buffer.from('x'), false), ...Array.from({ length: fragments - 1 }, () => one)]);
    // 200 KB of payload: the buffer holding it (doubling growth), never ~100 bytes per fragment.
    expect(reader.bufferedBytes).toBeGreaterThanOrEqual(fragments);
    expect(reader.bufferedBytes).toBeLessThanOrEqual(2 * fragments);
  });

  test('empty fragments hold nothing', () => {
    const reader = new FrameReader(sink, 1 << 20, 1 << 20);
    const empty = serverFrame(OP_CONTINUATION, new Uint8Array(), false);
    feed(reader, [serverFrame(OP_TEXT, new Uint8Array(), false), ...Array.from({ length: 100_000 }, () => empty)]);
    expect(reader.bufferedBytes).toBe(0);
  });

  test('a frame arriving a byte per read holds its size, not a Buffer per read', () => {
    const reader = new FrameReader(sink, 1 << 20);
    const frame = serverFrame(OP_TEXT, Buffer.alloc(100_000, 0x61));
    for (let i = 0; i < frame.length - 1; i++) reader.push(frame.subarray(i, i + 1), 1);
    expect(reader.bufferedBytes).toBeGreaterThanOrEqual(frame.length - 1);
    expect(reader.bufferedBytes).toBeLessThanOrEqual(frame.length);
  });
});
