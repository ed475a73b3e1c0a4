/**
 * Failed attempts to open the feed's socket, over real sockets on 127.0.0.1: each is reported
 * once on the connection's `error` event, with a code and the socket's error as `cause`,
 * while the backoff keeps retrying. A server that answers the upgrade wrongly (a wrong
 * `Sec-WebSocket-Accept`, a 200 HTML page, an extension not offered, a head without end)
 * gives ERR_HANDSHAKE_FAILED; one that answers too slowly or not at all, ERR_CONNECTION_FAILED.
 */
import { createServer, type AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { Connection, type ConnectionOptions } from '../../src/connection';
import { ConnectionFailedError, ExchangeReplicaError, HandshakeFailedError } from '../../src/errors';
import { waitUntil } from '../helpers/WsTestServer';
import { RawWsServer, upgradeAnswer, type RawPeer } from './RawWsServer';
import { WAIT_MS } from '../helpers/deadlines';

const ATTEMPTS = 3;

let server: RawWsServer | undefined;
const connections: Connection[] = [];

afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

/**
 * Connects to `url` until {@link ATTEMPTS} errors were reported, then closes (from the
 * listener: no attempt starts after the last error). Resolves with the errors and whether
 * the connection ever opened.
 */
async function failedAttempts(url: string, options: Partial<ConnectionOptions> = {}): Promise<{ errors: ExchangeReplicaError[]; opened: boolean }> {
  const c = new Connection({ url, reconnect: { initialDelayMs: 5, maxDelayMs: 20, jitter: 0 }, ...options });
  connections.push(c);
  const errors: ExchangeReplicaError[] = [];
  let opened = false;
  c.on('open', () => (opened = true));
  c.on('error', (e) => {
    errors.push(e);
    if (errors.length === ATTEMPTS) c.close();
  });
  c.connect();
  await waitUntil(c as never, 'state', () => c.state === 'closed', `${ATTEMPTS} failed attempts`, WAIT_MS);
  return { errors, opened };
}

/** A key-independent answer, or one built from the request's key. */
type Answer = (peer: RawPeer) => void;

const answers: [string, Answer, RegExp][] = [
  ['a wrong Sec-WebSocket-Accept', (p) => p.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAA\r\n\r\n'), /Sec-WebSocket-Accept/],
  ['a 200 HTML page', (p) => p.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<html></html>'), /Unexpected server response: 200 OK/],
  ['an extension the client did not offer', (p) => p.write(upgradeAnswer(p.key, 'Sec-WebSocket-Extensions: permessage-deflate\r\n')), /extension/],
  [
    'a head without end (header lines, never the blank line)',
    (p) => {
      p.write('HTTP/1.1 101 Switching Protocols\r\n');
      const line = Buffer.from(`X-Pad: ${'p'.repeat(1000)}\r\n`);
      void p.writeAll((function* () {
        for (let i = 0; i < 10_000; i++) yield line;
      })());
    },
    /head over 65536 bytes \(maxHandshakeHeadBytes\)/,
  ],
];

describe('Connection: a server that answers the upgrade wrongly', () => {
  test.each(answers)('%s: ERR_HANDSHAKE_FAILED with the cause, once per attempt, retried', async (_label, answer, message) => {
    server = await RawWsServer.start(answer);
    const { errors, opened } = await failedAttempts(server.url);
    expect(opened).toBe(false);
    // One error per attempt: as many as the server saw connections.
    expect(errors).toHaveLength(ATTEMPTS);
    expect(server.peers).toHaveLength(ATTEMPTS);
    for (const e of errors) {
      expect(e).toBeInstanceOf(HandshakeFailedError);
      expect(e.code).toBe('ERR_HANDSHAKE_FAILED');
      expect(e.message).toContain(server.url);
      expect(e.message).toMatch(message);
      expect(e.cause).toMatchObject({ code: 'WS_ERR_HANDSHAKE' });
    }
  });

  test('with the ws package as the socket class too (its errors have no code: read by their message)', async () => {
    server = await RawWsServer.start((p) => p.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    const { errors } = await failedAttempts(server.url, { WebSocket });
    expect(errors.map((e) => e.code)).toEqual(Array(ATTEMPTS).fill('ERR_HANDSHAKE_FAILED'));
    expect(errors[0]!.cause).toBeInstanceOf(Error);
    expect(errors[0]!.message).toMatch(/Unexpected server response: 200/);
  });

  test('maxHandshakeHeadBytes bounds the head: a 2 KiB head passes by default and fails with a 1 KiB limit', async () => {
    const pad = `X-Pad: ${'p'.repeat(2048)}\r\n`;
    server = await RawWsServer.start((p) => p.write(upgradeAnswer(p.key, pad)));
    const ok = new Connection({ url: server.url });
    connections.push(ok);
    ok.connect();
    await waitUntil(ok as never, 'state', () => ok.state === 'open', 'open with a 2 KiB head', WAIT_MS);
    ok.close();
    const { errors, opened } = await failedAttempts(server.url, { maxHandshakeHeadBytes: 1024 });
    expect(opened).toBe(false);
    expect(errors.map((e) => e.code)).toEqual(Array(ATTEMPTS).fill('ERR_HANDSHAKE_FAILED'));
    expect(errors[0]!.message).toMatch(/head over 1024 bytes/);
  });
});

describe('Connection: a server that does not answer, or nothing listening', () => {
  test('a head sent a byte at a time: the connect timeout ends each attempt, ERR_CONNECTION_FAILED once per attempt', async () => {
    const timers: ReturnType<typeof setInterval>[] = [];
    server = await RawWsServer.start((p) => {
      const bytes = Buffer.from('HTTP/1.1 101 Switching Protocols\r\nX-Slow: yes');
      let i = 0;
      const t = setInterval(() => (p.isClosed ? clearInterval(t) : p.write(bytes.subarray(i % bytes.length, (i++ % bytes.length) + 1))), 10);
      timers.push(t);
    });
    try {
      const { errors, opened } = await failedAttempts(server.url, { connectTimeoutMs: 200 });
      expect(opened).toBe(false);
      expect(server.peers).toHaveLength(ATTEMPTS);
      for (const e of errors) {
        expect(e).toBeInstanceOf(ConnectionFailedError);
        expect(e.message).toMatch(/not open after 200 ms/);
        expect(e.cause).toBeInstanceOf(Error);
      }
    } finally {
      timers.forEach(clearInterval);
    }
  });

  test('nothing listening: ERR_CONNECTION_FAILED with the refusal as cause, once per attempt', async () => {
    const free = createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as AddressInfo).port;
    await new Promise((r) => free.close(r));
    const { errors } = await failedAttempts(`ws://127.0.0.1:${port}/ws`);
    expect(errors.map((e) => e.code)).toEqual(Array(ATTEMPTS).fill('ERR_CONNECTION_FAILED'));
    for (const e of errors) expect(e.cause).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
