/**
 * How long ONE very large book update holds the event loop in the client (issue item 14):
 * `npx tsx benchmarks/bigUpdate.ts [--levels 250000] [--reps 7]`.
 *
 * A minimal feed in this process (minimalFeed.ts: a 500-level snapshot a side at sequence 0)
 * and the whole `ExchangeClient` subscribed to its book; then one update frame of `levels`
 * new levels, sent pre-encoded. Shapes: every level on the bid side below the book, in wire
 * order (best first); half a side each, shuffled; the first with prices beyond 2^53 (the
 * book's exact bigint path); the first with the frame's keys in another order than the
 * server's compact form (what an exchange that does not write that form byte for byte
 * sends: the decoder's schema path, JSON.parse + zod); the first into a book that an earlier
 * frame (untimed) made as deep, every new level between two held ones. Per repetition (a
 * fresh client each time; the first is the cold one, JIT included):
 * - handler: from the frame's arrival at the socket's first 'message' listener (ours, through
 *   the documented `connection.WebSocket` option) to the end of that turn of the event loop
 *   (a `setImmediate` queued on arrival): the library's decode, check, apply and emission;
 * - loop held: the longest gap between two ticks of a 1 ms interval running meanwhile: the
 *   handler plus the socket's own work on the same turn (reassembly, text decoding).
 * Then the library's two steps timed apart on the same text: `decodeAndValidate` (the
 * router's decoder and data check) and `OrderBook.applyLevels` on the same book. Medians of the warm runs.
 * Nothing here is a pass/fail limit: it prints what it measured and the machine.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { ExchangeClient } from '../src/client';
import { decodeAndValidate, FEED_PATH, updateFramePrefix, writeUpdateData, writeUpdateFrame, type PriceLevel } from '../src/protocol';
import { OrderBook } from '../src/replicas/book';
import { instrumentedSocket } from './lib/instrumentedSocket';
import { machineHeader } from './lib/machine';
import { median } from './lib/stats';
import { answerClientFrame, serveBookRest, SUBSCRIPTION_ID } from './socket/minimalFeed';

type Shape = 'bids, best first' | 'both sides, shuffled' | 'bids, best first, prices beyond 2^53' | 'bids, best first, keys in another order' | 'bids, best first, into a book already that deep';
const SHAPES: readonly Shape[] = ['bids, best first', 'both sides, shuffled', 'bids, best first, prices beyond 2^53', 'bids, best first, keys in another order', 'bids, best first, into a book already that deep'];

const BOOK_LEVELS = 500;
const BIG = 1_000_000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

const level = (price: bigint, size: number): PriceLevel => ({ price_ticks: String(price), size_base_lots: String(size) });

/** A seeded shuffle (xorshift), in place. */
function shuffle<T>(a: T[], seed: number): T[] {
  let s = seed >>> 0 || 1;
  for (let i = a.length - 1; i > 0; i--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = (s >>> 0) % (i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

type Sides = { bids: PriceLevel[]; asks: PriceLevel[] };

/** The 500-level snapshot (every other tick), an untimed first update or none, and the timed update: new prices in the gaps and beyond. */
function fixture(levels: number, shape: Shape): { snapshot: Sides; primer: Sides | undefined; update: Sides } {
  const MID = shape === 'bids, best first, prices beyond 2^53' ? 2n ** 53n + 1_000_000n : 1_000_000n;
  const snapshot = {
    bids: Array.from({ length: BOOK_LEVELS }, (_, i) => level(MID - 1n - 2n * BigInt(i), 1 + (i % 97))),
    asks: Array.from({ length: BOOK_LEVELS }, (_, i) => level(MID + 1n + 2n * BigInt(i), 1 + (i % 89))),
  };
  const update = { bids: Array.from({ length: levels }, (_, i) => level(MID - 2n - 2n * BigInt(i), 3)), asks: [] };
  // The primer continues the snapshot's every-other-tick bids down to `levels` deep.
  if (shape === 'bids, best first, into a book already that deep') return { snapshot, primer: { bids: Array.from({ length: levels - BOOK_LEVELS }, (_, i) => level(MID - 1n - 2n * BigInt(BOOK_LEVELS + i), 2)), asks: [] }, update };
  if (shape !== 'both sides, shuffled') return { snapshot, primer: undefined, update };
  const half = Math.floor(levels / 2);
  const bids = shuffle(Array.from({ length: half }, (_, i) => level(MID - 2n - 2n * BigInt(i), 3)), 0x5eed);
  const asks = shuffle(Array.from({ length: levels - half }, (_, i) => level(MID + 2n + 2n * BigInt(i), 3)), 0xfeed);
  return { snapshot, primer: undefined, update: { bids, asks } };
}

interface Run {
  readonly handlerMs: number;
  readonly loopHeldMs: number;
  readonly bidDepth: number;
}

/** One fresh client: subscribe, wait for the snapshot, send the frames, time the handling of the last one. */
async function runOnce(port: number, feed: { next: WebSocket | undefined }, frames: readonly Buffer[], levels: number): Promise<Run> {
  let bigSeen = 0;
  let arrivedNs = 0n;
  let turnDone: (() => void) | undefined;
  const turnOver = new Promise<bigint>((resolve) => (turnDone = () => resolve(process.hrtime.bigint())));
  const onMessage = (data: unknown): void => {
    if (typeof data === 'string' ? data.length < BIG : !(data instanceof Buffer) || data.length < BIG) return;
    if (++bigSeen < frames.length) return;
    arrivedNs = process.hrtime.bigint();
    setImmediate(turnDone!);
  };
  const client = new ExchangeClient({ restUrl: `http://127.0.0.1:${port}`, connection: { WebSocket: instrumentedSocket(onMessage), maxFrameBytes: 256 * 1024 * 1024 } });
  try {
    let live: () => void = () => undefined;
    const isLive = new Promise<void>((r) => (live = r));
    const updated = new Map<bigint, (depth: number) => void>();
    const applied = (seq: number) => new Promise<number>((r) => updated.set(BigInt(seq), r));
    const sub = client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe((e) => {
      if (e.cause === 'snapshot' && e.status === 'live') live();
      if (e.cause === 'update') updated.get(e.seq)?.(e.state.depth('bid'));
    });
    await isLive;
    const ws = feed.next!;
    for (let i = 0; i < frames.length - 1; i++) {
      const done = applied(i + 1);
      ws.send(frames[i]!, { binary: false });
      await done;
    }
    const isUpdated = applied(frames.length);
    let lastTick = process.hrtime.bigint();
    let longestGapNs = 0n;
    const ticker = setInterval(() => {
      const now = process.hrtime.bigint();
      if (now - lastTick > longestGapNs) longestGapNs = now - lastTick;
      lastTick = now;
    }, 1);
    ws.send(frames[frames.length - 1]!, { binary: false });
    const [doneNs, bidDepth] = await Promise.all([turnOver, isUpdated]);
    // One more tick: the gap that ends after the handler's turn.
    await new Promise((r) => setTimeout(r, 2));
    clearInterval(ticker);
    sub.unsubscribe();
    if (bidDepth < BOOK_LEVELS + Math.floor(levels / 2)) throw new Error(`the update was not applied: ${bidDepth} bid levels`);
    return { handlerMs: Number(doneNs - arrivedNs) / 1e6, loopHeldMs: Number(longestGapNs) / 1e6, bidDepth };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const levels = arg('levels', 250_000);
  const reps = arg('reps', 7);
  const m = machineHeader();
  console.log(`# one ${levels}-level book update: ${m.cpuModel} x${m.cores}, Node ${m.node}, ${m.platform}, load average ${m.loadAverage.join(' ')}`);
  for (const shape of SHAPES) {
    const { snapshot, primer, update } = fixture(levels, shape);
    const snapshotJson = JSON.stringify(snapshot);
    const seq = primer ? 2n : 1n;
    const text =
      shape === 'bids, best first, keys in another order'
        ? JSON.stringify({ channel: 'book', type: 'update', subscription_id: SUBSCRIPTION_ID, seq: String(seq), timestamp_ns: String(process.hrtime.bigint()), data: update })
        : writeUpdateFrame(updateFramePrefix(SUBSCRIPTION_ID, 'book'), seq, process.hrtime.bigint(), writeUpdateData('book', update));
    const frame = Buffer.from(text);
    const frames = primer ? [Buffer.from(writeUpdateFrame(updateFramePrefix(SUBSCRIPTION_ID, 'book'), 1n, process.hrtime.bigint(), writeUpdateData('book', primer))), frame] : [frame];
    const nowNs = () => process.hrtime.bigint();
    const feed: { next: WebSocket | undefined } = { next: undefined };
    const http = createServer((req, res) => serveBookRest(req, res, () => `{"data":${snapshotJson},"sequence":"0","timestamp_ns":"${nowNs()}"}`, nowNs, 'bigUpdate'));
    const wss = new WebSocketServer({ server: http, path: FEED_PATH, perMessageDeflate: false });
    wss.on('connection', (ws) => ws.on('message', (data, isBinary) => !isBinary && answerClientFrame(ws, data.toString(), nowNs, (w) => (feed.next = w))));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
    const port = (http.address() as AddressInfo).port;
    const runs: Run[] = [];
    for (let i = 0; i < reps + 1; i++) runs.push(await runOnce(port, feed, frames, levels));
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    await new Promise<void>((r) => http.close(() => r()));

    // The two steps apart, on the same text (fresh copies: no sample reads a string already
    // scanned). decodeAndValidate: the decode plus the data check the router adds on the schema path.
    const decodeMs: number[] = [];
    const applyMs: number[] = [];
    for (let i = 0; i < reps + 1; i++) {
      const copy = frame.toString();
      let t0 = process.hrtime.bigint();
      const r = decodeAndValidate(copy);
      decodeMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (!r.ok || r.frame.type !== 'update') throw new Error('the frame did not decode as an update');
      const data = r.data as { bids: PriceLevel[]; asks: PriceLevel[] };
      const book = OrderBook.fromSnapshot(snapshot);
      if (primer) book.applyLevels(primer.bids, primer.asks);
      t0 = process.hrtime.bigint();
      book.applyLevels(data.bids, data.asks);
      applyMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const warm = runs.slice(1);
    const f = (v: number) => v.toFixed(0);
    console.log(`\n## ${shape}: frame ${(frame.length / 1024 / 1024).toFixed(1)} MiB`);
    console.log(`whole client, cold (first run): handler ${f(runs[0]!.handlerMs)} ms, loop held ${f(runs[0]!.loopHeldMs)} ms`);
    console.log(`whole client, warm (median of ${reps}, min-max): handler ${f(median(warm.map((r) => r.handlerMs)))} ms (${f(Math.min(...warm.map((r) => r.handlerMs)))}-${f(Math.max(...warm.map((r) => r.handlerMs)))}), loop held ${f(median(warm.map((r) => r.loopHeldMs)))} ms (${f(Math.min(...warm.map((r) => r.loopHeldMs)))}-${f(Math.max(...warm.map((r) => r.loopHeldMs)))})`);
    console.log(`steps apart (median of the warm ones): decode + check (decodeAndValidate) ${f(median(decodeMs.slice(1)))} ms, OrderBook.applyLevels ${f(median(applyMs.slice(1)))} ms (cold: ${f(decodeMs[0]!)} + ${f(applyMs[0]!)} ms)`);
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
