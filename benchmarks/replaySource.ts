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
import { decodeFrames } from '../src/record/recordedFrames';
import { RecordingIndex, type RecordedAnswer } from '../src/record/recordingIndex';
import { RecordingWriter } from '../src/record/RecordingWriter';
import type { OrderBook } from '../src/replicas/book';
import { median } from './lib/stats';
import { seededRandom } from './lib/rng';

const BOOK = { market_type: 'perp', market_id: 0 } as const;

export interface SourceThroughput {
  /** Updates/s from the subscribe to the end, file reading included (median of the runs). */
  readonly updatesPerSec: number;
  /** Updates/s of the decoding alone (inflate, unescape, fast decoder). */
  readonly decodePerSec: number;
  /** Updates/s of the replica side alone: the recorded updates, decoded beforehand, fed from memory to the same client path. */
  readonly feedPerSec: number;
  readonly updates: number;
  /** The final best bid/ask is the recording run's. */
  readonly correct: boolean;
  readonly error?: string;
}

/** Replays the book of `path` `reps` times through RecordingSource; `best` is the final best bid/ask expected. */
export async function runSourceThroughput(path: string, reps: number, best: string, log: (line: string) => void): Promise<SourceThroughput> {
  const runs: number[] = [];
  const decodes: number[] = [];
  const feeds: number[] = [];
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
    const { ms, events, answer, index } = decodeAll(path);
    decodes.push(ms);
    const fed = await feedFromMemory(events, answer, index);
    feeds.push(events.length / (fed.ms / 1000));
    if (fed.best !== best) error = `run ${rep + 1}: fed from memory, final best bid/ask ${fed.best}, recorded ${best}`;
    log(`replay source: run ${rep + 1}/${reps}: ${r.updates} updates in ${r.realMs.toFixed(0)} ms = ${Math.round(runs.at(-1)!)} updates/s; decoding alone ${ms.toFixed(0)} ms; fed from memory ${fed.ms.toFixed(0)} ms = ${Math.round(feeds.at(-1)!)} updates/s`);
  }
  const decodeMs = median(decodes);
  return { updatesPerSec: median(runs), decodePerSec: updates / (decodeMs / 1000), feedPerSec: median(feeds), updates, correct: error === undefined, ...(error ? { error } : {}) };
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

/** Reads and decodes every frame of the book's subscriptions as the source does: the time, the updates, the first snapshot answer. */
function decodeAll(path: string): { ms: number; events: SourceUpdate[]; answer: RecordedAnswer; index: RecordingIndex } {
  const t0 = performance.now();
  const recording = Recording.open(path);
  const store = new ChunkStore(recording, recording.chunks.length + 1);
  const index = new RecordingIndex(store, 0);
  const stream = index.allStreams().find((s) => s.channel === 'book')!;
  const events: SourceUpdate[] = [];
  for (let c = 0; index.ensureRead(c); c++) {
    const chunk = store.get(c)!;
    for (const e of stream.epochs) {
      for (const item of decodeFrames({ lines: chunk.lines, baseOrder: index.baseOrder(c), firstLine: index.firstLineIn(c), socket: e.socket, subscriptionId: e.subscriptionId, channel: 'book', wallNs: () => 0n })) {
        if (item.event.kind === 'update') events.push(item.event);
      }
    }
  }
  return { ms: performance.now() - t0, events, answer: index.answersTo(stream.snapshotUrl)[0]!, index };
}

export interface SeekResult {
  readonly minutes: number;
  readonly frames: number;
  readonly bytes: number;
  readonly writeMs: number;
  /** `RecordingSource.open` alone. */
  readonly openMs: number;
  /** Open, seek to the middle, the book live at the update recorded there. */
  readonly seekMs: number;
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

export async function runSeekBench(dir: string, minutes: number, log: (line: string) => void): Promise<SeekResult> {
  const path = join(dir, `long-${minutes}min.rec`);
  const w0 = performance.now();
  const { frames } = writeLongSession(path, minutes);
  const writeMs = performance.now() - w0;
  const middle = (minutes * 60_000) / 2;
  const t0 = performance.now();
  const source = RecordingSource.open(path, { from: middle });
  const openMs = performance.now() - t0;
  const client = new ExchangeClient(source.clientOptions());
  let error: string | undefined;
  // The update recorded at the middle: the book has folded every update since the snapshot before it.
  const middleSeq = BigInt(Math.floor((middle - 5) / (1000 / FPS))) + BigInt(Math.floor(middle / RESYNC_EVERY_MS));
  const seq = await new Promise<bigint>((resolve, reject) => {
    client.orderBook(BOOK).subscribe({ next: (e) => e.status === 'live' && e.seq >= middleSeq && resolve(e.seq), error: reject });
    void source.ended.then((r) => reject(new Error(`the replay ended (${r.reason}) before the book was live`)));
  }).catch((e: unknown) => {
    error = String(e);
    return 0n;
  });
  const seekMs = performance.now() - t0;
  source.close();
  await client.close();
  if (error === undefined && seq > middleSeq + BigInt(FPS)) error = `live at seq ${seq}, the middle is about seq ${middleSeq}`;
  const { statSync } = await import('node:fs');
  const bytes = statSync(path).size;
  log(`replay seek: ${minutes} min at ${FPS} frames/s (${frames} frames, ${bytes} bytes, written in ${(writeMs / 1000).toFixed(1)} s): open ${openMs.toFixed(0)} ms, open + seek to the middle + book live there ${seekMs.toFixed(0)} ms (seq ${seq})`);
  return { minutes, frames, bytes, writeMs, openMs, seekMs, correct: error === undefined, ...(error ? { error } : {}) };
}
