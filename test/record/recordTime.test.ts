/**
 * Time in record/ goes through an injected `Clock`: the recorder's stamps and timers, a
 * paced `RecordingSource`'s waits, the exact rerun's pacing and stall bound. Each is driven
 * here by a manual clock, with no wall-clock wait; and a socket whose class threw when it was
 * created throws the library's error (with the recorded message) when replayed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebSocketClientOptions, WebSocketLike } from '../../src/connection/connectionOptions';
import { ExchangeClient } from '../../src/client';
import { ExchangeReplicaError } from '../../src/errors';
import { FeedRecorder, Recording, RecordingSource, Replayer } from '../../src/record';
import { RECORDING_FORMAT, RECORDING_VERSION, type Entry } from '../../src/record/entries';
import { RecordingWriter } from '../../src/record/RecordingWriter';
import { ReplaySockets } from '../../src/record/ReplaySockets';
import { ManualClock } from '../helpers/ManualClock';

const OPTIONS: WebSocketClientOptions = { maxPayload: 1 << 20, perMessageDeflate: false };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'record-time-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lets queued macrotasks (the recorder's deliveries, the replay's slices) run. */
const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** A socket class the test drives: `last.emit('open')`. */
class DrivenSocket implements WebSocketLike {
  static last: DrivenSocket | undefined;
  readyState = 0;
  private readonly listeners = new Map<string, ((...args: never[]) => void)[]>();
  constructor(_url: string, _options: WebSocketClientOptions) {
    DrivenSocket.last = this;
  }
  on(event: string, listener: (...args: never[]) => void): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  send(): void {}
  close(): void {}
  terminate(): void {}
  emit(event: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(event) ?? []) (l as (...a: unknown[]) => void)(...args);
  }
}

function entriesOf(path: string): Entry[] {
  const recording = Recording.open(path);
  const out: Entry[] = [];
  for (let i = 0; ; i++) {
    const e = recording.chunkEntries(i);
    if (e === undefined) return out;
    out.push(...e);
  }
}

test('the recorder stamps inputs, flushes and stops on its injected clock', async () => {
  const clock = new ManualClock(500, 1_800_000_000_000_000_000n);
  const path = join(dir, 'stamps.rec');
  const recorder = new FeedRecorder({ path, clock, flushIntervalMs: 1000, maxDurationMs: 5000 });
  recorder.begin({ restUrl: 'http://t.invalid', wsUrl: 'ws://t.invalid/ws', options: {} });
  const Socket = recorder.wrapWebSocket(DrivenSocket);
  new Socket('ws://t.invalid/ws', OPTIONS);
  await clock.advance(12.5);
  DrivenSocket.last!.emit('open');
  await clock.advance(0.25);
  DrivenSocket.last!.emit('message', Buffer.from('{"type":"pong"}'), false);
  await turns();
  expect(recorder.stats.chunks).toBe(0);
  // The flush timer is the injected clock's.
  await clock.advance(1000);
  expect(recorder.stats.chunks).toBe(1);
  // So is the duration bound.
  expect(recorder.stats.stopped).toBeUndefined();
  await clock.advance(4000);
  expect(recorder.stats.stopped).toBe('maxDuration');
  const entries = entriesOf(path);
  const header = entries[0] as unknown as ['h', { startedAtNs: string }];
  expect(header[1].startedAtNs).toBe('1800000000000000000');
  expect(entries.filter((e) => e[0] === 'o' || e[0] === 'm').map((e) => e[1])).toEqual([12.5, 12.75]);
  expect(entries.at(-1)).toEqual(['z', expect.objectContaining({ reason: 'maxDuration', durationMs: 5000 })]);
});

/** A session of one `book` subscription and two frames one recorded second apart. */
function twoFrames(path: string): void {
  const w = new RecordingWriter(path, { maxBytes: 2 ** 30, flushBytes: 1 << 20, compressionLevel: 1, fsync: false });
  const header = { format: RECORDING_FORMAT, version: RECORDING_VERSION, startedAtNs: '1790000000000000000', startedAt: '2026-09-21T00:00:00.000Z', restUrl: 'http://t.invalid', wsUrl: 'ws://t.invalid/ws', options: {}, meta: null };
  const url = 'http://t.invalid/v1/orderBook?market_type=perp&market_id=0&depth=500';
  const frame = (seq: number, price: number) => `{"type":"update","subscription_id":"1","channel":"book","seq":"${seq}","timestamp_ns":"1790000000000000000","data":{"bids":[{"price_ticks":"${price}","size_base_lots":"1"}],"asks":[]}}`;
  for (const e of [
    ['h', header],
    ['S', 1, header.wsUrl],
    ['o', 1, 1],
    ['s', 1, JSON.stringify({ type: 'subscribe', request_id: '1', channel: 'book', market_id: 0, is_perps: true })],
    ['m', 2, 1, JSON.stringify({ type: 'subscribed', request_id: '1', subscription_id: '1', channel: 'book' })],
    ['F', 1, url],
    ['a', 3, 1, 200, JSON.stringify({ data: { bids: [], asks: [{ price_ticks: '200', size_base_lots: '1' }] }, sequence: '0', timestamp_ns: '1790000000000000000' }), null, null],
    ['m', 1000, 1, frame(1, 100)],
    ['m', 2000, 1, frame(2, 101)],
  ])
    w.add(JSON.stringify(e));
  w.writeFinal([JSON.stringify(['z', { reason: 'closed', entries: 8, inputs: 5, durationMs: 2000 }])]);
  w.close();
}

test('a paced RecordingSource waits on its injected real clock', async () => {
  const path = join(dir, 'paced.rec');
  twoFrames(path);
  const realClock = new ManualClock();
  const source = RecordingSource.open(path, { speed: 10, realClock });
  const seqs: bigint[] = [];
  source.subscribe('book', { market_id: 0, is_perps: true }, {
    next: (e) => {
      if (e.kind === 'update') seqs.push(e.seq);
    },
    error: (e) => {
      throw e;
    },
    complete: () => undefined,
  });
  await turns(20);
  // Recorded 1000 ms at speed 10: 100 real ms after the start (recorded 0), on the real clock only.
  expect(seqs).toEqual([]);
  await clock(realClock, 99);
  expect(seqs).toEqual([]);
  await clock(realClock, 2);
  expect(seqs).toEqual([1n]);
  await clock(realClock, 100);
  expect(seqs).toEqual([1n, 2n]);
  const r = await source.ended;
  expect(r.reason).toBe('ended');
  expect(r.realMs).toBe(200);
});

/** Advances the manual clock, letting the replay's macrotasks run before and after. */
async function clock(c: ManualClock, ms: number): Promise<void> {
  await turns(20);
  await c.advance(ms);
  await turns(20);
}

test("the exact rerun's stall bound runs on its injected real clock", async () => {
  const path = join(dir, 'paced.rec');
  const realClock = new ManualClock();
  const replayer = new Replayer(path, { realClock, stallTimeoutMs: 5000 });
  // No client: the log's first entry (the socket the client creates) never comes.
  const done = replayer.start();
  let outcome: unknown;
  done.then(
    () => (outcome = 'resolved'),
    (e: unknown) => (outcome = e),
  );
  await clock(realClock, 4999);
  expect(outcome).toBeUndefined();
  await clock(realClock, 1);
  expect(outcome).toBeInstanceOf(ExchangeReplicaError);
  expect((outcome as ExchangeReplicaError).code).toBe('ERR_REPLAY_DIVERGED');
});

test('a socket whose class threw when created throws the library error with the recorded message when replayed', () => {
  const log = { attached: () => true, take: () => ['S', 1, 'ws://t.invalid/ws', 'Invalid URL: ws://t.invalid/ws'] as never, divergeAt: () => undefined };
  const { WebSocket } = new ReplaySockets(log);
  let thrown: unknown;
  try {
    new WebSocket('ws://t.invalid/ws', OPTIONS);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(ExchangeReplicaError);
  expect(thrown).toMatchObject({ code: 'ERR_CONNECTION_FAILED', message: 'Invalid URL: ws://t.invalid/ws' });
});

test("the replayed receive stamps are the recorded client's clock reads: a snapshot's after its answer, a frame's across a chunk boundary", async () => {
  const path = join(dir, 'stamps-replay.rec');
  const w = new RecordingWriter(path, { maxBytes: 2 ** 30, flushBytes: 1 << 20, compressionLevel: 1, fsync: false });
  const header = { format: RECORDING_FORMAT, version: RECORDING_VERSION, startedAtNs: '1790000000000000000', startedAt: '2026-09-21T00:00:00.000Z', restUrl: 'http://t.invalid', wsUrl: 'ws://t.invalid/ws', options: {}, meta: null };
  const url = 'http://t.invalid/v1/orderBook?market_type=perp&market_id=0&depth=500';
  const frame = (seq: number) => `{"type":"update","subscription_id":"1","channel":"book","seq":"${seq}","timestamp_ns":"1790000000000000000","data":{"bids":[{"price_ticks":"${100 + seq}","size_base_lots":"1"}],"asks":[]}}`;
  const add = (e: unknown[]) => w.add(JSON.stringify(e));
  add(['h', header]);
  add(['S', 1, header.wsUrl]);
  add(['o', 1, 1]);
  add(['s', 1, JSON.stringify({ type: 'subscribe', request_id: '1', channel: 'book', market_id: 0, is_perps: true })]);
  add(['m', 2, 1, JSON.stringify({ type: 'subscribed', request_id: '1', subscription_id: '1', channel: 'book' })]);
  add(['F', 1, url]);
  // The answer arrives at 3 ms; the client stamps the snapshot at 7.5 ms (its read, after parsing it).
  add(['a', 3, 1, 200, JSON.stringify({ data: { bids: [], asks: [{ price_ticks: '200', size_base_lots: '1' }] }, sequence: '0', timestamp_ns: '1790000000000000000' }), null, null]);
  add(['d', 3.2]);
  add(['n', '1790000000007500000']);
  add(['m', 10, 1, frame(1)]);
  add(['n', '1790000000010250000']);
  // A flush between a frame and the client's stamp of it: the stamp is the next chunk's first entry.
  add(['m', 20, 1, frame(2)]);
  w.flush();
  add(['n', '1790000000020750000']);
  w.writeFinal([JSON.stringify(['z', { reason: 'closed', entries: 13, inputs: 5, durationMs: 30 }])]);
  w.close();
  expect(Recording.open(path).chunks.length).toBeGreaterThan(1);

  const source = RecordingSource.open(path);
  const client = new ExchangeClient(source.clientOptions());
  const stamps: string[] = [];
  client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe((e) => stamps.push(`${e.status} ${e.seq} ${e.receivedAtNs}`));
  await source.ended;
  await client.close();
  expect(stamps.filter((s) => s.startsWith('live'))).toEqual(['live 0 1790000000007500000', 'live 1 1790000000010250000', 'live 2 1790000000020750000']);
});
