/**
 * A backtest: the market maker's logic (examples/marketMaker.ts: quote one bid and one ask
 * around the mid, leaning away from inventory and toward the heavier side of the book,
 * requoting at most every 250 ms a side) as one function that takes an ExchangeClient, run
 *
 * 1. live against the embedded simulator, for `--duration-ms`, while a FeedRecorder records
 *    the client's inputs (skipped with `--recording FILE`: an existing recording);
 * 2. over the recording at full speed (`RecordingSource`, `speed: Infinity`, optionally
 *    `--from` a recorded time), the same function, unchanged.
 *
 * Orders are on paper in both runs (a quote fills when the book trades through it), so the
 * two summaries can be compared: from the start of the recording they agree, because the
 * replayed book goes through the live book's states and the strategy's clock (the emissions'
 * `receivedAtNs`) is the recorded one.
 *
 *   npx tsx examples/backtest.ts [--duration-ms 5000] [--seed 1] [--recording FILE] [--from 30s]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { filter, type Subscription } from 'rxjs';
import { ExchangeClient, type OrderBook } from '../src';
import { FeedRecorder, parseReplayTime, RecordingSource } from '../src/record';
import { Simulator } from '../src/simulator';

const MARKET = { market_type: 'perp', market_id: 0 } as const;
/** Ticks between the fair price and each quote. */
const HALF_SPREAD_TICKS = 2;
/** Levels per side read for the book imbalance. */
const TOP_LEVELS = 5;
/** A quote is replaced at most this often per side (ms of the client's time). */
const REQUOTE_MS = 250;
/** Lots per quote, and the most inventory held either way. */
const QUOTE_LOTS = 10n;
const MAX_INVENTORY_LOTS = 5n * QUOTE_LOTS;

type Side = 'bid' | 'ask';

/** What the strategy did. */
export interface MarketMakerReport {
  booksRead: number;
  placed: number;
  cancelled: number;
  fills: number;
  inventoryLots: bigint;
  /** Cash from fills, in ticks x lots (negative: spent). */
  cashTicksLots: bigint;
  lastMid: number | undefined;
}

/**
 * The market maker, on paper: reads the client's book replica of MARKET, keeps one quote a
 * side, fills a quote when the book trades through it. Works on any ExchangeClient (live or
 * replayed); its clock is the emissions' receive time. Returns a stop function and the report.
 */
export function marketMaker(client: ExchangeClient): { report: MarketMakerReport; stop: () => void } {
  const report: MarketMakerReport = { booksRead: 0, placed: 0, cancelled: 0, fills: 0, inventoryLots: 0n, cashTicksLots: 0n, lastMid: undefined };
  const quotes: Record<Side, { priceTicks: number; placedAtMs: number } | undefined> = { bid: undefined, ask: undefined };
  let depthSum = 0;
  const addSize = (_price: number, size: number): void => {
    depthSum += size;
  };
  const topDepth = (book: OrderBook, side: Side): number => {
    depthSum = 0;
    book.forEachLevel(side, TOP_LEVELS, addSize);
    return depthSum;
  };
  const cancel = (side: Side): void => {
    if (quotes[side] === undefined) return;
    quotes[side] = undefined;
    report.cancelled++;
  };
  const requote = (side: Side, target: number | undefined, nowMs: number): void => {
    const q = quotes[side];
    if (target === undefined) return cancel(side);
    if (q && (q.priceTicks === target || nowMs - q.placedAtMs < REQUOTE_MS)) return;
    cancel(side);
    quotes[side] = { priceTicks: target, placedAtMs: nowMs };
    report.placed++;
  };
  /** A resting quote the book traded through: filled (paper). */
  const fillThrough = (bid: number, ask: number): void => {
    const b = quotes.bid;
    if (b && ask <= b.priceTicks) {
      quotes.bid = undefined;
      report.fills++;
      report.inventoryLots += QUOTE_LOTS;
      report.cashTicksLots -= BigInt(b.priceTicks) * QUOTE_LOTS;
    }
    const a = quotes.ask;
    if (a && bid >= a.priceTicks) {
      quotes.ask = undefined;
      report.fills++;
      report.inventoryLots -= QUOTE_LOTS;
      report.cashTicksLots += BigInt(a.priceTicks) * QUOTE_LOTS;
    }
  };
  const onBook = (book: OrderBook, nowMs: number): void => {
    report.booksRead++;
    const bid = book.bestBid();
    const ask = book.bestAsk();
    const mid = book.mid();
    if (bid === undefined || ask === undefined || mid === undefined) return;
    report.lastMid = mid;
    fillThrough(bid, ask);
    const bidDepth = topDepth(book, 'bid');
    const askDepth = topDepth(book, 'ask');
    const imbalance = bidDepth + askDepth > 0 ? (bidDepth - askDepth) / (bidDepth + askDepth) : 0;
    const fair = mid + imbalance - Number(report.inventoryLots / QUOTE_LOTS);
    const bidTarget = Math.min(Math.floor(fair - HALF_SPREAD_TICKS), ask - 1);
    const askTarget = Math.max(Math.ceil(fair + HALF_SPREAD_TICKS), bid + 1);
    requote('bid', report.inventoryLots >= MAX_INVENTORY_LOTS ? undefined : bidTarget, nowMs);
    requote('ask', report.inventoryLots <= -MAX_INVENTORY_LOTS ? undefined : askTarget, nowMs);
  };
  const sub: Subscription = client
    .orderBook(MARKET)
    .pipe(filter((e) => e.status === 'live'))
    .subscribe((e) => onBook(e.state, Number(e.receivedAtNs / 1_000_000n)));
  return { report, stop: () => sub.unsubscribe() };
}

/** One line: what the strategy did, its inventory and its paper PnL marked at the last mid. */
function summary(label: string, r: MarketMakerReport, extra: string): string {
  const pnl = r.lastMid === undefined ? 0 : Number(r.cashTicksLots) + Number(r.inventoryLots) * r.lastMid;
  return `${label}: ${r.booksRead} book updates read, ${r.placed} quotes placed, ${r.cancelled} cancelled, ${r.fills} fills, inventory ${r.inventoryLots} lots, paper PnL ${pnl.toFixed(1)} ticks x lots${extra}`;
}

const { values } = parseArgs({ options: { 'duration-ms': { type: 'string', default: '5000' }, seed: { type: 'string', default: '1' }, recording: { type: 'string' }, from: { type: 'string' } } });
const durationMs = Number(values['duration-ms']);
const seed = Number(values.seed);
if (!(durationMs > 0) || !Number.isSafeInteger(seed)) throw new Error('backtest: --duration-ms must be > 0 and --seed an integer');
const log = (line: string): void => void process.stdout.write(`${line}\n`);

let dir: string | undefined;
let path = values.recording;
if (path === undefined) {
  // 1. Live, against the simulator, recorded.
  dir = mkdtempSync(join(tmpdir(), 'backtest-'));
  path = join(dir, 'session.rec');
  const sim = await Simulator.start({ seed });
  const client = new ExchangeClient({ restUrl: sim.restUrl, record: new FeedRecorder({ path }) });
  const live = marketMaker(client);
  // The session's length counts from the book being live (starting takes longer on a busy machine).
  await client.whenLive(client.orderBook(MARKET));
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  live.stop();
  await client.close();
  await sim.stop();
  log(summary('live', live.report, ` (simulator seed ${seed}, ${durationMs} ms, recorded to ${path})`));
}

// 2. The same function over the recording, at full speed.
const source = RecordingSource.open(path, { speed: Number.POSITIVE_INFINITY, ...(values.from !== undefined ? { from: parseReplayTime(values.from) } : {}) });
const client = new ExchangeClient(source.clientOptions());
client.events.on('error', (e) => log(`client error ${e.code}: ${e.message}`));
const backtest = marketMaker(client);
const ended = await source.ended;
backtest.stop();
await client.close();
const recordedS = (ended.recordedMs - source.fromMs) / 1000;
log(summary('backtest', backtest.report, ` (${recordedS.toFixed(1)} s recorded replayed in ${ended.realMs.toFixed(0)} ms, ${ended.updates} updates)`));
if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
