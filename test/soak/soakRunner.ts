/**
 * The chaos soak: the simulator under its seeded random-fault schedule (socket drops, silent
 * seq gaps, resync_required, stalled streams and connections, delayed frames, REST 500s and
 * slow REST), plus queue overflow drops (a small queue bound) and brief HEARTBEAT_TIMEOUT
 * silences (the client's pings withheld), against ONE client holding many replicas at once.
 * At each checkpoint the engine is paused, every replica must become live at the truth's
 * sequence and equal the truth; every trade and fill must be delivered exactly once or be
 * covered by a gap marker.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ExchangeClient, type ExchangeReplicaError } from '../../src';
import { Simulator } from '../../src/simulator';
import type { FaultKind } from '../../src/simulator';
import { ReplicaFleet, type FleetSpec } from '../e2e/ReplicaFleet';
import type { LedgerFindings } from '../helpers/truth';
import { RecoveryTracker } from './RecoveryTracker';
import { SilenceGate } from './silenceGate';
import { errorKey, EXPECTED_ERROR_CODES, summarize, type SoakInputs, type SoakReport } from './soakReport';
import { seededRandom } from '../../benchmarks/lib/rng';
import { WAIT_MS } from '../helpers/deadlines';

export { EXPECTED_ERROR_CODES };

export interface SoakOptions {
  /** Seed of the world, its order flow and every fault draw. */
  readonly seed: number;
  /** Time faults are injected, from the moment every replica is live (checkpoints, paused, come on top), in rounds of `checkpointEveryMs`. */
  readonly durationMs: number;
  /** Time between two checkpoints. @default 10000 */
  readonly checkpointEveryMs?: number;
  /** Mean random faults per second. @default 2 */
  readonly faultsPerSecond?: number;
  /** Order-flow events per second. @default 300 */
  readonly eventsPerSecond?: number;
  /** The feed's per-connection queue bound (small, so stalls overflow it). @default 262144 */
  readonly maxQueueBytes?: number;
  /** The server's idle window (HEARTBEAT_TIMEOUT). @default 2000 */
  readonly heartbeatTimeoutMs?: number;
  /** Mean time between two ping silences that outlast the idle window. @default 15000 */
  readonly silenceEveryMs?: number;
  /** Bound of each checkpoint's wait for all-live. @default 30000 */
  readonly checkpointTimeoutMs?: number;
  /** Replicate the market maker's account (thousands of open orders, a fill on most events) instead of the first trader's. @default false */
  readonly marketMaker?: boolean;
  /** Progress lines. @default none */
  readonly log?: (line: string) => void;
}

/** What the soak subscribes to: four markets (two spot, two perp), several resolutions, two full accounts. */
export function soakFleetSpec(sim: Simulator, marketMaker = false): FleetSpec {
  const a = sim.engine.accounts;
  return {
    markets: [
      { market_type: 'perp', market_id: 0 },
      { market_type: 'perp', market_id: 1 },
      { market_type: 'spot', market_id: 3 },
      { market_type: 'spot', market_id: 4 },
    ],
    resolutions: ['1m', '5m', '1h'],
    markResolutions: ['1m', '15m'],
    accounts: [
      { address: a[marketMaker ? 0 : 1]!.address, subaccount_id: 0 },
      { address: a[3]!.address, subaccount_id: 1 },
    ],
    accountParts: true,
  };
}

function handles(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const h of process.getActiveResourcesInfo()) out[h] = (out[h] ?? 0) + 1;
  return out;
}

/** A garbage collection, so heap figures compare live objects (node's gc exposed at run time, no flag needed). */
const collect: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  collect();
}

/** Runs one soak and returns its report (never throws for a finding: the report says it). */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const o: Resolved = {
    checkpointEveryMs: 10_000,
    faultsPerSecond: 2,
    eventsPerSecond: 300,
    maxQueueBytes: 256 * 1024,
    heartbeatTimeoutMs: 2000,
    silenceEveryMs: 15_000,
    checkpointTimeoutMs: 30_000,
    ...options,
    // An explicit `log: undefined` (run.ts with --quiet) means silence too.
    log: options.log ?? (() => undefined),
  };
  const unhandled: string[] = [];
  const onRejection = (e: unknown) => unhandled.push(`unhandledRejection: ${(e as Error)?.stack ?? String(e)}`);
  const onException = (e: unknown) => unhandled.push(`uncaughtException: ${(e as Error)?.stack ?? String(e)}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  await settle();
  const start = { heapUsed: process.memoryUsage().heapUsed, handles: handles() };
  // The run lives in its own frame: once it returns, nothing of the simulator or the client is reachable from here.
  const inputs = await runScenario(o, unhandled);
  await released(start.handles, WAIT_MS);
  await settle();
  const end = { heapUsed: process.memoryUsage().heapUsed, handles: handles() };
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
  return summarize({ ...inputs, start, end });
}

type Resolved = Required<Omit<SoakOptions, 'marketMaker'>> & { marketMaker?: boolean };

async function runScenario(o: Resolved, unhandled: string[]): Promise<Omit<SoakInputs, 'start' | 'end'>> {
  const startedAt = performance.now();

  const sim = await Simulator.start({ seed: o.seed, eventsPerSecond: o.eventsPerSecond, heartbeatTimeoutMs: o.heartbeatTimeoutMs, maxQueueBytes: o.maxQueueBytes });
  const gate = new SilenceGate();
  const client = new ExchangeClient({
    restUrl: sim.restUrl,
    connection: { WebSocket: gate.socketClass(), heartbeatIntervalMs: Math.floor(o.heartbeatTimeoutMs / 4), pongTimeoutMs: o.heartbeatTimeoutMs * 2, reconnect: { initialDelayMs: 20, maxDelayMs: 500 } },
    rest: { retry: { initialDelayMs: 10, maxDelayMs: 200 } },
    resync: { retry: { initialDelayMs: 10, maxDelayMs: 200 } },
    replica: { retryAfterMs: 200 },
  });
  const errors: Record<string, number> = {};
  const unexpected: string[] = [];
  client.errors$.subscribe((e: ExchangeReplicaError) => {
    const key = errorKey(e as ExchangeReplicaError & { serverCode?: unknown });
    errors[key] = (errors[key] ?? 0) + 1;
    if (!(key in EXPECTED_ERROR_CODES) && unexpected.length < 20) unexpected.push(`${key}: ${e.message}`);
  });
  const fleet = new ReplicaFleet(client, soakFleetSpec(sim, o.marketMaker ?? false)).start();
  const recovery = new RecoveryTracker();
  fleet.changed$.subscribe(() => recovery.observe(fleet.allLive()));
  let heartbeatCloses = 0;
  client.connection.on('close', (c) => c.reason.includes('HEARTBEAT_TIMEOUT') && heartbeatCloses++);

  const checkpoints: { atMs: number; waitedMs: number; divergences: number; notConverged: number }[] = [];
  const divergences: string[] = [];
  let events: LedgerFindings = { duplicates: 0, missing: 0, mismatched: 0, unknown: 0, checked: 0, gapped: 0, examples: [] };
  const checkpoint = async (label: string) => {
    sim.pause();
    const r = await fleet.checkpoint(sim, o.checkpointTimeoutMs);
    events = r.events;
    checkpoints.push({ atMs: performance.now() - startedAt, waitedMs: r.waitedMs, divergences: r.divergences.length, notConverged: r.notConverged.length });
    divergences.push(...r.divergences.map((d) => `${label}: ${d}`), ...r.notConverged.map((d) => `${label}: not live at the truth's sequence within ${o.checkpointTimeoutMs} ms: ${d}`));
    o.log(`${label} at ${Math.round((performance.now() - startedAt) / 1000)} s: ${r.compared} replicas, ready after ${Math.round(r.waitedMs)} ms, ${r.divergences.length} divergences, ${r.notConverged.length} not converged, events checked ${r.events.checked}, gapped ${r.events.gapped}`);
    if (!stopping) sim.resume();
  };

  // Everything live before the first fault.
  let stopping = false;
  await allLive(fleet, o.checkpointTimeoutMs);
  recovery.observe(fleet.allLive());
  const schedule = sim.faults.randomFaults({
    ratePerSecond: o.faultsPerSecond,
    seed: o.seed,
    maxDurationMs: 1000,
    onFault: (f) => f.target !== undefined || f.kind === 'delayFrames' || f.kind === 'rest500' || f.kind === 'restLatency' ? recovery.fault(f.kind, kindDuration(f.kind, f.amount)) : undefined,
  });
  const draw = seededRandom(o.seed ^ 0x5eed);
  let silences = 0;
  let silenceTimer: NodeJS.Timeout | undefined;
  const armSilence = () => {
    silenceTimer = setTimeout(() => {
      const ms = o.heartbeatTimeoutMs + 300 + Math.floor(draw() * 500);
      gate.silence(ms);
      silences++;
      recovery.fault('heartbeatSilence', ms);
      armSilence();
    }, Math.round(-Math.log(1 - draw()) * o.silenceEveryMs));
  };
  armSilence();

  // As many checkpoints as the faulted time holds, each after checkpointEveryMs of faults: the
  // run's faults and checkpoints do not shrink when the start (everything live) or a checkpoint
  // takes longer, as on a loaded machine.
  const rounds = Math.max(1, Math.round(o.durationMs / o.checkpointEveryMs));
  for (let n = 1; n <= rounds; n++) {
    await new Promise((r) => setTimeout(r, o.checkpointEveryMs));
    await checkpoint(`checkpoint ${n}`);
  }
  // Final: faults stopped and cleared, one last comparison.
  stopping = true;
  schedule.stop();
  clearTimeout(silenceTimer);
  sim.faults.clear();
  await checkpoint('final');
  const faultStats = sim.faults.stats();
  const overflowDrops = sim.faults.overflowDrops();
  const resyncs = client.resyncCounts();
  const observableErrors = [...fleet.observableErrors];
  const replicas = fleet.size;

  fleet.stop();
  await client.close();
  await sim.stop();
  return {
    seed: o.seed,
    durationMs: performance.now() - startedAt,
    replicas,
    faults: { ...faultStats.byKind, heartbeatSilence: silences },
    faultsSkipped: faultStats.skipped,
    overflowDrops,
    heartbeatCloses,
    resyncs,
    recoveries: recovery.recoveries(),
    episodes: recovery.episodeCount,
    checkpoints,
    divergences,
    events,
    unhandled,
    errors,
    unexpectedErrors: [...unexpected, ...observableErrors.map((e) => `observable errored: ${e}`)],
  };
}

/** Waits (bounded) until no more sockets or servers are open than at the start: closed peers take a turn of the loop to go. */
async function released(before: Record<string, number>, boundMs: number): Promise<void> {
  const until = performance.now() + boundMs;
  const extra = () => ['TCPSocketWrap', 'TCPServerWrap'].some((k) => (handles()[k] ?? 0) > (before[k] ?? 0));
  while (extra() && performance.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/** Resolves once every replica is live (or after `ms`: the first checkpoint then reports who is not). */
function allLive(fleet: ReplicaFleet, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (fleet.allLive()) return resolve();
    const timer = setTimeout(done, ms);
    const sub = fleet.changed$.subscribe(() => fleet.allLive() && done());
    function done() {
      clearTimeout(timer);
      sub.unsubscribe();
      resolve();
    }
  });
}

/** How long a fault of `kind` with this `amount` lasts. */
function kindDuration(kind: FaultKind, amount: number): number {
  return kind === 'stallStream' || kind === 'stallConnection' || kind === 'restLatency' ? amount : kind === 'delayFrames' ? 1000 : 0;
}
