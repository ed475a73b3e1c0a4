/**
 * RecordingSource: a recorded simulator session (random faults) read by a fresh client as its
 * replica source. Any subset of the recorded streams, subscribed in any order, at any
 * recorded time, from any start time: every emission of the replay equals the live emission
 * at the same seq (status, seq, state); from the start, the replay is the live sequence itself.
 * A stream that was not recorded fails with ERR_NOT_RECORDED. Time is the recording's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExchangeClient, type ReplicaState } from '../../src';
import { NotRecordedError, Recording, RecordingSource, parseReplayTime } from '../../src/record';
import { Simulator } from '../../src/simulator';
import { PERP, recordSession, seeded, TARGETS, TargetLog, type Target } from './recordingSourceHarness';

let dir: string;
let path: string;
let live: TargetLog;
let account: { address: string; subaccount_id: number };
let durationMs: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'recording-source-'));
  path = join(dir, 'faults.rec');
  const sim = await Simulator.start({ seed: 7, eventsPerSecond: 300 });
  try {
    ({ live, account } = await recordSession(sim, path, 11, 6));
  } finally {
    await sim.stop();
  }
  durationMs = Recording.open(path).sessions()[0]!.end!.durationMs;
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Replays `targets` (subscribed in that order, the i-th after `delays[i]` ms of recorded time) from `from`; the log once the recording ended. */
async function replay(targets: readonly Target[], from: number, delays: readonly number[] = []): Promise<{ log: TargetLog; client: ExchangeClient; source: RecordingSource }> {
  const source = RecordingSource.open(path, { from });
  const client = new ExchangeClient(source.clientOptions());
  const log = new TargetLog(client, account);
  targets.forEach((t, i) => {
    const delay = delays[i] ?? 0;
    if (delay === 0) log.follow(t);
    else source.clock.setTimer(() => log.follow(t), delay);
  });
  const result = await source.ended;
  expect(result.reason).toBe('ended');
  log.stop();
  await client.close();
  return { log, client, source };
}

test('the recorded session saw its faults', () => {
  for (const t of TARGETS) expect(live.lines.get(t)!.length).toBeGreaterThan(0);
  expect(live.lines.get('bookPerp')!.filter((l) => !l.startsWith('live ')).length).toBeGreaterThan(0);
});

test('from the start, every replica goes through exactly the live emissions', async () => {
  const { log } = await replay(TARGETS, 0);
  for (const t of TARGETS) expect({ t, lines: log.lines.get(t) }).toEqual({ t, lines: live.lines.get(t) });
  expect(log.errors).toEqual([]);
});

test('property: any subset, any order, any start time, streams joining later: every replayed emission is the live one at its seq', async () => {
  const rand = seeded(20260);
  let replayedTotal = 0;
  for (let run = 0; run < 6; run++) {
    const subset = TARGETS.filter(() => rand() < 0.5);
    if (subset.length === 0) subset.push(TARGETS[Math.floor(rand() * TARGETS.length)]!);
    const order = [...subset].sort(() => rand() - 0.5);
    const from = Math.floor(rand() * durationMs * 0.8);
    const delays = order.map((_, i) => (i === 0 ? 0 : Math.floor(rand() * 1000)));
    const { log } = await replay(order, from, delays);
    for (const t of order) {
      const liveLines = new Set(live.lines.get(t));
      // Joined after the recording ended (a late join near the end of a short session): nothing to compare.
      const replayed = log.lines.get(t);
      if (replayed === undefined) continue;
      replayedTotal += replayed.length;
      const strangers = replayed.filter((l) => !liveLines.has(l));
      expect({ run, t, from, strangers }).toEqual({ run, t, from, strangers: [] });
      // The replay ends where the session did.
      const liveLast = live.lines.get(t)!.at(-1)!;
      if (replayed.length > 0) expect({ run, t, last: replayed.at(-1) }).toEqual({ run, t, last: liveLast });
    }
    expect(log.errors).toEqual([]);
  }
  expect(replayedTotal).toBeGreaterThan(100);
}, 120_000);

test('a stream that was not recorded fails with ERR_NOT_RECORDED; the others are unaffected', async () => {
  const source = RecordingSource.open(path);
  const client = new ExchangeClient(source.clientOptions());
  const failed = new Promise<unknown>((resolve) => client.orderBook({ market_type: 'perp', market_id: 9 }).subscribe({ error: resolve }));
  const book: ReplicaState<unknown>[] = [];
  client.orderBook(PERP).subscribe((e) => book.push(e));
  const error = await failed;
  expect(error).toBeInstanceOf(NotRecordedError);
  expect(error).toMatchObject({ code: 'ERR_NOT_RECORDED' });
  await source.ended;
  expect(book.at(-1)?.status).toBe('live');
  await client.close();
});

test('time is the recording: receive stamps are the recorded ones, a timer fires at its recorded time', async () => {
  const source = RecordingSource.open(path, { from: 0 });
  const client = new ExchangeClient(source.clientOptions());
  const stamps: bigint[] = [];
  client.orderBook(PERP).subscribe((e) => stamps.push(e.receivedAtNs - e.timestampNs));
  const fired: number[] = [];
  const at = durationMs / 2;
  source.clock.setTimer(() => fired.push(source.clock.nowMs()), at);
  const started = source.clock.nowNs();
  const result = await source.ended;
  expect(fired).toEqual([at]);
  expect(result.recordedMs).toBeGreaterThan(at);
  expect(started).toBe(BigInt(source.header.startedAtNs));
  // Latency of a replayed update is the recorded one: milliseconds (the simulator on 127.0.0.1), not the time since.
  const worst = stamps.reduce((m, x) => (x > m ? x : m), 0n);
  expect(worst).toBeLessThan(5_000_000_000n);
  expect(worst).toBeGreaterThan(0n);
  await client.close();
});

test('at a speed factor, the replay takes at least the recorded time divided by it', async () => {
  const source = RecordingSource.open(path, { speed: 10, from: durationMs / 2 });
  const client = new ExchangeClient(source.clientOptions());
  client.orderBook(PERP).subscribe(() => undefined);
  const result = await source.ended;
  const span = result.recordedMs - durationMs / 2;
  expect(span).toBeGreaterThan(0);
  expect(result.realMs).toBeGreaterThanOrEqual(span / 10 - 5);
  await client.close();
});

test('the recording lists its streams; replay times parse', () => {
  const source = RecordingSource.open(path);
  expect(source.recordedStreams().map((s) => s.key)).toEqual(expect.arrayContaining(['book|market_id=0|is_perps=true', 'book|market_id=4|is_perps=false', 'bbo|market_id=0|is_perps=true', 'trades|market_id=0|is_perps=true']));
  expect(parseReplayTime('1m30s')).toBe(90_000);
  expect(parseReplayTime('250ms')).toBe(250);
  expect(parseReplayTime('1500')).toBe(1500);
  expect(parseReplayTime('2026-11-27T17:15:39Z')).toEqual(new Date('2026-11-27T17:15:39Z'));
  expect(() => parseReplayTime('soon')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_PARAMETER' }));
  source.close();
});

test('a bad option is refused', () => {
  expect(() => RecordingSource.open(path, { speed: 0 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_PARAMETER' }));
  expect(() => RecordingSource.open(join(dir, 'missing.rec'))).toThrow(expect.objectContaining({ code: 'ERR_RECORDING_INVALID' }));
});
