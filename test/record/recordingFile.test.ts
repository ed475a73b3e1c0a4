/**
 * The recording file: a valid multi-member gzip file, appendable (a second session after the
 * first), crash-safe (a torn or damaged last chunk is reported and skipped, everything before
 * it replays, never an exception), and bounded (size and time).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ExchangeClient } from '../../src';
import { FeedRecorder, Recording, RecordingFormatError, Replayer } from '../../src/record';
import { Simulator } from '../../src/simulator';
import { EmissionLog, type EmissionTargets } from './emissionLog';
import { WAIT_MS } from '../helpers/deadlines';

jest.setTimeout(120_000);

const PERP = { market_type: 'perp', market_id: 0 } as const;
const targets: EmissionTargets = { markets: [PERP] };

let dir: string;
let sim: Simulator;
/** A recording of about 1.5 s (small chunks: many of them), and its emissions. */
let base: { path: string; lines: string[]; frames: number };

/** Records `targets` until `until` holds, with `recorder`; returns the emission log. */
async function record(recorder: FeedRecorder, until: (log: EmissionLog) => boolean, what: string): Promise<EmissionLog> {
  const client = new ExchangeClient({ restUrl: sim.restUrl, record: recorder });
  const log = new EmissionLog(client, targets).start();
  try {
    await log.until(() => until(log), what, WAIT_MS);
  } finally {
    log.stop();
    await client.close();
  }
  return log;
}

/** Replays session `session` of `path` with `targets`; the emission lines and the result. */
async function replay(path: string, session = 0) {
  const replayer = new Replayer(path, { session });
  const client = new ExchangeClient(replayer.clientOptions());
  const log = new EmissionLog(client, targets).start();
  try {
    const result = await replayer.start();
    return { lines: log.lines, result };
  } finally {
    log.stop();
    await client.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'record-file-'));
  sim = await Simulator.start({ seed: 4, eventsPerSecond: 300 });
  const path = join(dir, 'base.rec');
  const recorder = new FeedRecorder({ path, flushBytes: 4096 });
  const log = await record(recorder, (l) => l.allLive() && l.of('book perp0').length > 80, '80 book emissions');
  base = { path, lines: log.lines, frames: recorder.stats.frames };
});
afterAll(async () => {
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the file is a valid gzip file of JSON lines (zcat reads it), starting with the session header', () => {
  const text = gunzipSync(readFileSync(base.path)).toString('utf8');
  const lines = text.trimEnd().split('\n');
  const header = JSON.parse(lines[0]!) as [string, { format: string; restUrl: string }];
  expect(header[0]).toBe('h');
  expect(header[1].format).toBe('exchange-replica-recording');
  expect(header[1].restUrl).toBe(sim.restUrl);
  expect(JSON.parse(lines[lines.length - 1]!)[0]).toBe('z');
  expect(lines.filter((l) => l.startsWith('["m",')).length).toBe(base.frames);
  expect(new Recording(readFileSync(base.path)).chunks.length).toBeGreaterThan(5);
});

test('a recording cut in the middle of its last chunk: the torn tail is reported and skipped, the rest replays', async () => {
  const recording = Recording.open(base.path);
  const chunks = recording.chunks;
  const last = chunks[chunks.length - 3]!;
  const cut = join(dir, 'cut.rec');
  writeFileSync(cut, readFileSync(base.path).subarray(0, last.offset + Math.floor(last.size / 2)));

  const torn = Recording.open(cut);
  expect(torn.torn).toMatchObject({ offset: last.offset, reason: expect.stringContaining('incomplete chunk') });
  expect(torn.sessions()).toHaveLength(1);
  expect(torn.sessions()[0]!.end).toBeUndefined();

  const { lines, result } = await replay(cut);
  expect(result.end).toBeUndefined();
  expect(result.torn?.offset).toBe(last.offset);
  expect(result.frames).toBeGreaterThan(0);
  expect(result.frames).toBeLessThan(base.frames);
  // A prefix of the recorded emissions (the very last input's outputs may be cut: its emission may differ).
  expect(lines.length).toBeGreaterThan(10);
  expect(lines.slice(0, -1)).toEqual(base.lines.slice(0, lines.length - 1));
});

test('a damaged last chunk (bad CRC) and garbage after the last chunk are reported, never thrown', async () => {
  const bytes = readFileSync(base.path);
  const chunks = Recording.open(base.path).chunks;
  const last = chunks[chunks.length - 1]!;
  const damaged = Buffer.from(bytes);
  damaged[last.offset + last.size - 9] = damaged[last.offset + last.size - 9]! ^ 0xff; // in the deflate data, before the CRC
  const path = join(dir, 'damaged.rec');
  writeFileSync(path, damaged);
  const r = Recording.open(path);
  expect(r.sessions()).toHaveLength(1);
  expect(r.torn).toMatchObject({ offset: last.offset, reason: expect.stringContaining('damaged chunk') });
  const { result } = await replay(path);
  expect(result.torn?.offset).toBe(last.offset);

  const garbage = join(dir, 'garbage.rec');
  writeFileSync(garbage, Buffer.concat([bytes, Buffer.from('not a chunk at all, but long enough to have a header')]));
  expect(Recording.open(garbage).torn).toMatchObject({ offset: bytes.length, reason: 'bytes that are not a chunk' });
  expect(() => Recording.open(join(dir, 'missing.rec'))).toThrow(RecordingFormatError);
  const notOne = join(dir, 'text.rec');
  writeFileSync(notOne, 'hello, this is not a recording of anything at all');
  expect(() => Recording.open(notOne)).toThrow(/is not a recording of exchange-replica/);
  expect(() => new FeedRecorder({ path: notOne })).toThrow(RecordingFormatError);
});

test('recording to an existing file appends a session; a torn tail left by a dead process is cut off first', async () => {
  const path = join(dir, 'append.rec');
  writeFileSync(path, readFileSync(base.path));
  appendFileSync(path, readFileSync(base.path).subarray(0, 40)); // a second recorder died mid-write
  const before = statSync(path).size;
  const recorder = new FeedRecorder({ path });
  expect(recorder.repaired).toMatchObject({ offset: before - 40, bytes: 40 });
  const second = await record(recorder, (l) => l.allLive() && l.of('book perp0').length > 20, '20 book emissions');

  const r = Recording.open(path);
  expect(r.torn).toBeUndefined();
  const sessions = r.sessions();
  expect(sessions.map((s) => s.end?.reason)).toEqual(['closed', 'closed']);
  const first = await replay(path, 0);
  expect(first.lines).toEqual(base.lines);
  const again = await replay(path, 1);
  expect(again.lines).toEqual(second.lines);
  expect(() => new Replayer(path, { session: 2 })).toThrow(/has no session 2 \(it holds 2 sessions/);
});

test('maxBytes: the file stays within the bound, the session ends with reason maxBytes, the client runs on, the part recorded replays', async () => {
  const path = join(dir, 'bounded.rec');
  const maxBytes = 12_000;
  const stops: string[] = [];
  const recorder = new FeedRecorder({ path, maxBytes, flushBytes: 2048, onStop: (reason) => stops.push(reason) });
  const log = await record(recorder, (l) => recorder.stats.stopped !== undefined && l.of('book perp0').length > 60, 'the bound reached, and the book still updating');
  expect(stops).toEqual(['maxBytes']);
  expect(statSync(path).size).toBeLessThanOrEqual(maxBytes);
  const session = Recording.open(path).sessions()[0]!;
  expect(session.end?.reason).toBe('maxBytes');
  const { lines, result } = await replay(path);
  expect(result.end?.reason).toBe('maxBytes');
  expect(result.frames).toBeGreaterThan(0);
  // The client went on after the recording stopped: more emissions than the replay has.
  expect(log.lines.length).toBeGreaterThan(lines.length);
  expect(lines.slice(0, -1)).toEqual(log.lines.slice(0, lines.length - 1));
});

test('maxDurationMs: the session ends after that time, with reason maxDuration', async () => {
  const path = join(dir, 'timed.rec');
  const recorder = new FeedRecorder({ path, maxDurationMs: 400 });
  const started = Date.now();
  await record(recorder, () => recorder.stats.stopped !== undefined && Date.now() - started > 800, 'the time bound');
  const session = Recording.open(path).sessions()[0]!;
  expect(session.end?.reason).toBe('maxDuration');
  expect(session.end!.durationMs).toBeGreaterThanOrEqual(390); // setTimeout may fire a fraction of a ms early by performance.now()
  const { result } = await replay(path);
  expect(result.recordedMs).toBeLessThanOrEqual(session.end!.durationMs);
});

test('a process that dies mid-session: the chunks already flushed replay', async () => {
  const path = join(dir, 'died.rec');
  writeFileSync(path, readFileSync(base.path));
  // Keep the flushed chunks of the session, drop its end: what a killed process leaves.
  const r = Recording.open(path);
  const end = r.chunks[r.chunks.length - 1]!;
  truncateSync(path, end.offset);
  const { result, lines } = await replay(path);
  expect(result.end).toBeUndefined();
  expect(result.torn).toBeUndefined();
  expect(lines.slice(0, -1)).toEqual(base.lines.slice(0, lines.length - 1));
});

test('a recorder never cuts a file that is not a recording, even a short one', () => {
  for (const [name, text] of [['short.txt', 'hello'], ['long.txt', 'hello, this is a text file and not a recording']] as const) {
    const path = join(dir, name);
    writeFileSync(path, text);
    expect(() => new FeedRecorder({ path })).toThrow(RecordingFormatError);
    expect(readFileSync(path, 'utf8')).toBe(text);
  }
});
