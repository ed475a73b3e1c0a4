/**
 * `NodeWebSocket` over TLS (`wss:`) on 127.0.0.1, against the `ws` server on an HTTPS server
 * with the test's own certificate (test/fixtures/tls, `localhost` and 127.0.0.1): with the
 * certificate trusted (a child process given it as NODE_EXTRA_CA_CERTS, which Node reads
 * only at start-up) messages go both ways and the closing handshake completes; without it
 * the connection is refused (certificates are checked).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { NodeWebSocket } from '../../src/connection/node/NodeWebSocket';
import { ROOT, TsxChild } from '../cli/spawnTsx';
import { WAIT_MS } from '../helpers/deadlines';

const TLS_DIR = join(ROOT, 'test/fixtures/tls');

describe('NodeWebSocket over TLS', () => {
  let https: Server;
  let wss: WebSocketServer;
  let port: number;
  let child: TsxChild | undefined;

  beforeAll(async () => {
    https = createServer({ key: readFileSync(join(TLS_DIR, 'key.pem')), cert: readFileSync(join(TLS_DIR, 'cert.pem')) });
    wss = new WebSocketServer({ server: https, path: '/ws' });
    wss.on('connection', (s) => s.on('message', (d) => s.send(`echo: ${String(d)}`)));
    await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
    port = (https.address() as AddressInfo).port;
  });
  afterEach(async () => child?.stop());
  afterAll(async () => {
    await new Promise((r) => wss.close(r));
    await new Promise((r) => https.close(r));
  });

  test('with the certificate trusted: open, a message each way, closed with 1000', async () => {
    child = new TsxChild('test/connection/nodeWebSocketTlsChild.ts', [`wss://localhost:${port}/ws`], { NODE_EXTRA_CA_CERTS: join(TLS_DIR, 'cert.pem') });
    await child.waitForLine((l) => l.startsWith('close '), 'the close', WAIT_MS);
    expect(child.lines).toEqual(['open', 'message echo: hello over tls', 'close 1000']);
  });

  test('an untrusted certificate: an error, close 1006, never open', async () => {
    const ws = new NodeWebSocket(`wss://127.0.0.1:${port}/ws`, { maxPayload: 1024, perMessageDeflate: false });
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      ws.on('open', () => seen.push('open'));
      ws.on('error', (e) => seen.push(`error ${(e as Error & { code?: string }).code}`));
      ws.on('close', (code) => (seen.push(`close ${code}`), resolve()));
    });
    expect(seen).toEqual(['error DEPTH_ZERO_SELF_SIGNED_CERT', 'close 1006']);
  });
});
