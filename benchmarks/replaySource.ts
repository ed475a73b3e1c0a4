/**
 * RecordingSource figures for the replay part of `npm run bench` (benchmarks/replay.ts):
 *
 * - Throughput: a recorded book session read by a fresh client through `RecordingSource` at
 *   `speed: Infinity`, a subscriber reading the best bid on every emission: updates/s from
 *   the subscribe to the end (reading the file included: inflate, unescape, the library's
 *   fast decoder); the same updates decoded alone (the file's share); and the replica side
 *   alone: the decoded updates fed from memory to the same client path.
 * - Seek: a synthetic hour-long (`--quick`: two-minute) recording at 200 frames/s, a
 *   500-level book that resyncs every five minutes (as a long session does): open, seek to
 *   the middle, the book live at the update recorded there (folded from the snapshot
 *   before it), in ms.
 */
import { join } from 'node:path';
import { ExchangeClient } from '../src/client';
import { updateFramePrefix, writeUpdateData, writeUpdateFrame } from '../src/protocol';
import { Recording, RecordingSource } from '../src/record';
import { loadRecordedSnapshot } from '../src/record/recordedSnapshot';
import type { ReplicaSource, SourceUpdate } from '../src/replicas';
import { ChunkStore } from '../src/record/chunkStore';
import { RECORDING_FORMAT, RECORDING_VERSION } from '../src/record/entries';
import { nextFrameEvent } from '../src/record/recordedFrames';
import { RecordingIndex, type RecordedAnswer } from '../src/record/recordingIndex';
import { RecordingWriter } from '../src/record/RecordingWriter';
import { bookReducer, type BookData, type OrderBook } from '../src/replicas/book';
import { median } from './lib/stats';
import { seededRandom } from './lib/rng';

const BOOK = { market_type: 'perp', market_id: 0 } as const;

/** Median, least and most of a measure over the runs. */
export interface RunFigures {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: readonly number[];
}

export interface SourceThroughput {
  /** Updates/s from the subscribe to the end, file reading included. */
  readonly updatesPerSec: RunFigures;
  /** Updates/s of reading the file alone: open (checksums), inflate, split into lines. */
  readonly readPerSec: RunFigures;
  /** Updates/s of reading and decoding alone (the above, the index, each frame decoded as the replay does). */
  readonly decodePerSec: RunFigures;
  /** Updates/s of the replica side alone: the recorded updates, decoded beforehand, fed from memory to the same client path. */
  readonly feedPerSec: RunFigures;
  /** Updates/s of the bare book: the decoded updates applied to an `OrderBook` in a loop, the best bid read after each. */
  readonly applyPerSec: RunFigures;
  /**
   * The floor of a replay on one thread: reading the file and the replica side, one after
   * the other (updates / (read time + feed time)), per run; `ratio`: the replay's
   * throughput over it, per run.
   */
  readonly floorPerSec: RunFigures;
  readonly ratio: RunFigures;
  readonly updates: number;
  /** The final best bid/ask is the recording run's. */
  readonly correct: boolean;
  readonly error?: string;
}

export function figures(runs: readonly number[]): RunFigures {
  return { median: median(runs), min: Math.min(...runs), max: Math.max(...runs), runs };
}

/** Replays the book of `path` `reps` times through RecordingSource; `best` is the final best bid/ask expected. */
export async function runSourceThroughput(path: string, reps: number, best: string, log: (line: string) => void): Promise<SourceThroughput> {
  const runs: number[] = [];
  const reads: number[] = [];
  const decodes: number[] = [];
  const feeds: number[] = [];
  const applies: number[] = [];
  const floors: number[] = [];
  const ratios: number[] = [];
  let updates = 0;
  let error: string | undefined;
  for (let rep = 0; rep < reps; rep++) {
    const source = RecordingSource.open(path);
    const client = new ExchangeClient(source.clientOptions());
    let bid: number | undefined;
    let last = '';
    client.orderBook(BOOK).subscribe((e) => {
      bid = (e.state as OrderBook).bestBid();
      last = `${bid} ${(e.state as OrderBook).bestAsk()}`;
    });
    const r = await source.ended;
    await client.close();
    updates = r.updates;
    runs.push(r.updates / (r.realMs / 1000));
    if (last !== best) error = `run ${rep + 1}: final best bid/ask ${last}, recorded ${best}`;
    void bid;
    const readMs = readAll(path);
    reads.push(updates / (readMs / 1000));
    const { ms, events, answer, index } = decodeAll(path);
    decodes.push(events.length / (ms / 1000));
    const fed = await feedFromMemory(events, answer, index);
    feeds.push(events.length / (fed.ms / 1000));
    if (fed.best !== best) error = `run ${rep + 1}: fed from memory, final best bid/ask ${fed.best}, recorded ${best}`;
    const applied = applyBare(events, answer);
    applies.push(events.length / (applied.ms / 1000));
    if (applied.best !== best) error = `run ${rep + 1}: the bare book's final best bid/ask ${applied.best}, recorded ${best}`;
    floors.push(updates / ((readMs + fed.ms) / 1000));
    ratios.push(runs.at(-1)! / floors.at(-1)!);
    log(
      `replay source: run ${rep + 1}/${reps}: ${r.updates} updates in ${r.realMs.toFixed(0)} ms = ${Math.round(runs.at(-1)!)} updates/s; reading alone ${readMs.toFixed(0)} ms; reading + decoding ${ms.toFixed(0)} ms; fed from memory ${fed.ms.toFixed(0)} ms = ${Math.round(feeds.at(-1)!)} updates/s; bare book ${applied.ms.toFixed(0)} ms; floor (reading + fed) ${Math.round(floors.at(-1)!)} updates/s, replay at ${ratios.at(-1)!.toFixed(2)} of it`,
    );
  }
  return {
    updatesPerSec: figures(runs),
    readPerSec: figures(reads),
    decodePerSec: figures(decodes),
    feedPerSec: figures(feeds),
    applyPerSec: figures(applies),
    floorPerSec: figures(floors),
    ratio: figures(ratios),
    updates,
    correct: error === undefined,
    ...(error ? { error } : {}),
  };
}

/** Reading the file alone: open (every chunk's checksum), inflate every chunk and split it into lines. Returns the time. */
function readAll(path: string): number {
  const t0 = performance.now();
  const recording = Recording.open(path);
  let lines = 0;
  for (let c = 0; ; c++) {
    const l = recording.chunkLines(c);
    if (l === undefined) break;
    lines += l.length;
  }
  const ms = performance.now() - t0;
  if (lines === 0) throw new Error(`${path} holds no entry`);
  return ms;
}

/** The bare book: the recorded snapshot, then every decoded update applied to an `OrderBook` in a loop, the best bid read after each. */
function applyBare(events: readonly SourceUpdate[], answer: RecordedAnswer): { ms: number; best: string } {
  const snapshot = (JSON.parse(answer.body) as { data: BookData }).data;
  const t0 = performance.now();
  const book = bookReducer.fromSnapshot(snapshot, BOOK);
  let bid: number | undefined;
  for (const e of events) {
    bookReducer.apply(book, e.data as BookData, e.seq);
    bid = book.bestBid();
  }
  const ms = performance.now() - t0;
  return { ms, best: `${bid} ${book.bestAsk()}` };
}

/**
 * The replica side alone: a source that hands the recorded updates, decoded beforehand, to a
 * client's book replica in one loop (after `subscribed` and the recorded snapshot, applied
 * first), a subscriber reading the best bid on each emission. Returns the loop's time.
 */
async function feedFromMemory(events: readonly SourceUpdate[], answer: RecordedAnswer, index: RecordingIndex): Promise<{ ms: number; best: string }> {
  let ms = 0;
  let fed!: () => void;
  const done = new Promise<void>((resolve) => (fed = resolve));
  const source: ReplicaSource = {
    subscribe(_channel, _scope, sink) {
      setImmediate(() => {
        sink.next({ kind: 'subscribed', subscriptionId: '1', generation: 1 });
        // The snapshot query answers in microtasks: applied before the loop.
        setImmediate(() => {
          const t0 = performance.now();
          for (const e of events) sink.next(e);
          ms = performance.now() - t0;
          fed();
        });
      });
      return () => undefined;
    },
    snapshot: (query) => loadRecordedSnapshot(query, answer, index, 'book'),
  };
  const client = new ExchangeClient({ restUrl: 'http://bench.invalid', source });
  let best = '';
  let bid: number | undefined;
  client.orderBook(BOOK).subscribe((e) => {
    bid = (e.state as OrderBook).bestBid();
    best = `${bid} ${(e.state as OrderBook).bestAsk()}`;
  });
  await done;
  await client.close();
  return { ms, best };
}

/**
 * Reads and decodes every frame of the book's subscriptions as the source does (a frame
 * decoded when it is come to, nothing kept): the time. Then, untimed, the updates themselves
 * and the first snapshot answer, for the replica-side figures.
 */
function decodeAll(path: string): { ms: number; events: SourceUpdate[]; answer: RecordedAnswer; index: RecordingIndex } {
  const t0 = performance.now();
  const first = readBookFrames(path, () => undefined);
  const ms = performance.now() - t0;
  const events: SourceUpdate[] = [];
  const { answer, index } = readBookFrames(path, (e) => events.push(e));
  if (first.updates !== events.length) throw new Error(`decoded ${first.updates} updates, then ${events.length}`);
  return { ms, events, answer, index };
}

function readBookFrames(path: string, each: (e: SourceUpdate) => void): { updates: number; answer: RecordedAnswer; index: RecordingIndex } {
  const recording = Recording.open(path);
  const store = new ChunkStore(recording, recording.chunks.length + 1);
  const index = new RecordingIndex(store, 0);
  // The index over the whole session (every chunk inflated once and kept, as the source's cache does), then each chunk's frames.
  const stream = index.allStreams().find((s) => s.channel === 'book')!;
  let updates = 0;
  for (let c = 0; index.ensureRead(c); c++) {
    const lines = store.get(c)!.lines;
    for (const e of stream.epochs) {
      const q = { lines, baseOrder: index.baseOrder(c), firstLine: index.firstLineIn(c), socket: e.socket, subscriptionId: e.subscriptionId, channel: 'book' as const, wallNs: () => 0n };
      for (let item = nextFrameEvent(q, q.firstLine); item !== undefined; item = nextFrameEvent(q, item.order - q.baseOrder + 1)) {
        if (item.event.kind !== 'update') continue;
        updates++;
        each(item.event);
      }
    }
  }
  return { updates, answer: index.answersTo(stream.snapshotUrl)[0]!, index };
}

export interface SeekResult {
  readonly minutes: number;
  readonly frames: number;
  readonly bytes: number;
  readonly writeMs: number;
  /** `RecordingSource.open` alone, ms. */
  readonly openMs: RunFigures;
  /** Open, seek to the middle, the book live at the update recorded there, ms. */
  readonly seekMs: RunFigures;
  /** Floor: the index read up to the middle alone (open, every chunk before it inflated and scanned), ms. */
  readonly indexMs: RunFigures;
  /** Floor: inflating and splitting the chunks from the snapshot before the middle to the middle, ms. */
  readonly catchUpReadMs: RunFigures;
  /** Updates between that snapshot and the middle (what the book folds). */
  readonly catchUpUpdates: number;
  readonly correct: boolean;
  readonly error?: string;
}

const FPS = 200;
const LEVELS = 500;
const RESYNC_EVERY_MS = 5 * 60_000;
const BASE_NS = 1_790_000_000_000_000_000n;

/** Writes the synthetic session: a book of fixed prices whose sizes change, resynced every five minutes. */
function writeLongSession(path: string, minutes: number): { frames: number; sizes: Map<number, number>[] } {
  const w = new RecordingWriter(path, { maxBytes: 2 ** 40, flushBytes: 256 * 1024, compressionLevel: 6, fsync: false });
  const header = { format: RECORDING_FORMAT, version: RECORDING_VERSION, startedAtNs: String(BASE_NS), startedAt: new Date(Number(BASE_NS / 1_000_000n)).toISOString(), restUrl: 'http://bench.invalid', wsUrl: 'ws://bench.invalid/ws', options: {}, meta: null };
  w.add(JSON.stringify(['h', header]));
  const rand = seededRandom(7);
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  for (let i = 1; i <= LEVELS; i++) {
    bids.set(100_000 - i, 1 + Math.floor(rand() * 1000));
    asks.set(100_000 + i, 1 + Math.floor(rand() * 1000));
  }
  const snapshotUrl = 'http://bench.invalid/v1/orderBook?market_type=perp&market_id=0&depth=500';
  let request = 0;
  const snapshot = (at: number, seq: number): void => {
    const levels = (m: Map<number, number>) => [...m].map(([p, s]) => ({ price_ticks: String(p), size_base_lots: String(s) }));
    const body = JSON.stringify({ data: { bids: levels(bids), asks: levels(asks) }, sequence: String(seq), timestamp_ns: String(BASE_NS + BigInt(Math.round(at * 1e6))) });
    w.add(JSON.stringify(['F', ++request, snapshotUrl]));
    w.add(JSON.stringify(['a', at, request, 200, body, null, null]));
  };
  w.add(JSON.stringify(['S', 1, header.wsUrl]));
  w.add(JSON.stringify(['o', 1, 1]));
  w.add(JSON.stringify(['s', 1, JSON.stringify({ type: 'subscribe', request_id: '1', channel: 'book', market_id: 0, is_perps: true })]));
  w.add(JSON.stringify(['m', 2, 1, JSON.stringify({ type: 'subscribed', request_id: '1', subscription_id: '1', channel: 'book' })]));
  snapshot(3, 0);
  const prefix = updateFramePrefix('1', 'book');
  const frames = minutes * 60 * FPS;
  let nextResync = RESYNC_EVERY_MS;
  let seq = 0;
  for (let i = 0; i < frames; i++) {
    const at = 5 + i * (1000 / FPS);
    if (at >= nextResync) {
      // A gap: the server skips an update and says so; the client fetches the book again.
      nextResync += RESYNC_EVERY_MS;
      seq++;
      w.add(JSON.stringify(['m', at, 1, JSON.stringify({ type: 'resync_required', subscription_id: '1', channel: 'book', reason: 'gap' })]));
      snapshot(at + 0.5, seq);
    }
    const side = rand() < 0.5 ? bids : asks;
    const price = side === bids ? 100_000 - 1 - Math.floor(rand() * LEVELS) : 100_000 + 1 + Math.floor(rand() * LEVELS);
    const size = 1 + Math.floor(rand() * 1000);
    side.set(price, size);
    const level = [{ price_ticks: String(price), size_base_lots: String(size) }];
    const ns = BASE_NS + BigInt(Math.round(at * 1e6));
    w.add(JSON.stringify(['m', at + 1, 1, writeUpdateFrame(prefix, BigInt(++seq), ns, writeUpdateData('book', side === bids ? { bids: level, asks: [] } : { bids: [], asks: level }))]));
    w.add(JSON.stringify(['n', String(ns + 1_000_000n)]));
  }
  w.writeFinal([JSON.stringify(['z', { reason: 'closed', entries: 0, inputs: 0, durationMs: 5 + frames * (1000 / FPS) + 1 }])]);
  w.close();
  return { frames, sizes: [bids, asks] };
}

export async function runSeekBench(dir: string, minutes: number, reps: number, log: (line: string) => void): Promise<SeekResult> {
  const path = join(dir, `long-${minutes}min.rec`);
  const w0 = performance.now();
  const { frames } = writeLongSession(path, minutes);
  const writeMs = performance.now() - w0;
  const { statSync } = await import('node:fs');
  const bytes = statSync(path).size;
  const middle = (minutes * 60_000) / 2;
  // The update recorded at the middle: the book has folded every update since the snapshot before it.
  const middleSeq = BigInt(Math.floor((middle - 5) / (1000 / FPS))) + BigInt(Math.floor(middle / RESYNC_EVERY_MS));
  const opens: number[] = [];
  const seeks: number[] = [];
  const indexes: number[] = [];
  const catchUps: number[] = [];
  let catchUpUpdates = 0;
  let error: string | undefined;
  for (let rep = 0; rep < reps && error === undefined; rep++) {
    const t0 = performance.now();
    const source = RecordingSource.open(path, { from: middle });
    opens.push(performance.now() - t0);
    const client = new ExchangeClient(source.clientOptions());
    const seq = await new Promise<bigint>((resolve, reject) => {
      client.orderBook(BOOK).subscribe({ next: (e) => e.status === 'live' && e.seq >= middleSeq && resolve(e.seq), error: reject });
      void source.ended.then((r) => reject(new Error(`the replay ended (${r.reason}) before the book was live`)));
    }).catch((e: unknown) => {
      error = String(e);
      return 0n;
    });
    seeks.push(performance.now() - t0);
    source.close();
    await client.close();
    if (error === undefined && seq > middleSeq + BigInt(FPS)) error = `live at seq ${seq}, the middle is about seq ${middleSeq}`;
    // The floors: the index up to the middle alone; the chunks from the snapshot before it to it, inflated.
    const i0 = performance.now();
    const recording = Recording.open(path);
    const index = new RecordingIndex(new ChunkStore(recording, 2), 0);
    const middleOrder = index.orderAt(middle);
    indexes.push(performance.now() - i0);
    const stream = index.allStreams().find((x) => x.channel === 'book')!;
    const answer = [...index.answersTo(stream.snapshotUrl)].reverse().find((a) => a.order <= middleOrder)!;
    const from = index.chunkOf(answer.requestOrder)!;
    const to = index.chunkOf(middleOrder)!;
    const c0 = performance.now();
    let lines = 0;
    for (let c = from; c <= to; c++) lines += recording.chunkLines(c)!.length;
    catchUps.push(performance.now() - c0);
    catchUpUpdates = Math.round((middle - answer.at) / (1000 / FPS));
    void lines;
    log(
      `replay seek: run ${rep + 1}/${reps}: ${minutes} min at ${FPS} frames/s (${frames} frames, ${bytes} bytes): open ${opens.at(-1)!.toFixed(0)} ms, open + seek to the middle + book live there ${seeks.at(-1)!.toFixed(0)} ms (seq ${seq}); floors: the index up to the middle ${indexes.at(-1)!.toFixed(0)} ms, inflating chunks ${from}-${to} (snapshot to middle, ~${catchUpUpdates} updates) ${catchUps.at(-1)!.toFixed(0)} ms`,
    );
  }
  return { minutes, frames, bytes, writeMs, openMs: figures(opens), seekMs: figures(seeks), indexMs: figures(indexes), catchUpReadMs: figures(catchUps), catchUpUpdates, correct: error === undefined, ...(error ? { error } : {}) };
}
