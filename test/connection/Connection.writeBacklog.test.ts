/**
 * What a server that stops reading can make the client hold, over real sockets on 127.0.0.1:
 * a ping flood (pongs the server never reads) leaves the client's write queue bounded, and
 * the latest ping is still answered once the server reads again; commands that would queue
 * past `maxQueuedWriteBytes` fail the socket with ERR_WRITE_BACKLOG, and the connection
 * reconnects. Bytes queued are read from the client's TCP socket itself (`writableLength`).
 */
import type * as NodeNet from 'node:net';
import { Connection, type CloseInfo, type OpenInfo } from '../../src/connection';
import { NodeWebSocket } from '../../src/connection/node/NodeWebSocket';
import { ExchangeReplicaError, InvalidParameterError, WriteBacklogError } from '../../src/errors';
import { waitUntil } from '../helpers/WsTestServer';
import { RawWsServer, serverFrame, upgradeAnswer, type RawPeer } from './RawWsServer';
import { WAIT_MS } from '../helpers/deadlines';

const MiB = 1024 * 1024;
const OP_TEXT = 0x1;
const OP_PING = 0x9;
const OP_PONG = 0xa;
/** A client frame around a control payload (header and mask), and the most one control frame takes. */
const CONTROL_FRAME_BYTES = 6 + 125;

let server: RawWsServer | undefined;
const connections: Connection[] = [];
const sockets: NodeWebSocket[] = [];

afterEach(async () => {
  jest.restoreAllMocks();
  for (const c of connections.splice(0)) c.close();
  for (const s of sockets.splice(0)) s.terminate();
  await server?.close();
  server = undefined;
});

/** The TCP sockets the client opens from now on (`NodeWebSocket` takes `node:net` as a builtin module, the object spied on here). */
function captureClientSockets(): NodeNet.Socket[] {
  const net = process.getBuiltinModule('node:net');
  const original = net.connect;
  const made: NodeNet.Socket[] = [];
  jest.spyOn(net, 'connect').mockImplementation((...args: Parameters<typeof net.connect>) => {
    const socket = (original as (...a: Parameters<typeof net.connect>) => NodeNet.Socket)(...args);
    made.push(socket);
    return socket;
  });
  return made;
}

/** `megabytes` of 125-byte pings, the last one carrying `last`, then a text frame `done`. */
function* pingFlood(megabytes: number, last: string): Generator<Buffer> {
  const ping = serverFrame(OP_PING, Buffer.alloc(125, 0x70));
  const batch = Buffer.concat(Array.from({ length: Math.floor(MiB / ping.length) }, () => ping));
  for (let i = 0; i < megabytes; i++) yield batch;
  yield serverFrame(OP_PING, Buffer.from(last));
  yield serverFrame(OP_TEXT, Buffer.from('done'));
}

describe('a server that sends pings and reads nothing', () => {
  test('the client answers without growing its write queue, and answers the latest ping once the server reads again', async () => {
    const made = captureClientSockets();
    let peer: RawPeer | undefined;
    server = await RawWsServer.start((p) => {
      peer = p;
      p.write(upgradeAnswer(p.key));
      // Never reads: every pong stays in the client's queue once the kernel's buffers are full.
      p.socket.pause();
      // 24 MB of pings (~190k): about 25 MB of pongs, well past what the kernel buffers hold.
      void p.writeAll(pingFlood(24, 'the last ping'));
    });
    const ws = new NodeWebSocket(server.url, { maxPayload: MiB, perMessageDeflate: false });
    sockets.push(ws);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for the text after the flood')), WAIT_MS);
      ws.on('message', (d) => String(d) === 'done' && (clearTimeout(timer), resolve()));
    });
    expect(made).toHaveLength(1);
    const tcp = made[0]!;
    // Every ping was read (the text after them arrived): what waits is bounded by the limit (1 MiB), far below the pongs owed.
    expect(tcp.writableLength).toBeLessThanOrEqual(MiB + 2 * CONTROL_FRAME_BYTES);
    expect(ws.bufferedAmount).toBeLessThanOrEqual(MiB + 2 * CONTROL_FRAME_BYTES);
    // RFC 6455 5.5.3: pongs may be skipped for all but the most recent ping, which must be answered.
    peer!.socket.resume();
    await peer!.waitForFrame((f) => f.opcode === OP_PONG && f.payload.toString() === 'the last ping', 'the pong to the last ping');
  });
});

describe('Connection: maxQueuedWriteBytes', () => {
  test('the default is 1 MiB; values outside [1, 2^31 - 1] are rejected, naming the option', () => {
    const c = new Connection({ url: 'ws://127.0.0.1:9/ws' });
    expect(c.options.maxQueuedWriteBytes).toBe(MiB);
    for (const value of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => new Connection({ url: 'ws://127.0.0.1:9/ws', maxQueuedWriteBytes: value })).toThrow(InvalidParameterError);
    }
  });

  test('commands to a server that reads nothing: ERR_WRITE_BACKLOG once past the limit, socket dropped, reconnect, queue bounded', async () => {
    const made = captureClientSockets();
    server = await RawWsServer.start((p) => {
      p.write(upgradeAnswer(p.key));
      if (server!.peers.indexOf(p) === 0) p.socket.pause();
    });
    const limit = 256 * 1024;
    const c = new Connection({ url: server.url, maxQueuedWriteBytes: limit, reconnect: { initialDelayMs: 5, maxDelayMs: 50, jitter: 0 } });
    connections.push(c);
    const errors: ExchangeReplicaError[] = [];
    const closes: CloseInfo[] = [];
    const opens: OpenInfo[] = [];
    c.on('error', (e) => errors.push(e));
    c.on('close', (x) => closes.push(x));
    c.on('open', (x) => opens.push(x));
    c.connect();
    await waitUntil(c as never, 'open', () => opens.length === 1, 'first open', WAIT_MS);
    const requestId = 'r'.repeat(64 * 1024);
    let maxQueued = 0;
    // At most 64 MB offered: far past the kernel's buffers, so the queue must reach the limit.
    for (let i = 0; i < 1000 && errors.length === 0 && c.generation === 1; i++) {
      c.send({ type: 'ping', request_id: requestId });
      maxQueued = Math.max(maxQueued, made[0]!.writableLength);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitUntil(c as never, 'open', () => opens.length === 2, 'second open', WAIT_MS);
    expect(errors).toHaveLength(1);
    const error = errors[0]!;
    expect(error).toBeInstanceOf(WriteBacklogError);
    expect(error.code).toBe('ERR_WRITE_BACKLOG');
    expect((error as WriteBacklogError).limitBytes).toBe(limit);
    expect(error.message).toContain('maxQueuedWriteBytes');
    expect(error.cause).toMatchObject({ code: 'WS_ERR_WRITE_BACKLOG' });
    expect(closes).toEqual([{ code: 1006, reason: error.message, willReconnect: true }]);
    // Never more than the limit (a frame is refused rather than queued past it).
    expect(maxQueued).toBeLessThanOrEqual(limit);
    // The new socket sends (its server reads).
    expect(c.send({ type: 'ping', request_id: 'after' })).toBe(true);
    await (await server.peer(1)).waitForFrame((f) => f.payload.toString().includes('"after"'), 'the ping on the new socket');
  });
});
