/**
 * How many update frames per second the simulator's feed delivers to one client over
 * loopback. The client runs in a worker thread (counting frames, parsing none) so that it
 * does not compete with the server for the main thread; the publisher keeps at most
 * WINDOW frames in flight. Bounded in time: about `durationMs` per payload size.
 * Part of `npm run bench` (`runSimulatorThroughput`), or alone:
 *
 *   npx tsx benchmarks/simulatorThroughput.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FeedServer } from '../src/simulator/feed/FeedServer';
import { SimStreamHub } from '../src/simulator/SimStreamHub';

export interface SimulatorThroughputConfig {
  /** Book levels a side in each update's data, one measurement per entry. */
  readonly levels: readonly number[];
  /** Publishing time per entry. */
  readonly durationMs: number;
}

export interface SimulatorThroughputRow {
  readonly levelsPerSide: number;
  /** Bytes of one update's `data`. */
  readonly dataBytes: number;
  readonly framesPerSec: number;
  /** Frames the client counted. */
  readonly frames: number;
}

export interface SimulatorThroughputResult {
  readonly config: SimulatorThroughputConfig;
  readonly rows: SimulatorThroughputRow[];
}

const DURATION_MS = 3000;
const WINDOW = 20_000;
const SCOPE = { market_id: 0, is_perps: true };

const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require('ws');
const ws = new WebSocket(workerData.url);
let updates = 0;
ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe', request_id: '1', channel: 'book', market_id: 0, is_perps: true })));
ws.on('message', (data) => {
  if (updates === 0 && data.toString().includes('"subscribed"')) { parentPort.postMessage({ subscribed: true }); updates = 0; return; }
  updates++;
  if ((updates & 1023) === 0) parentPort.postMessage({ updates });
});
parentPort.on('message', (m) => { if (m === 'report') parentPort.postMessage({ updates, final: true }); if (m === 'close') ws.close(); });
`;

function bookUpdate(levels: number, i: number): unknown {
  const side = (base: number) => Array.from({ length: levels }, (_, k) => ({ price_ticks: String(base + k), size_base_lots: String((i * 7919 + k) % 100000) }));
  return { bids: side(100_000 - levels), asks: side(100_001) };
}

async function run(levels: number, durationMs: number): Promise<SimulatorThroughputRow> {
  const http = createServer();
  const hub = new SimStreamHub();
  const feed = new FeedServer(http, hub, { checkScopeExists: () => undefined }, { maxQueueBytes: 1 << 30 });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/ws`;
  const worker = new Worker(CLIENT, { eval: true, workerData: { url } });
  let received = 0;
  let finalCount = -1;
  let subscribed!: () => void;
  const ready = new Promise<void>((r) => (subscribed = r));
  worker.on('message', (m: { subscribed?: boolean; updates?: number; final?: boolean }) => {
    if (m.subscribed) subscribed();
    if (m.updates !== undefined) received = m.updates;
    if (m.final) finalCount = m.updates!;
  });
  await ready;
  const payloads = Array.from({ length: 64 }, (_, i) => bookUpdate(levels, i));
  const bytes = JSON.stringify(payloads[0]).length;
  let published = 0;
  const start = performance.now();
  while (performance.now() - start < durationMs) {
    if (published - received < WINDOW) {
      for (let i = 0; i < 1000; i++) hub.publish('book', SCOPE, payloads[published++ & 63]);
    }
    await new Promise((r) => setImmediate(r));
  }
  const final = await new Promise<number>((resolve) => {
    const poll = (): void => (finalCount >= 0 ? resolve(finalCount) : void setImmediate(poll));
    worker.postMessage('report');
    poll();
  });
  const elapsed = (performance.now() - start) / 1000;
  worker.postMessage('close');
  await worker.terminate();
  await feed.close();
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
  return { levelsPerSide: levels, dataBytes: bytes, framesPerSec: final / elapsed, frames: final };
}

/** Measures each payload size in turn. */
export async function runSimulatorThroughput(config: SimulatorThroughputConfig): Promise<SimulatorThroughputResult> {
  const rows: SimulatorThroughputRow[] = [];
  for (const levels of config.levels) rows.push(await run(levels, config.durationMs));
  return { config, rows };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { rows } = await runSimulatorThroughput({ levels: [1, 10], durationMs: DURATION_MS });
  for (const r of rows) {
    console.log(`book updates with ${r.levelsPerSide} level(s) a side (data ${r.dataBytes} B): ${Math.round(r.framesPerSec).toLocaleString('en-US')} frames/s delivered to one client`);
  }
}
