/**
 * Trust = who may publish (issue item 1). A real nats-server started with the README's
 * configuration (examples/nats/roles.conf: a relay role and a consumer role):
 * - a relay signs in with the relay's credentials, consumers with a consumer's (a password,
 *   or an NKey seed), and the consumers go live and exact;
 * - a consumer's credentials cannot publish a batch, a heartbeat or a snapshot, nor run a
 *   relay: each refused with a coded error (`ERR_BUS_PERMISSION`), and nothing of it reaches
 *   the bus (the subject's messages and the KV entry are the relay's, the consumers exact);
 * - an anonymous connection is refused with `ERR_BUS_AUTH` saying that no credentials were
 *   given; wrong credentials with `ERR_BUS_AUTH` saying they were refused, the secret never
 *   in the message;
 * - the CLI: `relay` and `view --nats` sign in from NATS_USER / NATS_PASSWORD and never print
 *   the password; anonymous, they fail with `error ERR_BUS_AUTH`.
 * And a token server (nats-server `authorization { token }`).
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, nkeys, type NatsConnection } from '@nats-io/transport-node';
import { ExchangeReplicaError } from '../../src/errors';
import { BusClient, marketStreams, ReplicaRelay, type NatsAuth } from '../../src/nats';
import { busNames, encodeHeartbeat, encodeSnapshotRecord, encodeUpdateBatch, encodeUpdateMessage, heartbeatSubject, messageId, snapshotKey, updateMessagePrefix, updateSubject, UPDATE_HEADERS } from '../../src/nats/busProtocol';
import { streamKey } from '../../src/protocol';
import type { Simulator } from '../../src/simulator';
import { runProgram } from '../cli/runProgram';
import { readSnapshot, startRelay, startSim, waitUntil } from './busHarness';
import { BookWatch } from './bookWatch';
import { NatsAuthServer, ROLES_CONF } from './natsAuthServer';

jest.setTimeout(120_000);

const RELAY_PASSWORD = 'relay-secret-5d1f';
const CONSUMER_PASSWORD = 'consumer-secret-9a7c';
const consumerKey = nkeys.createUser();
const CONSUMER_SEED = new TextDecoder().decode(consumerKey.getSeed());

const RELAY: NatsAuth = { user: 'relay', password: RELAY_PASSWORD };
const CONSUMER: NatsAuth = { user: 'consumer', password: CONSUMER_PASSWORD };
const names = busNames();
const BOOK = { channel: 'book' as const, scope: { market_id: 0, is_perps: true } };
const BOOK_KEY = streamKey(BOOK.channel, BOOK.scope);
const BOOK_SUBJECT = updateSubject(names, BOOK.channel, BOOK.scope);

let server: NatsAuthServer;
let sim: Simulator;
let relay: ReplicaRelay;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await NatsAuthServer.start({
    config: { file: ROLES_CONF },
    env: { ER_RELAY_PASSWORD: RELAY_PASSWORD, ER_CONSUMER_PASSWORD: CONSUMER_PASSWORD, ER_CONSUMER_NKEY: consumerKey.getPublicKey() },
  });
  sim = await startSim({ eventsPerSecond: 300, seed: 21 });
  relay = await startRelay(sim, server.url, { natsAuth: RELAY, relayId: 'relay-a', streams: marketStreams('perp', 0, ['book', 'trades']) });
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await relay?.close();
  await sim?.stop();
  await server?.stop();
});

function track<T extends { close(): Promise<unknown> }>(x: T): T {
  closers.push(() => x.close());
  return x;
}

async function natsAs(auth: { user: string; pass: string }): Promise<NatsConnection> {
  return track(await connect({ servers: server.url, ...auth }));
}

/** A rejection's error, or a failure when the promise resolved. */
async function refusal(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a refusal, the operation succeeded');
    },
    (e: unknown) => e as Error,
  );
}

function expectCoded(e: unknown, code: string, message: RegExp): void {
  expect(e).toBeInstanceOf(ExchangeReplicaError);
  expect({ code: (e as ExchangeReplicaError).code, message: (e as Error).message }).toEqual({ code, message: expect.stringMatching(message) });
  for (const secret of [RELAY_PASSWORD, CONSUMER_PASSWORD, CONSUMER_SEED]) expect((e as Error).message).not.toContain(secret);
}

test('a relay signs in as the relay, consumers as consumers (password and NKey): live and exact', async () => {
  // Any operation the consumer role lacks would be reported (ERR_BUS_PERMISSION) here.
  const errors: string[] = [];
  const onError = (e: unknown): void => void errors.push(`${(e as ExchangeReplicaError).code ?? ''} ${String(e)}`);
  const byPassword = track(new BusClient({ natsUrl: server.url, natsAuth: CONSUMER, replica: { livenessMs: 0 }, onError }));
  const byNkey = track(new BusClient({ natsUrl: server.url, natsAuth: { nkeySeed: CONSUMER_SEED }, replica: { livenessMs: 0 }, onError }));
  const relayErrors: string[] = [];
  const sub = relay.errors$.subscribe((e) => relayErrors.push(String(e)));
  const a = new BookWatch(byPassword, 0);
  const b = new BookWatch(byNkey, 0);
  await a.until('live');
  await b.until('live');
  expect(await a.diffAtCheckpoint(sim)).toEqual([]);
  expect(await b.diffAtCheckpoint(sim)).toEqual([]);
  sub.unsubscribe();
  expect({ a: a.errored, b: b.errored, errors, relayErrors: relayErrors.filter((e) => /ERR_BUS_PERMISSION|Permissions Violation/.test(e)) }).toEqual({ a: undefined, b: undefined, errors: [], relayErrors: [] });
  a.stop();
  b.stop();
});

test("a consumer's credentials cannot publish a batch, a heartbeat or a snapshot, nor run a relay: refused with a coded error, nothing delivered", async () => {
  const client = track(new BusClient({ natsUrl: server.url, natsAuth: CONSUMER, replica: { livenessMs: 0 } }));
  const watch = new BookWatch(client, 0);
  await watch.until('live');
  const emissionsBefore = watch.liveEmissions;

  // A relay run with a consumer's credentials: refused before it carries anything.
  const asRelay = await refusal(startRelay(sim, server.url, { natsAuth: CONSUMER, relayId: 'not-a-relay', streams: [BOOK] }));
  expectCoded(asRelay, 'ERR_BUS_PERMISSION', /NATS refused .* to these credentials: Permissions Violation/);

  // By hand, as an attacker holding a consumer's credentials would: the relay's next batch id, a heartbeat, a KV entry.
  const nc = await natsAs({ user: 'consumer', pass: CONSUMER_PASSWORD });
  const refusedSubjects: string[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error') refusedSubjects.push(String((s.error as { subject?: unknown }).subject));
  })();
  const next = (relay.describe().find((d) => d.streamKey === BOOK_KEY)!.publishedSeq ?? 0n) + 1n;
  const frame = encodeUpdateMessage(updateMessagePrefix('book', BOOK_KEY), 'book', next, 1n, { bids: [{ price_ticks: '1', size_base_lots: '777' }], asks: [] });
  const js = jetstream(nc);
  const published = await refusal(js.publish(BOOK_SUBJECT, encodeUpdateBatch(next, [frame]), { msgID: messageId(BOOK_KEY, next, next), timeout: 10_000 }));
  expect(published.message).toMatch(/Permissions Violation for Publish to "er\.u\.book/);
  const kv = await new Kvm(js).open(names.bucket);
  const current = (await readSnapshot(nc, names, snapshotKey('book', BOOK.scope)))!.record;
  const written = await refusal(kv.put(snapshotKey('book', BOOK.scope), encodeSnapshotRecord({ ...current, sequence: 10n ** 15n, relayId: 'forger' })));
  expect(written.message).toMatch(/Permissions Violation for Publish to "\$KV\.er_snapshots\./);
  const hb = relay.heartbeat();
  nc.publish(heartbeatSubject(names, 'forger'), encodeHeartbeat({ ...hb, relayId: 'forger', intervalMs: 60_000 }));
  await nc.flush();
  await waitUntil(() => refusedSubjects.includes(heartbeatSubject(names, 'forger')), 'the heartbeat refused');

  // Nothing of it is on the bus: the subject's last messages and the KV entry are the relay's, the consumer exact and still live.
  const asRelayNc = await natsAs({ user: 'relay', pass: RELAY_PASSWORD });
  const jsm = await jetstreamManager(asRelayNc);
  await waitUntil(async () => ((await jsm.streams.getMessage(names.stream, { last_by_subj: BOOK_SUBJECT }))?.header?.get(UPDATE_HEADERS.relay) === 'relay-a' ? true : undefined), 'the last batch of the book written by the relay');
  const info = await jsm.streams.info(names.stream);
  let forged = 0;
  for (let seq = Math.max(info.state.first_seq, info.state.last_seq - 300); seq <= info.state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(names.stream, { seq }).catch(() => null);
    if (m !== null && m.header?.get(UPDATE_HEADERS.relay) !== 'relay-a') forged++;
  }
  expect(forged).toBe(0);
  expect((await readSnapshot(asRelayNc, names, snapshotKey('book', BOOK.scope)))!.record.relayId).toBe('relay-a');
  expect(client.bus.carried().flatMap((s) => s.relays.map((r) => r.relayId))).not.toContain('forger');
  expect(await watch.diffAtCheckpoint(sim)).toEqual([]);
  expect(watch.liveEmissions).toBeGreaterThan(emissionsBefore);
  expect(watch.statuses.slice(-1)).toEqual(['live']);
  watch.stop();
});

test("a relay's credentials can: publish on the bus's subjects and write the bucket", async () => {
  const nc = await natsAs({ user: 'relay', pass: RELAY_PASSWORD });
  const js = jetstream(nc);
  const ack = await js.publish(`${names.prefix}.u.auth-test`, 'not read by any consumer', { msgID: `auth-test-${Date.now()}` });
  expect(ack.seq).toBeGreaterThan(0);
  const kv = await new Kvm(js).open(names.bucket);
  expect(await kv.put('auth-test.key', 'x')).toBeGreaterThan(0);
});

test('an anonymous connection is refused with ERR_BUS_AUTH saying no credentials were given; wrong ones say they were refused', async () => {
  const anonymous = track(new BusClient({ natsUrl: server.url }));
  expectCoded(await refusal(anonymous.streams({ waitMs: 100 })), 'ERR_BUS_AUTH', /refused the connection: authorization violation: no credentials were given/);
  // A replica of that client fails with the same error (it never goes live).
  const watch = new BookWatch(anonymous, 0);
  await waitUntil(() => watch.errored !== undefined || watch.status === 'failed', 'the anonymous replica to fail');
  expect(watch.status === 'live').toBe(false);
  watch.stop();

  expectCoded(await refusal(startRelay(sim, server.url, { relayId: 'anonymous', streams: [BOOK] })), 'ERR_BUS_AUTH', /no credentials were given/);
  expectCoded(await refusal(startRelay(sim, server.url, { natsAuth: { user: 'relay', password: 'wrong-password' }, relayId: 'wrong', streams: [BOOK] })), 'ERR_BUS_AUTH', /the credentials given were refused/);
  const wrong = track(new BusClient({ natsUrl: server.url, natsAuth: { user: 'consumer', password: CONSUMER_PASSWORD + 'x' } }));
  const e = await refusal(wrong.streams({ waitMs: 100 }));
  expectCoded(e, 'ERR_BUS_AUTH', /the credentials given were refused/);
  expect((e as Error).message).not.toContain(CONSUMER_PASSWORD);
});

test('a URL carrying credentials is refused without repeating them', async () => {
  const e = await refusal(startRelay(sim, `nats://relay:${RELAY_PASSWORD}@127.0.0.1:${server.port}`, { streams: [BOOK] }));
  expectCoded(e, 'ERR_INVALID_PARAMETER', /must not carry credentials/);
  expect(() => new BusClient({ natsUrl: `nats://${CONSUMER_PASSWORD}@127.0.0.1:${server.port}` })).toThrow(/must not carry credentials/);
});

describe('CLI', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of ['NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_CREDS', 'NATS_NKEY', 'NATS_CA']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  test('relay signs in from NATS_USER / NATS_PASSWORD and never prints the password; anonymous, it fails with ERR_BUS_AUTH', async () => {
    process.env.NATS_USER = 'relay';
    process.env.NATS_PASSWORD = RELAY_PASSWORD;
    const ok = await runProgram(['relay', '--rest-url', sim.restUrl, '--nats', server.url, '--markets', 'perp:1', '--channels', 'bbo', '--relay-id', 'cli-relay', '--duration-ms', '1500', '--status-ms', '500']);
    expect({ code: ok.code, stderr: ok.stderr }).toEqual({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/relay cli-relay started: 1 streams, NATS nats:\/\/127\.0\.0\.1:\d+, exchange/);
    expect(ok.stdout + ok.stderr).not.toContain(RELAY_PASSWORD);
    const help = await runProgram(['relay', '--help']);
    expect(help.stdout).toMatch(/--nats-password <password>[\s\S]*?\(or env NATS_PASSWORD\)/);
    expect(help.stdout).not.toContain(RELAY_PASSWORD);

    delete process.env.NATS_USER;
    delete process.env.NATS_PASSWORD;
    const anonymous = await runProgram(['relay', '--rest-url', sim.restUrl, '--nats', server.url, '--markets', 'perp:1', '--channels', 'bbo', '--duration-ms', '1500']);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/^error ERR_BUS_AUTH: NATS at nats:\/\/127\.0\.0\.1:\d+ refused the connection: authorization violation: no credentials were given/);

    const conflicting = await runProgram(['relay', '--rest-url', sim.restUrl, '--nats', server.url, '--nats-token', 'secret-token-1', '--nats-user', 'relay', '--nats-password', RELAY_PASSWORD]);
    expect(conflicting.code).toBe(2);
    expect(conflicting.stderr).toMatch(/^error ERR_CLI_USAGE: give one kind of NATS credentials/);
    expect(conflicting.stderr).not.toMatch(/secret-token-1|relay-secret/);
  });

  test('view --nats signs in as a consumer; anonymous it fails with ERR_BUS_AUTH', async () => {
    process.env.NATS_USER = 'consumer';
    process.env.NATS_PASSWORD = CONSUMER_PASSWORD;
    const ok = await runProgram(['view', '--nats', server.url, '--duration-ms', '2500']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/\S/);
    expect(ok.stdout).not.toContain(CONSUMER_PASSWORD);
    delete process.env.NATS_USER;
    delete process.env.NATS_PASSWORD;
    const anonymous = await runProgram(['view', '--nats', server.url, '--duration-ms', '2500']);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/^error ERR_BUS_AUTH: .*no credentials were given/);
    const noNats = await runProgram(['view', '--nats-token', 'x', '--duration-ms', '100']);
    expect(noNats.stderr).toMatch(/^error ERR_CLI_USAGE: the --nats-\* credential flags sign in to the bus: add --nats <url>/);
  });
});

test('a token server: relay and consumer sign in with the token; another token is refused', async () => {
  const token = 'tok-' + CONSUMER_PASSWORD;
  const tokenServer = await NatsAuthServer.start({ config: { text: 'authorization { token: $ER_TOKEN }\n' }, env: { ER_TOKEN: token } });
  closers.push(() => tokenServer.stop());
  const tokenRelay = track(await startRelay(sim, tokenServer.url, { natsAuth: { token }, relayId: 'token-relay', streams: [BOOK] }));
  expect(tokenRelay.relayId).toBe('token-relay');
  const client = track(new BusClient({ natsUrl: tokenServer.url, natsAuth: { token }, replica: { livenessMs: 0 } }));
  const watch = new BookWatch(client, 0);
  await watch.until('live');
  expect(await watch.diffAtCheckpoint(sim)).toEqual([]);
  watch.stop();
  const wrong = track(new BusClient({ natsUrl: tokenServer.url, natsAuth: { token: 'not-the-token' } }));
  const e = await refusal(wrong.streams({ waitMs: 100 }));
  expectCoded(e, 'ERR_BUS_AUTH', /the credentials given were refused/);
  expect((e as Error).message).not.toContain('not-the-token');
});
