/**
 * Replay throughput: a recorded book session of `frames` update frames (500 levels a side,
 * 1-3 level changes a frame) replayed at full speed into a fresh ExchangeClient, frames/s
 * from `start()` to `done` (decompression, parsing, the replay scheduler's macrotask per
 * input, and the client's whole path: connection, router, fast decoder, replica). Median and
 * spread over `reps` runs; each run's final book is checked against the plain replay of the
 * stream, and the recording run's emissions against the replay's.
 *
 * The session is recorded from an in-process fake exchange (a socket class and a fetch
 * handed to the client: no network), through the real recorder, so it is produced in
 * seconds and the same every run. Part of `npm run bench` (`runReplayBench`), or alone:
 *
 *   npx tsx benchmarks/replay.ts [--quick]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExchangeClient } from '../src/client';
import type { RawSocketData, WebSocketLike } from '../src/connection';
import type { WebSocketClientOptions } from '../src/connection/connectionOptions';
import type { FetchLike } from '../src/rest';
import { FeedRecorder, Recording, Replayer } from '../src/record';
import type { OrderBook } from '../src/replicas/book';
import { diffTop, makeDeltaStream, replayTop, type DeltaStream, type TopLevels } from './book/deltaStream';
import { median, spreadOf, type Spread } from './lib/stats';
import { runSeekBench, runSourceThroughput, type RunFigures, type SeekResult, type SourceThroughput } from './replaySource';

export interface ReplayBenchConfig {
  readonly frames: number;
  readonly levels: number;
  readonly reps: number;
  readonly seed: number;
  /** Length of the synthetic recording (200 frames/s) of the seek figure, minutes. */
  readonly seekMinutes: number;
}

export const REPLAY_FULL: ReplayBenchConfig = { frames: 50_000, levels: 500, reps: 5, seed: 0x5eed, seekMinutes: 60 };
export const REPLAY_QUICK: ReplayBenchConfig = { frames: 2_000, levels: 100, reps: 2, seed: 0x5eed, seekMinutes: 2 };

export interface ReplayBenchResult {
  readonly config: ReplayBenchConfig;
  /** Recording: wall time, file size, entries. */
  readonly recording: { readonly ms: number; readonly baselineMs: number; readonly bytes: number; readonly bytesPerFrame: number; readonly entries: number; readonly inputs: number; readonly frames: number };
  /** Full-speed replays into a client: frames/s of each run, median and spread. */
  readonly framesPerSec: number;
  readonly runs: readonly number[];
  readonly spread: Spread & { readonly min: number };
  /** Reading alone (decompress + parse every entry, no client): entries/s, frames/s. */
  readonly readOnly: { readonly entriesPerSec: number; readonly framesPerSec: number };
  /** The same recording read through RecordingSource at full speed (see replaySource.ts). */
  readonly source?: SourceThroughput;
  /** Open + seek to the middle of a long recording (see replaySource.ts). */
  readonly seek?: SeekResult;
  /** Every replay reached the last frame with the expected book, and the same emissions as the recording run. */
  readonly correct: boolean;
  readonly error?: string;
}

const BOOK = { market_type: 'perp', market_id: 0 } as const;
const REST_URL = 'http://replay-bench.invalid';
const BASE_NS = 1_790_000_000_000_000_000n;
/** Update frames sent per macrotask by the fake exchange (a socket's read delivers several). */
const BATCH = 64;

/** Server frames as the feed writes them (streaming-protocol.md section 3). */
const subscribedFrame = (requestId: string): string => JSON.stringify({ type: 'subscribed', request_id: requestId, subscription_id: '1', channel: 'book' });
const updateFrame = (seq: number, timestampNs: bigint, dataJson: string): string => `{"type":"update","subscription_id":"1","channel":"book","seq":"${seq}","timestamp_ns":"${timestampNs}","data":${dataJson}}`;

/**
 * A fake exchange feed: opens at once, answers `subscribe` with `subscribed`, then sends every
 * update frame of the stream, BATCH per macrotask.
 */
function fakeFeed(frames: readonly string[]): new (url: string, options: WebSocketClientOptions) => WebSocketLike {
  return class FakeFeed implements WebSocketLike {
    readyState = 0;
    private readonly listeners: Record<string, ((...args: never[]) => void)[]> = {};

    constructor(_url: string, _options: WebSocketClientOptions) {
      setImmediate(() => {
        this.readyState = 1;
        this.emit('open');
      });
    }

    on(event: string, listener: (...args: never[]) => void): this {
      (this.listeners[event] ??= []).push(listener);
      return this;
    }

    send(data: string): void {
      const frame = JSON.parse(data) as { type: string; request_id: string };
      if (frame.type !== 'subscribe') return;
      setImmediate(() => {
        this.message(subscribedFrame(frame.request_id));
        let i = 0;
        const next = () => {
          for (const end = Math.min(frames.length, i + BATCH); i < end && this.readyState === 1; i++) this.message(frames[i]!);
          if (i < frames.length && this.readyState === 1) setImmediate(next);
        };
        setImmediate(next);
      });
    }

    close(): void {
      this.end();
    }

    terminate(): void {
      this.end();
    }

    private end(): void {
      if (this.readyState >= 2) return;
      this.readyState = 3;
      setImmediate(() => this.emit('close', 1000, new Uint8Array()));
    }

    private message(text: string): void {
      this.emit('message', Buffer.from(text) as RawSocketData, false);
    }

    private emit(event: string, ...args: unknown[]): void {
      for (const l of this.listeners[event] ?? []) (l as (...a: unknown[]) => void)(...args);
    }
  };
}

/** The fake exchange's REST: the stream's snapshot at sequence 0. */
function fakeRest(stream: DeltaStream): FetchLike {
  const body = `{"data":${JSON.stringify(stream.snapshot)},"sequence":"0","timestamp_ns":"${BASE_NS}"}`;
  return async (url) => {
    if (!url.startsWith(`${REST_URL}/v1/orderBook?`)) return { status: 404, text: async () => '{"code":"NOT_FOUND","error":"not here"}' };
    return { status: 200, text: async () => body };
  };
}

const exactTop = (book: OrderBook, n: number): TopLevels => {
  const t = book.top(n);
  const pairs = (ls: typeof t.bids) => ls.map((l): [string, string] => [l.price_ticks, l.size_base_lots]);
  return { bids: pairs(t.bids), asks: pairs(t.asks) };
};

/** Subscribes to the book; resolves with its final top and every emission's (status, seq, version) once `seq` reaches `frames`. */
function followBook(client: ExchangeClient, frames: number, timeoutMs: number): { done: Promise<TopLevels>; emissions: string[] } {
  const emissions: string[] = [];
  const done = new Promise<TopLevels>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the book did not reach seq ${frames} within ${timeoutMs} ms (at ${emissions[emissions.length - 1]})`)), timeoutMs);
    client.orderBook(BOOK).subscribe({
      next: (e) => {
        emissions.push(`${e.status} ${e.cause} ${e.seq} ${e.state.version} ${e.receivedAtNs} ${e.snapshotId}`);
        if (e.seq === BigInt(frames) && e.status === 'live') {
          clearTimeout(timer);
          resolve(exactTop(e.state, 20));
        }
      },
      error: (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    });
  });
  return { done, emissions };
}

export async function runReplayBench(config: ReplayBenchConfig, log: (line: string) => void = () => undefined): Promise<ReplayBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'replay-bench-'));
  const path = join(dir, 'book.rec');
  try {
    const stream = makeDeltaStream({ levels: config.levels, frames: config.frames, seed: config.seed, focus: 'top' });
    const frames = stream.frames.map((f, i) => updateFrame(i + 1, BASE_NS + BigInt(i) * 1000n, JSON.stringify({ bids: f.bids, asks: f.asks })));
    const expected = replayTop(stream, config.frames, 20);

    // The same session without a recorder: what the recording costs on top.
    const b0 = performance.now();
    const plain = new ExchangeClient({ restUrl: REST_URL, strict: true, connection: { WebSocket: fakeFeed(frames) }, rest: { fetch: fakeRest(stream) } });
    await followBook(plain, config.frames, 120_000).done;
    await plain.close();
    const baselineMs = performance.now() - b0;

    // The recording run.
    const recorder = new FeedRecorder({ path });
    const t0 = performance.now();
    const recorded = new ExchangeClient({ restUrl: REST_URL, strict: true, connection: { WebSocket: fakeFeed(frames) }, rest: { fetch: fakeRest(stream) }, record: recorder });
    const live = followBook(recorded, config.frames, 120_000);
    const recordedTop = await live.done;
    await recorded.close();
    const recordMs = performance.now() - t0;
    const stats = recorder.stats;
    const bytes = statSync(path).size;
    log(`replay: recorded ${stats.frames} frames in ${(recordMs / 1000).toFixed(1)} s, ${bytes} bytes (${(bytes / stats.frames).toFixed(1)} B/frame)`);
    let error = diffTop(recordedTop, expected);
    if (error) error = `recording run: ${error}`;

    const recording = Recording.open(path);

    const runs: number[] = [];
    for (let rep = 0; rep < config.reps && error === undefined; rep++) {
      const replayer = new Replayer(recording);
      const client = new ExchangeClient(replayer.clientOptions());
      const replayed = followBook(client, config.frames, 120_000);
      const start = performance.now();
      const result = await replayer.start();
      const ms = performance.now() - start;
      const top = await replayed.done;
      await client.close();
      runs.push(result.frames / (ms / 1000));
      log(`replay: run ${rep + 1}/${config.reps}: ${result.frames} frames in ${ms.toFixed(0)} ms = ${Math.round(runs[runs.length - 1]!)} frames/s`);
      const diff = diffTop(top, expected);
      if (result.frames !== stats.frames) error = `run ${rep + 1}: replayed ${result.frames} frames of ${stats.frames}`;
      else if (diff) error = `run ${rep + 1}: ${diff}`;
      else if (replayed.emissions.join('\n') !== live.emissions.join('\n')) error = `run ${rep + 1}: the emissions differ from the recording run's`;
    }
    // Reading alone (after the replays: as warm as they were).
    const reads: number[] = [];
    let entries = 0;
    for (let rep = 0; rep < config.reps; rep++) {
      const r0 = performance.now();
      const cursor = recording.session(0);
      for (entries = 0; cursor.head() !== undefined; cursor.advance()) entries++;
      reads.push(performance.now() - r0);
    }
    const readMs = median(reads);
    const best = `${Number(expected.bids[0]?.[0])} ${Number(expected.asks[0]?.[0])}`;
    const source = error === undefined ? await runSourceThroughput(path, config.reps, best, log) : undefined;
    if (source?.error) error = `RecordingSource: ${source.error}`;
    const seek = error === undefined ? await runSeekBench(dir, config.seekMinutes, config.reps, log) : undefined;
    if (seek?.error) error = `seek: ${seek.error}`;
    const s = spreadOf(runs);
    return {
      config,
      recording: { ms: recordMs, baselineMs, bytes, bytesPerFrame: bytes / stats.frames, entries: stats.entries, inputs: stats.inputs, frames: stats.frames },
      framesPerSec: median(runs),
      runs,
      spread: { ...s, min: runs.length ? Math.min(...runs) : NaN },
      readOnly: { entriesPerSec: entries / (readMs / 1000), framesPerSec: stats.frames / (readMs / 1000) },
      ...(source ? { source } : {}),
      ...(seek ? { seek } : {}),
      correct: error === undefined && runs.length === config.reps,
      ...(error !== undefined ? { error } : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The markdown section of the report. */
export function renderReplay(r: ReplayBenchResult): string {
  const k = (x: number) => `${Math.round(x).toLocaleString('en-US')}`;
  const ms = (f: RunFigures) => `${f.median.toFixed(0)} (${f.min.toFixed(0)}-${f.max.toFixed(0)})`;
  const runs = (f: RunFigures) => `${k(f.median)} (${k(f.min)}-${k(f.max)})`;
  return [
    `## Replay (${k(r.config.frames)}-frame book session, ${r.config.levels} levels a side, full speed, median of ${r.config.reps} runs)`,
    '',
    '| measure | value |',
    '|---|---|',
    `| replay into ExchangeClient | ${k(r.framesPerSec)} frames/s (min ${k(r.spread.min)}, max ${k(r.spread.max)}) |`,
    `| reading alone (gunzip + JSON lines) | ${k(r.readOnly.framesPerSec)} frames/s (${k(r.readOnly.entriesPerSec)} entries/s) |`,
    `| recording the session | ${(r.recording.ms / 1000).toFixed(2)} s (${(r.recording.baselineMs / 1000).toFixed(2)} s unrecorded: +${(((r.recording.ms - r.recording.baselineMs) * 1000) / r.recording.frames).toFixed(1)} µs/frame), ${k(r.recording.bytes)} bytes, ${r.recording.bytesPerFrame.toFixed(1)} B/frame, ${k(r.recording.entries)} entries |`,
    `| live client (unrecorded run, fake feed): cost per update | ${((r.recording.baselineMs * 1000) / r.recording.frames).toFixed(2)} µs (${k(r.recording.frames / (r.recording.baselineMs / 1000))} updates/s) |`,
    ...(r.source
      ? [
          `| RecordingSource, speed Infinity, book + a subscriber reading the best bid per emission (target >= 1,000,000) | ${runs(r.source.updatesPerSec)} updates/s (${(1e6 / r.source.updatesPerSec.median).toFixed(2)} µs/update), reading the file included |`,
          `| ... floor on one thread: reading the file + the replica side fed from memory, one after the other | ${runs(r.source.floorPerSec)} updates/s; the replay runs at ${r.source.ratio.median.toFixed(2)} of it (${r.source.ratio.min.toFixed(2)}-${r.source.ratio.max.toFixed(2)}) |`,
          `| ... reading the file alone (open + checksums, inflate, split into lines) | ${runs(r.source.readPerSec)} updates/s |`,
          `| ... reading + the index + decoding each frame as the replay does | ${runs(r.source.decodePerSec)} updates/s |`,
          `| ... the replica side alone (decoded updates fed from memory -> StreamSync -> book -> subscriber) | ${runs(r.source.feedPerSec)} updates/s (${(1e6 / r.source.feedPerSec.median).toFixed(2)} µs/update) |`,
          `| ... the bare book (OrderBook.applyLevels + bestBid per update, no client) | ${runs(r.source.applyPerSec)} updates/s |`,
        ]
      : []),
    ...(r.seek
      ? [
          `| seek: ${r.seek.minutes}-min recording at 200 frames/s (${k(r.seek.frames)} frames, ${k(r.seek.bytes)} bytes, book resynced every 5 min): open + seek to the middle + book live there (target < 1000) | ${ms(r.seek.seekMs)} ms (open alone ${ms(r.seek.openMs)} ms) |`,
          `| ... floor: the index up to the middle alone (every chunk before it inflated and scanned) | ${ms(r.seek.indexMs)} ms |`,
          `| ... floor: inflating the chunks from the snapshot before the middle to it (~${k(r.seek.catchUpUpdates)} updates the book folds) | ${ms(r.seek.catchUpReadMs)} ms |`,
        ]
      : []),
    `| exact (final book = plain replay, emissions = recording run's; RecordingSource's final book; seek live at the middle) | ${r.correct ? 'yes' : `NO: ${r.error}`} |`,
  ].join('\n');
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const r = await runReplayBench(quick ? REPLAY_QUICK : REPLAY_FULL, (line) => console.error(line));
  console.log(renderReplay(r));
  process.exitCode = r.correct ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
