/**
 * `NodeWebSocket` over real sockets on 127.0.0.1: against the `ws` package's server (the
 * simulator's), every feature the connection relies on; against a raw TCP server that
 * answers the handshake by hand, every way a server can break the handshake or the framing.
 */
import { createHash } from 'node:crypto';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { NodeWebSocket } from '../../src/connection/node/NodeWebSocket';
import type { WebSocketClientOptions } from '../../src/connection';
import { ManualClock } from '../helpers/ManualClock';
import { RawWsServer, upgradeAnswer } from './RawWsServer';
import { WAIT_MS } from '../helpers/deadlines';

const OPTIONS = { maxPayload: 1 << 20, perMessageDeflate: true };

interface Seen {
  opened: boolean;
  messages: [string | Buffer, boolean][];
  errors: Error[];
  closed?: [number, string];
}

/** A client with every event recorded, and a promise per event of interest. */
function client(url: string, options: WebSocketClientOptions = OPTIONS) {
  const ws = new NodeWebSocket(url, options);
  const seen: Seen = { opened: false, messages: [], errors: [] };
  const waiters: (() => void)[] = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  ws.on('open', () => ((seen.opened = true), poke()));
  ws.on('message', (d, b) => (seen.messages.push([typeof d === 'string' ? d : Buffer.from(d as Uint8Array), b]), poke()));
  ws.on('error', (e) => (seen.errors.push(e), poke()));
  ws.on('close', (code, reason) => ((seen.closed = [code, Buffer.from(reason).toString()]), poke()));
  const until = (what: string, ok: () => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(seen).slice(0, 500)}`)), WAIT_MS);
      const check = () => (ok() ? (clearTimeout(timer), resolve()) : waiters.push(check));
      check();
    });
  return { ws, seen, until };
}

describe('NodeWebSocket against the ws server', () => {
  let wss: WebSocketServer;
  let url: string;
  const serverSockets: WebSocket[] = [];
  const nextServerSocket = (): Promise<WebSocket> => new Promise((resolve) => wss.once('connection', (s) => resolve(s)));

  beforeEach(async () => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, path: '/ws', perMessageDeflate: true });
    wss.on('connection', (s) => serverSockets.push(s));
    await new Promise((r) => wss.once('listening', r));
    url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws?x=1`;
  });
  afterEach(async () => {
    serverSockets.splice(0).forEach((s) => s.terminate());
    await new Promise((r) => wss.close(r));
  });

  test('opens (no extension), sends and receives text, binary, fragmented and large messages in order', async () => {
    const s = nextServerSocket();
    const c = client(url);
    await c.until('open', () => c.seen.opened);
    const server = await s;
    expect(server.extensions).toBe('');
    expect(c.ws.readyState).toBe(NodeWebSocket.OPEN);
    const got: string[] = [];
    server.on('message', (d) => got.push(String(d)));
    c.ws.send('{"type":"ping","request_id":"1"}');
    c.ws.send('é'.repeat(40_000));
    await new Promise<void>((r) => (got.length === 2 ? r() : server.on('message', () => got.length === 2 && r())));
    expect(got).toEqual(['{"type":"ping","request_id":"1"}', 'é'.repeat(40_000)]);

    server.send('hello ✓');
    server.send(Buffer.from([1, 2, 3]), { binary: true });
    server.send('part one, ', { fin: false });
    server.send('part two', { fin: true });
    const big = 'x'.repeat(300_000);
    server.send(big);
    await c.until('4 messages', () => c.seen.messages.length === 4);
    expect(c.seen.messages).toEqual([
      ['hello ✓', false],
      [Buffer.from([1, 2, 3]), true],
      ['part one, part two', false],
      [big, false],
    ]);
    c.ws.terminate();
  });

  test('answers pings with pongs carrying the same data', async () => {
    const s = nextServerSocket();
    const c = client(url);
    await c.until('open', () => c.seen.opened);
    const server = await s;
    const pong = new Promise<Buffer>((r) => server.once('pong', (d) => r(d)));
    server.ping(Buffer.from('are you there'));
    expect(String(await pong)).toBe('are you there');
    c.ws.terminate();
  });

  test('the server closes: close event with its code and reason, the code echoed back', async () => {
    const s = nextServerSocket();
    const c = client(url);
    await c.until('open', () => c.seen.opened);
    const server = await s;
    const echoed = new Promise<number>((r) => server.once('close', (code) => r(code)));
    server.close(4001, 'going away now');
    await c.until('close', () => c.seen.closed !== undefined);
    expect(c.seen.closed).toEqual([4001, 'going away now']);
    expect(await echoed).toBe(4001);
    expect(c.ws.readyState).toBe(NodeWebSocket.CLOSED);
    expect(c.seen.errors).toEqual([]);
  });

  test('the client closes: the server sees its code and reason; terminate ends with 1006', async () => {
    const s = nextServerSocket();
    const c = client(url);
    await c.until('open', () => c.seen.opened);
    const server = await s;
    const seenByServer = new Promise<[number, string]>((r) => server.once('close', (code, reason) => r([code, String(reason)])));
    c.ws.close(1000, 'done');
    expect(c.ws.readyState).toBe(NodeWebSocket.CLOSING);
    c.ws.send('dropped while closing');
    expect(await seenByServer).toEqual([1000, 'done']);
    await c.until('close', () => c.seen.closed !== undefined);
    expect(c.seen.closed).toEqual([1000, 'done']);

    const d = client(url);
    await d.until('open', () => d.seen.opened);
    d.ws.terminate();
    await d.until('close', () => d.seen.closed !== undefined);
    expect(d.seen.closed![0]).toBe(1006);
    expect(() => d.ws.close(1005)).toThrow(TypeError);
  });

  test('a message over maxPayload: error WS_ERR_UNSUPPORTED_MESSAGE_LENGTH, 1009 sent, nothing delivered', async () => {
    const s = nextServerSocket();
    const c = client(url, { maxPayload: 1000, perMessageDeflate: false });
    await c.until('open', () => c.seen.opened);
    const server = await s;
    const seenByServer = new Promise<number>((r) => server.once('close', (code) => r(code)));
    server.send('y'.repeat(1000));
    server.send('z'.repeat(1001));
    await c.until('close', () => c.seen.closed !== undefined);
    expect(c.seen.messages).toEqual([['y'.repeat(1000), false]]);
    expect(c.seen.errors.map((e) => (e as Error & { code?: string }).code)).toEqual(['WS_ERR_UNSUPPORTED_MESSAGE_LENGTH']);
    expect(await seenByServer).toBe(1009);
  });

  test('closing or terminating while connecting: an error, then close 1006; sending while connecting throws', async () => {
    const c = client(url);
    expect(() => c.ws.send('too early')).toThrow(/CONNECTING/);
    c.ws.close();
    await c.until('close', () => c.seen.closed !== undefined);
    expect(c.seen.opened).toBe(false);
    expect(c.seen.errors[0]?.message).toMatch(/closed before the connection was established/);
    expect(c.seen.closed![0]).toBe(1006);
  });

  test('nothing listening: the connect error, then close 1006', async () => {
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise((r) => free.close(r));
    const c = client(`ws://127.0.0.1:${port}/ws`);
    await c.until('close', () => c.seen.closed !== undefined);
    expect((c.seen.errors[0] as Error & { code?: string }).code).toBe('ECONNREFUSED');
    expect(c.seen.closed![0]).toBe(1006);
  });

  test('a URL of another protocol is refused at construction', () => {
    expect(() => new NodeWebSocket('ftp://127.0.0.1/ws', OPTIONS)).toThrow(SyntaxError);
    expect(() => new NodeWebSocket('not a url', OPTIONS)).toThrow();
  });
});

describe('NodeWebSocket against a server that breaks the handshake or the framing', () => {
  let server: Server;
  let port: number;
  const sockets: Socket[] = [];
  /** What the raw server does once it has the request head: `answer(key, socket)`. */
  let answer: (key: string, socket: Socket) => void;
  const accept = (key: string) => createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  const ok = (key: string, extra = '') => `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept(key)}\r\n${extra}\r\n`;

  beforeEach(async () => {
    server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      let head = '';
      socket.on('data', function onData(d) {
        head += d.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        answer(/Sec-WebSocket-Key: (\S+)/.exec(head)![1]!, socket);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    sockets.splice(0).forEach((s) => s.destroy());
    await new Promise((r) => server.close(r));
  });

  const refusals: [string, (key: string) => string, RegExp][] = [
    ['a 404', () => 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n', /Unexpected server response: 404 Not Found/],
    ['a wrong accept value', () => 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAA\r\n\r\n', /Sec-WebSocket-Accept/],
    ['no Upgrade header', (key) => `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept(key)}\r\n\r\n`, /Upgrade header/],
    ['an extension not offered', (key) => ok(key, 'Sec-WebSocket-Extensions: permessage-deflate\r\n'), /extension/],
    ['a subprotocol not asked for', (key) => ok(key, 'Sec-WebSocket-Protocol: chat\r\n'), /subprotocol/],
    ['not HTTP', () => 'SSH-2.0-OpenSSH\r\n\r\n', /did not answer with HTTP\/1.1/],
    ['a head over 64 KiB', () => `HTTP/1.1 101 Switching Protocols\r\nX-Pad: ${'p'.repeat(70_000)}`, /over 65536 bytes/],
  ];

  test.each(refusals)('%s: an error naming it (WS_ERR_HANDSHAKE), close 1006, never open', async (_label, respond, message) => {
    answer = (key, socket) => socket.write(respond(key));
    const c = client(`ws://127.0.0.1:${port}/ws`);
    await c.until('close', () => c.seen.closed !== undefined);
    expect(c.seen.opened).toBe(false);
    expect(c.seen.errors[0]?.message).toMatch(message);
    expect(c.seen.errors[0]).toMatchObject({ code: 'WS_ERR_HANDSHAKE' });
    expect(c.seen.closed![0]).toBe(1006);
  });

  test('frames in the same read as the answer head are read; a broken frame after good ones: error, close frame 1002 sent, close 1006', async () => {
    const received: Buffer[] = [];
    answer = (key, socket) => {
      socket.on('data', (d) => received.push(d));
      socket.write(Buffer.concat([Buffer.from(ok(key)), Buffer.from([0x81, 2]), Buffer.from('hi'), Buffer.from([0x81, 0x81, 1, 2, 3, 4, 0x61])]));
    };
    const c = client(`ws://127.0.0.1:${port}/ws`);
    await c.until('error', () => c.seen.errors.length === 1);
    expect(c.seen.messages).toEqual([['hi', false]]);
    expect(c.seen.errors[0]).toMatchObject({ code: 'WS_ERR_UNEXPECTED_MASK', closeCode: 1002 });
    // The client ends its side after its close frame; the server closes the TCP connection.
    await new Promise((r) => setImmediate(r));
    sockets[0]!.end();
    await c.until('close', () => c.seen.closed !== undefined);
    expect(c.seen.closed![0]).toBe(1006);
    const sent = Buffer.concat(received);
    // A masked close frame carrying 1002.
    expect(sent[0]).toBe(0x88);
    expect(sent[1]).toBe(0x82);
    const mask = sent.subarray(2, 6);
    expect(((sent[6]! ^ mask[0]!) << 8) | (sent[7]! ^ mask[1]!)).toBe(1002);
  });

  test('the server drops the TCP connection mid-frame: close 1006, the partial frame never delivered', async () => {
    answer = (key, socket) => {
      socket.write(Buffer.concat([Buffer.from(ok(key)), Buffer.from([0x81, 10]), Buffer.from('half')]));
      setImmediate(() => socket.destroy());
    };
    const c = client(`ws://127.0.0.1:${port}/ws`);
    await c.until('close', () => c.seen.closed !== undefined);
    expect(c.seen.opened).toBe(true);
    expect(c.seen.messages).toEqual([]);
    expect(c.seen.closed![0]).toBe(1006);
  });
});

describe('NodeWebSocket: the closing handshake is bounded on the clock it is given', () => {
  test('a server that never answers the close frame: the socket is destroyed when the clock passes 30 s, not before', async () => {
    const server = await RawWsServer.start((peer) => peer.write(upgradeAnswer(peer.key)));
    const clock = new ManualClock();
    try {
      const c = client(server.url, { ...OPTIONS, clock });
      await c.until('open', () => c.seen.opened);
      const peer = await server.peer(0);
      c.ws.close(1000, 'bye');
      await peer.waitForFrame((f) => f.opcode === 8, 'the close frame');
      await clock.advance(29_999);
      expect(c.seen.closed).toBeUndefined();
      await clock.advance(1);
      await c.until('closed', () => c.seen.closed !== undefined);
      expect(c.seen.closed![0]).toBe(1006);
    } finally {
      await server.close();
    }
  });
});
