/**
 * TLS on the bus: a real nats-server that requires TLS (a certificate signed by a test CA made
 * with openssl) and a token. A relay and a BusClient reach it by a `tls://` URL with the CA
 * file (and the token): live and exact. Without the CA, the handshake fails at once with a
 * coded error that says so (`ERR_BUS`), for a consumer too (it does not retry forever).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExchangeReplicaError } from '../../src/errors';
import { BusClient, type ReplicaRelay } from '../../src/nats';
import type { Simulator } from '../../src/simulator';
import { startRelay, startSim } from './busHarness';
import { BookWatch } from './bookWatch';
import { NatsAuthServer } from './natsAuthServer';

jest.setTimeout(120_000);

const BOOK = { channel: 'book' as const, scope: { market_id: 0, is_perps: true } };
const TOKEN = 'tls-token-3e8b';

let dir: string;
let server: NatsAuthServer;
let sim: Simulator;
let relay: ReplicaRelay | undefined;
const clients: BusClient[] = [];

/** A CA and a server certificate for 127.0.0.1 and localhost signed by it (openssl). */
function makeCertificates(at: string): { ca: string; cert: string; key: string } {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: at, stdio: ['ignore', 'pipe', 'pipe'] });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-subj', '/CN=exchange-replica test CA', '-days', '2');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(at, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');
  return { ca: join(at, 'ca.pem'), cert: join(at, 'server.pem'), key: join(at, 'server.key') };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'er-nats-tls-'));
  const { cert, key } = makeCertificates(dir);
  server = await NatsAuthServer.start({
    config: { text: `tls { cert_file: ${JSON.stringify(cert)}, key_file: ${JSON.stringify(key)} }\nauthorization { token: $ER_TOKEN }\n` },
    env: { ER_TOKEN: TOKEN },
  });
  sim = await startSim({ seed: 41 });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await relay?.close();
  await sim?.stop();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const tlsUrl = () => `tls://127.0.0.1:${server.port}`;

test('a relay and a consumer on tls:// with the CA file and a token: live and exact', async () => {
  const caFile = join(dir, 'ca.pem');
  relay = await startRelay(sim, tlsUrl(), { natsAuth: { token: TOKEN, caFile }, relayId: 'tls-relay', streams: [BOOK] });
  const client = new BusClient({ natsUrl: tlsUrl(), natsAuth: { token: TOKEN, caFile }, replica: { livenessMs: 0 } });
  clients.push(client);
  const watch = new BookWatch(client, 0);
  await watch.until('live');
  expect(await watch.diffAtCheckpoint(sim)).toEqual([]);
  watch.stop();
});

test('without the CA the handshake fails at once with a coded error that says so', async () => {
  const client = new BusClient({ natsUrl: tlsUrl(), natsAuth: { token: TOKEN } });
  clients.push(client);
  const e = await client.streams({ waitMs: 100 }).then(
    () => new Error('connected without the CA'),
    (err: unknown) => err as Error,
  );
  expect(e).toBeInstanceOf(ExchangeReplicaError);
  expect({ code: (e as ExchangeReplicaError).code, message: e.message }).toEqual({ code: 'ERR_BUS', message: expect.stringMatching(/cannot connect to NATS at tls:\/\/127\.0\.0\.1:\d+: TLS failed \(give the CA .*\): unable to verify the first certificate/) });
  expect(e.message).not.toContain(TOKEN);
  const fromRelay = await startRelay(sim, tlsUrl(), { natsAuth: { token: TOKEN }, relayId: 'no-ca', streams: [BOOK] }).then(
    async (r) => (await r.close(), new Error('connected without the CA')),
    (err: unknown) => err as Error,
  );
  expect({ code: (fromRelay as ExchangeReplicaError).code, tls: /TLS failed/.test(fromRelay.message) }).toEqual({ code: 'ERR_BUS', tls: true });
});
