/**
 * Fan-out: ONE connection carrying many subscriptions across markets and accounts (see
 * fanoutPlan.ts), the simulator in ANOTHER process with a busy order flow, so the CPU read
 * here is the client's alone. Per window: `process.cpuUsage()` (all of this process: socket,
 * decoding, routing, replicas, emissions, GC) divided by the frames received on the socket.
 * At the end the order flow is paused and every state replica is checked to reach the
 * truth's sequence, the books to equal it; no resync may have happened (a book's liveness
 * window aside), no socket dropped, no gap marker delivered.
 */
import { ExchangeClient } from '../../src/client';
import { CHANNELS, type PriceLevel } from '../../src/protocol';
import type { OrderBook } from '../../src/replicas/book';
import { getGc } from '../lib/gc';
import { instrumentedSocket } from '../lib/instrumentedSocket';
import { delay, median } from '../lib/stats';
import { SimulatorProcess } from '../simulator/SimulatorProcess';
import { FanoutWatch, type Seen } from './FanoutWatch';
import { planSubscriptions, replicaSubscriptions, STATE_CHANNELS, type PlannedSubscription } from './fanoutPlan';

export interface FanoutBenchConfig {
  /** Client subscriptions on the one connection. */
  readonly subscriptions: number;
  /** Order-flow events per second of the simulator. */
  readonly eventsPerSecond: number;
  readonly warmupMs: number;
  readonly windowMs: number;
  /** Windows measured (medians kept). */
  readonly reps: number;
  readonly seed: number;
  readonly log?: (line: string) => void;
}

export interface FanoutBenchResult {
  readonly config: Omit<FanoutBenchConfig, 'log'>;
  /** Client subscriptions by kind, and the server subscriptions they share. */
  readonly subscriptions: {
    readonly total: number;
    readonly replicas: number;
    readonly accountReplicas: number;
    readonly rawTaps: number;
    readonly serverSubscriptions: number;
    /** Streams the simulator serves (each channel over each of its scopes). */
    readonly streamsServed: number;
  };
  /** From the first subscribe to every state replica live. */
  readonly startupMs: number;
  /** Medians over the windows. */
  readonly framesPerSec: number;
  readonly cpuUsPerFrame: number;
  readonly samplesUs: number[];
  /** Share of one core used by the client, and by the simulator process. */
  readonly coreShare: number;
  readonly simulatorCoreShare: number;
  /** Observable emissions (states, event items, raw updates) per frame received. */
  readonly emissionsPerFrame: number;
  /** Emissions per second of the replica subscriptions, by channel, over the windows (the traffic's mix). */
  readonly emissionsPerSecByChannel: Record<string, number>;
  /** The single-subscription client path of the same run at the nearest rate (set by the runner when measured). */
  singleSubscription?: { readonly rate: number; readonly cpuUsPerFrame: number; readonly ratio: number };
  /**
   * The single-subscription client (and the `ws` + `JSON.parse` floor) fed the way the fan-out
   * is: the fan-out's frame rate, in one burst per order-flow tick (set by the runner). On a
   * machine whose CPU is slower after an idle gap, per-frame costs depend on the burst shape
   * as much as on the work; this pairs like with like.
   */
  sameDelivery?: { readonly rate: number; readonly tickMs: number; readonly cpuUsPerFrame: number; readonly samplesUs: readonly number[]; readonly floorCpuUsPerFrame: number; readonly ratio: number };
  readonly resyncs: Record<string, number>;
  readonly correct: boolean;
  readonly errors: string[];
}

const LIVE_TIMEOUT_MS = 30_000;
const TRUTH_TIMEOUT_MS = 20_000;
const CHECK_LEVELS = 200;

export async function runFanoutBench(cfg: FanoutBenchConfig): Promise<FanoutBenchResult> {
  const log = cfg.log ?? (() => undefined);
  const errors: string[] = [];
  const sim = await SimulatorProcess.start({ seed: cfg.seed, eventsPerSecond: cfg.eventsPerSecond });
  let frames = 0;
  const client = new ExchangeClient({
    restUrl: sim.restUrl,
    wsUrl: sim.wsUrl,
    connection: { WebSocket: instrumentedSocket(() => void frames++) },
  });
  const watch = new FanoutWatch();
  const windows: { cpuUs: number; wallUs: number; frames: number; emissions: number; simCpuUs: number }[] = [];
  const byChannel: Record<string, number> = {};
  let startupMs = NaN;
  let serverSubscriptions = 0;
  let plan: PlannedSubscription[] = [];
  let streamsServed = 0;
  let resyncs: Record<string, number> = {};
  try {
    const { markets, subaccounts } = await sim.stats();
    plan = planSubscriptions(markets, subaccounts, cfg.subscriptions);
    streamsServed = replicaSubscriptions(markets, subaccounts).length;
    const t0 = performance.now();
    watch.open(client, plan);
    const deadline = Date.now() + LIVE_TIMEOUT_MS;
    while ((watch.notLiveYet().length > 0 || client.activity().pendingRequests > 0) && Date.now() < deadline && watch.errors.length === 0) await delay(10);
    startupMs = performance.now() - t0;
    const late = watch.notLiveYet();
    if (late.length > 0) throw new Error(`${late.length} replica(s) not live within ${LIVE_TIMEOUT_MS} ms, e.g. ${late[0]!.plan.key}`);
    serverSubscriptions = client.activity().serverSubscriptions;
    log(`  fan-out: ${plan.length} subscriptions (${serverSubscriptions} server subscriptions) live in ${startupMs.toFixed(0)} ms`);
    watch.strict = true;
    await delay(cfg.warmupMs);
    for (let rep = 0; rep < cfg.reps; rep++) {
      getGc()();
      const s0 = (await sim.stats()).cpuUs;
      const f0 = frames;
      const e0 = watch.emissions();
      const per0 = watch.seen.map((s) => s.emissions);
      const c0 = process.cpuUsage();
      const w0 = process.hrtime.bigint();
      await delay(cfg.windowMs);
      const cpu = process.cpuUsage(c0);
      const wallUs = Number(process.hrtime.bigint() - w0) / 1000;
      const f1 = frames;
      const e1 = watch.emissions();
      watch.seen.forEach((s, i) => {
        if (s.plan.kind === 'replica') byChannel[s.plan.channel] = (byChannel[s.plan.channel] ?? 0) + s.emissions - per0[i]!;
      });
      const s1 = (await sim.stats()).cpuUs;
      windows.push({ cpuUs: cpu.user + cpu.system, wallUs, frames: f1 - f0, emissions: e1 - e0, simCpuUs: s1 - s0 });
    }
    watch.strict = false;
    errors.push(...(await checkAtTruth(sim, watch)));
    const end = await sim.stats();
    if (end.overflowDrops > 0) errors.push(`the simulator dropped ${end.overflowDrops} socket(s) for a full queue`);
  } catch (e) {
    errors.push(e instanceof Error ? e.message : String(e));
  } finally {
    // Read before closing: a closed client no longer counts its replicas' resyncs.
    resyncs = client.resyncCounts();
    watch.close();
    await client.close();
    await sim.close();
  }
  for (const [trigger, n] of Object.entries(resyncs)) if (n > 0 && trigger !== 'liveness') errors.push(`${n} resync(s) by ${trigger}`);
  errors.push(...watch.errors);
  for (const s of watch.seen) {
    if (s.notLive > 0) errors.push(`${s.plan.key}: ${s.notLive} emission(s) not live during the run`);
    if (s.gaps > 0) errors.push(`${s.plan.key}: ${s.gaps} gap marker(s)`);
  }
  const distinct = new Set(plan.filter((p) => p.kind !== 'account').map((p) => p.key)).size;
  if (serverSubscriptions > 0 && serverSubscriptions < distinct) errors.push(`${serverSubscriptions} server subscriptions for ${distinct} distinct streams`);
  if (windows.some((w) => w.frames === 0)) errors.push('a window received no frame');
  return {
    config: { subscriptions: cfg.subscriptions, eventsPerSecond: cfg.eventsPerSecond, warmupMs: cfg.warmupMs, windowMs: cfg.windowMs, reps: cfg.reps, seed: cfg.seed },
    subscriptions: {
      total: plan.length,
      replicas: plan.filter((p) => p.kind === 'replica').length,
      accountReplicas: plan.filter((p) => p.kind === 'account').length,
      rawTaps: plan.filter((p) => p.kind === 'raw').length,
      serverSubscriptions,
      streamsServed,
    },
    startupMs,
    framesPerSec: median(windows.map((w) => (w.frames * 1e6) / w.wallUs)),
    cpuUsPerFrame: median(windows.map((w) => w.cpuUs / Math.max(1, w.frames))),
    samplesUs: windows.map((w) => w.cpuUs / Math.max(1, w.frames)),
    coreShare: median(windows.map((w) => w.cpuUs / w.wallUs)),
    simulatorCoreShare: median(windows.map((w) => w.simCpuUs / w.wallUs)),
    emissionsPerFrame: median(windows.map((w) => w.emissions / Math.max(1, w.frames))),
    emissionsPerSecByChannel: perSecond(byChannel, windows.reduce((t, w) => t + w.wallUs, 0)),
    resyncs,
    correct: errors.length === 0 && windows.length === cfg.reps,
    errors,
  };
}

function perSecond(counts: Record<string, number>, wallUs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(counts).sort((a, b) => b[1] - a[1])) out[k] = wallUs > 0 ? Math.round((n * 1e6) / wallUs) : 0;
  return out;
}

/**
 * Pauses the order flow; then every state replica must reach the truth's sequence, and every
 * book must equal the truth on its best levels.
 */
async function checkAtTruth(sim: SimulatorProcess, watch: FanoutWatch): Promise<string[]> {
  await sim.pause();
  const errors: string[] = [];
  const targets: { s: Seen; seq: bigint; data: unknown }[] = [];
  for (const s of watch.seen) {
    if (s.plan.kind !== 'replica' || !STATE_CHANNELS.has(s.plan.channel)) continue;
    const def = CHANNELS[s.plan.channel];
    const t = await sim.truth(def.snapshot, def.snapshotParams(s.plan.scope));
    const body = t.body as { data: unknown; sequence?: string };
    if (t.status !== 200 || typeof body.sequence !== 'string') {
      errors.push(`${s.plan.key}: truth answered ${t.status}`);
      continue;
    }
    targets.push({ s, seq: BigInt(body.sequence), data: body.data });
  }
  const deadline = Date.now() + TRUTH_TIMEOUT_MS;
  while (targets.some((t) => t.s.seq !== t.seq) && Date.now() < deadline) await delay(10);
  for (const { s, seq, data } of targets) {
    if (s.seq !== seq) {
      errors.push(`${s.plan.key}: at seq ${s.seq}, the truth at ${seq}`);
      continue;
    }
    if (s.plan.channel !== 'book') continue;
    const mine = (s.state as OrderBook).toSnapshot(CHECK_LEVELS);
    const want = data as { bids: PriceLevel[]; asks: PriceLevel[] };
    const same = (a: readonly PriceLevel[], b: readonly PriceLevel[]) =>
      a.length === b.length && a.every((l, i) => l.price_ticks === b[i]!.price_ticks && l.size_base_lots === b[i]!.size_base_lots);
    if (!same(mine.bids, want.bids.slice(0, CHECK_LEVELS)) || !same(mine.asks, want.asks.slice(0, CHECK_LEVELS))) errors.push(`${s.plan.key}: the book differs from the truth within ${CHECK_LEVELS} levels a side`);
  }
  return errors;
}
