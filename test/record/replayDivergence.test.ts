/**
 * A replay that parts from its recording says so at once, naming the entry, what the
 * recording has there and what the client did: another subscription, other options, or code
 * that never makes the calls it made while recording (a stall).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExchangeClient } from '../../src';
import { FeedRecorder, ReplayDivergenceError, Replayer } from '../../src/record';
import { Simulator } from '../../src/simulator';
import { EmissionLog } from './emissionLog';
import { WAIT_MS } from '../helpers/deadlines';

const PERP = { market_type: 'perp', market_id: 0 } as const;
let dir: string;
let path: string;
const clients: ExchangeClient[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'record-diverge-'));
  path = join(dir, 'book.rec');
  const sim = await Simulator.start({ seed: 2, eventsPerSecond: 200 });
  const client = new ExchangeClient({ restUrl: sim.restUrl, record: new FeedRecorder({ path }) });
  const log = new EmissionLog(client, { markets: [PERP] }).start();
  await log.until(() => log.allLive() && log.of('book perp0').length > 10, 'a live book', WAIT_MS);
  log.stop();
  await client.close();
  await sim.stop();
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function divergence(replayer: Replayer): Promise<ReplayDivergenceError> {
  const error = await replayer.start().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReplayDivergenceError);
  return error as ReplayDivergenceError;
}

test('another subscription than the recorded one: diverges at the subscribe frame', async () => {
  const replayer = new Replayer(path);
  const client = new ExchangeClient(replayer.clientOptions());
  clients.push(client);
  // The same kinds of replicas, of another market: everything matches up to the subscribe frame.
  const log = new EmissionLog(client, { markets: [{ market_type: 'spot', market_id: 4 }] }).start();
  const e = await divergence(replayer);
  log.stop();
  expect(e.code).toBe('ERR_REPLAY_DIVERGED');
  expect(e.expected).toMatch(/^a frame sent on socket #1: .*"channel\\":\\"book\\".*"market_id\\":0/);
  expect(e.actual).toMatch(/^send on socket #1: .*"market_id":4/);
  expect(e.message).toMatch(/diverged at entry \d+ \(after input \d+/);
  expect(e.position).toBeGreaterThan(0);
  // From there on the replay is detached: nothing more is delivered.
  expect(replayer.progress.state).toBe('diverged');
});

test('other options than the recorded ones: diverges at the first timer they change', async () => {
  const replayer = new Replayer(path);
  const client = new ExchangeClient(replayer.clientOptions({ connection: { connectTimeoutMs: 1234 } }));
  clients.push(client);
  const log = new EmissionLog(client, { markets: [PERP] }).start();
  const e = await divergence(replayer);
  log.stop();
  expect(e.expected).toBe('timer #1 set for 10000 ms');
  expect(e.actual).toBe('set timer #1 for 1234 ms');
});

test('a client that does less than the recorded one: the replay reports a stall after stallTimeoutMs', async () => {
  const replayer = new Replayer(path, { stallTimeoutMs: 300 });
  const client = new ExchangeClient(replayer.clientOptions());
  clients.push(client);
  // The recording subscribed to four replicas of the market; this code subscribes to one.
  client.orderBook(PERP).subscribe({ error: () => undefined });
  const started = Date.now();
  const e = await divergence(replayer);
  expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  expect(e.actual).toMatch(/^nothing for 300 ms/);
  expect(e.expected).toBe('a read of the monotonic clock (nowMs)');
  expect(e.position).toBeGreaterThan(0);
});
