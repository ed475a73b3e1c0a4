/**
 * Record a simulator session with feed faults (a dropped connection, `resync_required`, a
 * silent gap, failing snapshot requests), replay it into a fresh client, and compare every
 * emission of every replica (book, bbo, trades, recent trades, account), every connection
 * state change and every error reported: identical, bit for bit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExchangeClient, type ExchangeClientOptions } from '../../src';
import { streamKey } from '../../src/protocol';
import { FeedRecorder, Recording, Replayer } from '../../src/record';
import { isInput } from '../../src/record/entries';
import { Simulator } from '../../src/simulator';
import { WAIT_MS } from '../helpers/deadlines';
import { EmissionLog, type EmissionTargets } from './emissionLog';

let dir: string;
let sim: Simulator | undefined;
const clients: ExchangeClient[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'record-replay-'));
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await sim?.stop();
  sim = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Fast retries and a short liveness window: the session sees every fault heal within a second. */
const FAST: Partial<ExchangeClientOptions> = {
  connection: { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } },
  rest: { retry: { initialDelayMs: 10, maxDelayMs: 100 } },
  resync: { retry: { initialDelayMs: 10, maxDelayMs: 100 } },
  replica: { livenessMs: 1500 },
};

const PERP = { market_type: 'perp', market_id: 0 } as const;
/** Recorded time of the paced session, at least (the replay at speed 2 must beat it by half of it). */
const MIN_SPAN_MS = 3000;
/** A timer may fire up to a millisecond early, and the pace delivers what is due within 1 ms. */
const PACE_SLACK_MS = 5;
const SPOT = { market_type: 'spot', market_id: 4 } as const;

test('a session with drops, resync_required, a silent gap and failing snapshots replays to the same emissions', async () => {
  sim = await Simulator.start({ seed: 21, eventsPerSecond: 300 });
  const a = sim.engine.accounts[1]!;
  const targets: EmissionTargets = { markets: [PERP, SPOT], account: { address: a.address, subaccount_id: a.subaccount_ids[0]! } };
  const path = join(dir, 'faults.rec');
  const recorder = new FeedRecorder({ path, flushBytes: 64 * 1024 });
  const client = new ExchangeClient({ restUrl: sim.restUrl, ...FAST, record: recorder });
  clients.push(client);
  const recorded = new EmissionLog(client, targets).start();
  await recorded.until(() => recorded.allLive(), 'every replica live', WAIT_MS);

  const counts = () => client.resyncCounts();
  // Bounds that only catch a hang: the machine may be loaded.
  const healed = (what: string, done: () => boolean) =>
    recorded.until(() => done() && recorded.allLive(), what, WAIT_MS).catch((e: Error) => {
      throw new Error(`${e.message}; resyncs ${JSON.stringify(counts())}; statuses ${JSON.stringify([...recorded.statuses])}`);
    });

  // resync_required on the perp book.
  sim.faults.resyncStream(streamKey('book', { market_id: 0, is_perps: true }), 2);
  await healed('resync_required', () => counts().resync_required >= 1);
  // A silent gap on the spot book: a seq jump.
  sim.faults.skipSilently(streamKey('book', { market_id: 4, is_perps: false }), 3);
  await healed('seq_jump', () => counts().seq_jump >= 1);
  // Every socket dropped: every replica stale, then resubscribed and resynced.
  sim.faults.dropAll();
  await healed('reconnect', () => counts().disconnected >= 1 && client.connection.generation >= 2);
  // The snapshots of the next resync fail twice (HTTP 500) before one succeeds.
  sim.faults.failNextRest(2);
  sim.faults.resyncStream(streamKey('trades', { market_id: 0, is_perps: true }), 1);
  await healed('resync after failing snapshots', () => counts().resync_required >= 2);
  // Some more ordinary flow.
  const lines = recorded.lines.length;
  // Waits on what was recorded, not on time: a loaded machine makes fewer frames a second.
  await recorded.until(() => recorded.lines.length > lines + 100 && recorder.stats.frames > 300, 'more updates', WAIT_MS);

  const resyncs = counts();
  const books = recorded.fullBooks();
  recorded.stop();
  await client.close();
  const stats = recorder.stats;
  expect(stats.stopped).toBe('closed');
  expect(stats.frames).toBeGreaterThan(300);
  expect(resyncs.resync_required).toBeGreaterThanOrEqual(2);
  expect(resyncs.seq_jump).toBeGreaterThanOrEqual(1);
  expect(resyncs.disconnected).toBeGreaterThanOrEqual(1);

  // Replay into a fresh client: no network, the same subscriptions.
  const recording = Recording.open(path);
  expect(recording.torn).toBeUndefined();
  expect(recording.sessions()).toHaveLength(1);
  // The recording holds the failed snapshot answers (HTTP 500) the client retried.
  const cursor = recording.session(0);
  let failedAnswers = 0;
  for (let e = cursor.head(); e !== undefined; cursor.advance(), e = cursor.head()) if (e[0] === 'a' && e[3] === 500) failedAnswers++;
  expect(failedAnswers).toBe(2);
  const replayer = new Replayer(recording);
  const replayClient = new ExchangeClient(replayer.clientOptions());
  clients.push(replayClient);
  const replayed = new EmissionLog(replayClient, targets).start();
  const result = await replayer.start();
  const replayResyncs = replayClient.resyncCounts();
  const replayedBooks = replayed.fullBooks();
  replayed.stop();
  await replayClient.close();

  expect(result.frames).toBe(stats.frames);
  expect(result.inputs).toBe(stats.inputs);
  expect(result.end?.reason).toBe('closed');
  expect(replayResyncs).toEqual(resyncs);
  expect(replayedBooks).toEqual(books);
  expect(replayed.lines.length).toBe(recorded.lines.length);
  // The first difference, if any, in a readable form.
  const first = replayed.lines.findIndex((l, i) => l !== recorded.lines[i]);
  expect(first === -1 ? 'identical' : { at: first, recorded: recorded.lines[first], replayed: replayed.lines[first] }).toBe('identical');
});

/** Recorded time of the first input of a session, ms (where a paced replay starts its clock). */
function firstInputMs(path: string): number {
  const cursor = Recording.open(path).session(0);
  for (let e = cursor.head(); e !== undefined; cursor.advance(), e = cursor.head()) if (isInput(e)) return e[1];
  throw new Error(`${path} holds no input`);
}

test('a replay at a speed factor takes the recorded time divided by the factor', async () => {
  sim = await Simulator.start({ seed: 5, eventsPerSecond: 300 });
  const path = join(dir, 'paced.rec');
  const client = new ExchangeClient({ restUrl: sim.restUrl, ...FAST, record: new FeedRecorder({ path }) });
  clients.push(client);
  const targets: EmissionTargets = { markets: [PERP] };
  const recorded = new EmissionLog(client, targets).start();
  await recorded.until(() => recorded.allLive(), 'live', WAIT_MS);
  // A session long enough for the pace to show (how long it lasts decides nothing: every
  // bound below comes from the recording itself).
  const liveAt = performance.now();
  const lines = recorded.lines.length;
  await recorded.until(() => performance.now() - liveAt >= MIN_SPAN_MS && recorded.lines.length > lines + 20, `${MIN_SPAN_MS} ms of updates`, WAIT_MS);
  recorded.stop();
  await client.close();

  const replayer = new Replayer(path, { speed: 2 });
  const replayClient = new ExchangeClient(replayer.clientOptions());
  clients.push(replayClient);
  const replayed = new EmissionLog(replayClient, targets).start();
  const result = await replayer.start();
  replayed.stop();
  expect(replayed.lines).toEqual(recorded.lines.slice(0, replayed.lines.length));
  expect(replayed.lines.length).toBe(recorded.lines.length);
  // Paced from the first input to the last at twice the recorded pace: never sooner than half
  // the recorded time between them (a load only makes it later) ...
  expect(result.recordedMs).toBeGreaterThan(1000);
  const paced = result.recordedMs - firstInputMs(path);
  expect(result.realMs).toBeGreaterThanOrEqual(paced / 2 - PACE_SLACK_MS);
  // ... and sooner than the recorded pace: the factor is applied (the other half is left for
  // the replay's own work, which a loaded machine slows down).
  expect(result.realMs).toBeLessThan(paced);
});
