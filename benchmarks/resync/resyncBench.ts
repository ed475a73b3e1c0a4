/**
 * Resync latency: from the arrival of `resync_required` to the `live` emission of a rebuilt
 * 500-level book, split into the REST round trip (the time spent inside the client's
 * `fetch`, body included) and the client's own work (everything else: handling the frame,
 * buffering updates, parsing and checking the snapshot, building the book, folding the
 * buffered updates, emitting). Real simulator (in its own process, BTC-PERP: ~620 levels a
 * side, so the depth-500 snapshot is full) and the real `ExchangeClient`, instrumented only
 * through its options (see ResyncProbe). Repeated, medians and p99 kept; the replica is
 * checked against the simulator's truth at the end.
 */
import type { Subscription } from 'rxjs';
import { ExchangeClient } from '../../src/client';
import { streamKey, type PriceLevel } from '../../src/protocol';
import type { ReplicaState } from '../../src/replicas';
import type { OrderBook } from '../../src/replicas/book';
import { spreadOf, type Spread } from '../lib/stats';
import { SimulatorProcess } from '../simulator/SimulatorProcess';
import { breakdownSnapshot, type BreakdownRow } from './resyncBreakdown';
import { ResyncProbe } from './ResyncProbe';

export interface ResyncBenchConfig {
  /** Resyncs measured (after the warm-ups). */
  readonly repetitions: number;
  readonly warmups: number;
  /** Order-flow events per second of the simulator (updates buffered during a resync come from it). */
  readonly eventsPerSecond: number;
  readonly seed: number;
  /** Calls per step of the offline breakdown. */
  readonly breakdownReps: number;
  /** Sleep before each cold sample of the breakdown (about the idle time before a resync of the run). */
  readonly breakdownIdleMs: number;
  readonly log?: (line: string) => void;
}

export interface ResyncBenchResult {
  readonly config: Omit<ResyncBenchConfig, 'log'>;
  readonly samples: number;
  /** Book levels a side at the `live` emission (medians). */
  readonly levels: { readonly bids: number; readonly asks: number };
  /** Snapshot answer size, bytes (median). */
  readonly snapshotBytes: number;
  /** All in ms. */
  readonly totalMs: Spread;
  readonly restMs: Spread;
  readonly clientMs: Spread;
  /** The client's work in three phases, in order (ms). */
  readonly phases: { readonly phase: string; readonly ms: Spread }[];
  /** Feed frames that arrived during the resync (buffered, then folded or dropped). */
  readonly bufferedFrames: Spread;
  readonly breakdown: BreakdownRow[];
  readonly correct: boolean;
  readonly errors: string[];
}

const MARKET = { market_type: 'perp', market_id: 0 } as const;
const KEY = streamKey('book', { market_id: 0, is_perps: true });
const WAIT_MS = 15_000;
const CHECK_LEVELS = 200;

interface Sample {
  totalNs: number;
  restNs: number;
  toStatusNs: number;
  toFetchNs: number;
  afterNs: number;
  frames: number;
  bids: number;
  asks: number;
  bytes: number;
}

const ms = (ns: number) => ns / 1e6;
const spreadMs = (xs: number[]) => spreadOf(xs.map(ms));

export async function runResyncBench(cfg: ResyncBenchConfig): Promise<ResyncBenchResult> {
  const log = cfg.log ?? (() => undefined);
  const errors: string[] = [];
  const sim = await SimulatorProcess.start({ seed: cfg.seed, eventsPerSecond: cfg.eventsPerSecond });
  const probe = new ResyncProbe();
  // Resyncs come back to back here: the per-stream token bucket (which protects the exchange
  // from a storm) would make each one wait for a token, so it is opened wide; the bench
  // measures the client's own resync work.
  const client = new ExchangeClient({
    restUrl: sim.restUrl,
    wsUrl: sim.wsUrl,
    connection: { WebSocket: probe.socketClass() },
    rest: { fetch: probe.fetch() },
    replica: { resyncBurst: 1_000_000 },
  });
  let latest: ReplicaState<OrderBook> | undefined;
  let liveAtNs = 0n;
  let resyncingAtNs = 0n;
  let messagesAtLive = 0;
  let waiter: ((e: ReplicaState<OrderBook>) => boolean) | undefined;
  let sub: Subscription | undefined;
  const samples: Sample[] = [];
  try {
    const next = (pred: (e: ReplicaState<OrderBook>) => boolean, what: string) =>
      new Promise<ReplicaState<OrderBook>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`)), WAIT_MS);
        waiter = (e) => {
          if (!pred(e)) return false;
          clearTimeout(timer);
          resolve(e);
          return true;
        };
        if (latest && waiter(latest)) waiter = undefined;
      });
    sub = client.orderBook(MARKET).subscribe({
      next: (e) => {
        // First thing: the moment the rebuilt book is shown.
        if (e.cause === 'snapshot') {
          liveAtNs = process.hrtime.bigint();
          messagesAtLive = probe.messages;
        } else if (e.cause === 'status' && e.status === 'resyncing') resyncingAtNs = process.hrtime.bigint();
        latest = e as ReplicaState<OrderBook>;
        if (waiter?.(latest)) waiter = undefined;
      },
      error: (err: unknown) => errors.push(`replica failed: ${String(err)}`),
    });
    await next((e) => e.status === 'live', 'the first live book');

    for (let i = 0; i < cfg.warmups + cfg.repetitions; i++) {
      const snap0 = latest!.snapshotId;
      const fetches0 = probe.fetches.length;
      const counts0 = client.resyncCounts();
      const startNs = process.hrtime.bigint();
      const live = next((e) => e.cause === 'snapshot' && e.snapshotId > snap0, `resync ${i + 1}`);
      await sim.resyncStream(KEY);
      const e = await live;
      const problem = checkSample(e, snap0, probe, fetches0, startNs, counts0, client.resyncCounts()) ?? (resyncingAtNs < startNs ? 'no resyncing status was emitted' : undefined);
      if (problem) {
        errors.push(`resync ${i + 1}: ${problem}`);
        continue;
      }
      if (i < cfg.warmups) continue;
      const f = probe.fetches[fetches0]!;
      const book = e.state;
      samples.push({
        totalNs: Number(liveAtNs - probe.resyncAtNs),
        restNs: Number(f.endNs - f.startNs),
        toStatusNs: Number(resyncingAtNs - probe.resyncAtNs),
        toFetchNs: Number(f.startNs - resyncingAtNs),
        afterNs: Number(liveAtNs - f.endNs),
        frames: messagesAtLive - probe.messagesAtResync,
        bids: book.depth('bid'),
        asks: book.depth('ask'),
        bytes: f.bytes,
      });
      if ((i + 1) % 100 === 0) log(`  resync: ${i + 1}/${cfg.warmups + cfg.repetitions}`);
    }
    const truthError = await checkAgainstTruth(sim, next);
    if (truthError) errors.push(truthError);
  } catch (e) {
    // A resync that never completed is a failed check of the run, reported with the rest.
    errors.push(e instanceof Error ? e.message : String(e));
  } finally {
    sub?.unsubscribe();
    await client.close();
    await sim.close();
  }
  const med = (xs: number[]) => spreadOf(xs).p50;
  return {
    config: { repetitions: cfg.repetitions, warmups: cfg.warmups, eventsPerSecond: cfg.eventsPerSecond, seed: cfg.seed, breakdownReps: cfg.breakdownReps, breakdownIdleMs: cfg.breakdownIdleMs },
    samples: samples.length,
    levels: { bids: med(samples.map((s) => s.bids)), asks: med(samples.map((s) => s.asks)) },
    snapshotBytes: med(samples.map((s) => s.bytes)),
    totalMs: spreadMs(samples.map((s) => s.totalNs)),
    restMs: spreadMs(samples.map((s) => s.restNs)),
    clientMs: spreadMs(samples.map((s) => s.totalNs - s.restNs)),
    phases: [
      { phase: 'resync_required arrives -> status resyncing emitted (decode, route, start the resync)', ms: spreadMs(samples.map((s) => s.toStatusNs)) },
      { phase: 'resyncing -> fetch called (scheduler, retry wrappers, request building, frames buffered meanwhile)', ms: spreadMs(samples.map((s) => s.toFetchNs)) },
      { phase: 'body read -> live emitted (JSON.parse, schema check, build the book, fold buffered updates, emit)', ms: spreadMs(samples.map((s) => s.afterNs)) },
    ],
    bufferedFrames: spreadOf(samples.map((s) => s.frames)),
    breakdown: probe.lastBody ? await breakdownSnapshot(probe.lastBody, cfg.breakdownReps, cfg.breakdownIdleMs) : [],
    correct: errors.length === 0 && samples.length === cfg.repetitions,
    errors,
  };
}

/** Undefined when the resync went as expected: one trigger, one fetch, within the iteration. */
function checkSample(
  e: ReplicaState<OrderBook>,
  snap0: number,
  probe: ResyncProbe,
  fetches0: number,
  startNs: bigint,
  before: Record<string, number>,
  after: Record<string, number>,
): string | undefined {
  if (e.snapshotId !== snap0 + 1) return `snapshot id went from ${snap0} to ${e.snapshotId}`;
  if (e.status !== 'live') return `status ${e.status} after the snapshot`;
  if (probe.resyncAtNs < startNs) return 'no resync_required frame arrived';
  const fetches = probe.fetches.slice(fetches0);
  if (fetches.length !== 1 || !fetches[0]!.url.includes('/v1/orderBook') || fetches[0]!.status !== 200) {
    return `expected one orderBook fetch answered 200, saw ${fetches.map((f) => `${f.url} ${f.status}`).join(', ') || 'none'}`;
  }
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[k] ?? 0) - (before[k] ?? 0);
    if (d !== (k === 'resync_required' ? 1 : 0)) return `resync trigger ${k} counted ${d} time(s)`;
  }
  return undefined;
}

/** With the order flow paused, the replica at the truth's sequence equals the truth. */
async function checkAgainstTruth(
  sim: SimulatorProcess,
  next: (pred: (e: ReplicaState<OrderBook>) => boolean, what: string) => Promise<ReplicaState<OrderBook>>,
): Promise<string | undefined> {
  await sim.pause();
  const t = await sim.truth('orderBook', { ...MARKET, depth: 500 });
  const body = t.body as { data: { bids: PriceLevel[]; asks: PriceLevel[] }; sequence: string };
  if (t.status !== 200) return `truth answered ${t.status}`;
  const seq = BigInt(body.sequence);
  const e = await next((s) => s.status === 'live' && s.seq === seq, `the book at the truth's seq ${seq}`);
  const mine = e.state.toSnapshot(CHECK_LEVELS);
  const same = (a: readonly PriceLevel[], b: readonly PriceLevel[]) =>
    a.length === b.length && a.every((l, i) => l.price_ticks === b[i]!.price_ticks && l.size_base_lots === b[i]!.size_base_lots);
  if (!same(mine.bids, body.data.bids.slice(0, CHECK_LEVELS)) || !same(mine.asks, body.data.asks.slice(0, CHECK_LEVELS))) {
    return `the book differs from the truth at seq ${seq} within ${CHECK_LEVELS} levels a side`;
  }
  return undefined;
}
