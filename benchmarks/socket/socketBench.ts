/**
 * The socket benchmark: client CPU per frame and latency at FIXED rates, the sender in
 * another process (sender.ts) so the client's figures hold only the client's work.
 *
 * CPU pass: each repetition runs every (rate, scenario) once, scenarios in a shuffled order.
 * A run connects, has the sender start at the rate, lets it settle for `warmupMs`, then
 * reads `process.cpuUsage()` (all threads of this process: handlers, GC, I/O) across
 * `windowMs` and divides by the frames handled meanwhile. Then the sender stops, the client
 * drains, and the run is checked (frame count; book state vs a plain replay).
 * Latency pass: the same (interleaved repetitions too), recording each frame's send-to-state
 * latency in an HDR histogram across the window; percentiles are medians over the runs.
 */
import * as hdr from 'hdr-histogram-js';
import { getGc } from '../lib/gc';
import { delay, median } from '../lib/stats';
import { seededRandom } from '../lib/rng';
import { makeDeltaStream, type TopLevels } from '../book/deltaStream';
import type { Scenario, ScenarioRun } from './scenarios';
import { SenderProcess } from './SenderProcess';
import { StreamReplay } from './StreamReplay';
import { latencyClock, makeAnchorNs } from './wallClock';
import type { SenderStyle } from './senderProtocol';

export interface SocketBenchConfig {
  readonly rates: readonly number[];
  /** How the sender writes (see `SenderStyle`); every cell is measured with each. */
  readonly styles: readonly SenderStyle[];
  readonly warmupMs: number;
  readonly windowMs: number;
  readonly latencyWindowMs: number;
  readonly reps: number;
  readonly levels: number;
  readonly seed: number;
  /** The sender's tick: the frames due are sent every `tickMs` (bursts of rate x tickMs / 1000). @default 1 */
  readonly tickMs?: number;
  /** The first scenario is the floor the others are compared with. */
  readonly scenarios: readonly Scenario[];
  readonly log?: (line: string) => void;
}

export interface CpuRow {
  readonly rate: number;
  readonly style: SenderStyle;
  readonly scenario: string;
  readonly label: string;
  /** Median client CPU µs per frame over the repetitions. */
  readonly cpuUsPerFrame: number;
  readonly samplesUs: number[];
  /** Median share of one core the client used during the window. */
  readonly coreShare: number;
  /** Median frames/s the client handled during the window. */
  readonly handledPerSec: number;
  /** Median of the sender's largest socket backlog (bytes): the client falling behind. */
  readonly maxBacklogBytes: number;
  readonly correct: boolean;
  readonly errors: string[];
}

/** Percentiles are medians over the repetitions; `count` the fewest frames timed in one run. */
export interface LatencyRow {
  readonly rate: number;
  readonly style: SenderStyle;
  readonly scenario: string;
  readonly label: string;
  readonly count: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly p999Us: number;
  readonly maxUs: number;
  readonly correct: boolean;
  readonly errors: string[];
}

export interface SocketBenchResult {
  readonly config: { rates: readonly number[]; styles: readonly SenderStyle[]; warmupMs: number; windowMs: number; latencyWindowMs: number; reps: number; levels: number; seed: number; tickMs: number };
  readonly cpu: CpuRow[];
  readonly latency: LatencyRow[];
}

const DRAIN_TIMEOUT_MS = 20_000;
const CHECK_DEPTH = 10;

interface RunOutcome {
  cpuUs: number;
  wallUs: number;
  handled: number;
  sent: number;
  backlog: number;
  error?: string;
}

export async function runSocketBench(cfg: SocketBenchConfig): Promise<SocketBenchResult> {
  const log = cfg.log ?? (() => undefined);
  const tickMs = cfg.tickMs ?? 1;
  const longest = Math.max(cfg.windowMs, cfg.latencyWindowMs);
  // Enough frames for the longest run at the highest rate, with room for a slow start.
  const frames = Math.ceil((Math.max(...cfg.rates) * (cfg.warmupMs + longest + 1000)) / 1000);
  const spec = { levels: cfg.levels, frames, seed: cfg.seed, focus: 'top' as const };
  const anchorNs = makeAnchorNs();
  const replay = new StreamReplay(makeDeltaStream(spec));
  const { sender, port } = await SenderProcess.start(anchorNs, spec);
  const ctxBase = { url: `ws://127.0.0.1:${port}/ws`, restUrl: `http://127.0.0.1:${port}`, latencyOf: latencyClock(anchorNs) };
  const expectTop = (n: number): TopLevels => replay.topAfter(n, CHECK_DEPTH);

  const once = async (scenario: Scenario, rate: number, style: SenderStyle, windowMs: number, record?: (ns: number) => void, onWindowStart?: () => void): Promise<RunOutcome> => {
    // Every run starts from a collected heap, so no run pays for garbage of the one before.
    getGc()();
    const run: ScenarioRun = await scenario.start({ ...ctxBase, ...(record ? { record } : {}) });
    try {
      const started = await sender.request({ cmd: 'start', rate, maxFrames: frames, style, tickMs });
      if (started.type !== 'started') throw new Error(`sender: ${JSON.stringify(started)}`);
      await delay(cfg.warmupMs);
      onWindowStart?.();
      const n0 = run.received();
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      await delay(windowMs);
      const cpu = process.cpuUsage(c0);
      const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
      const handled = run.received() - n0;
      const stopped = await sender.request({ cmd: 'stop' });
      if (stopped.type !== 'stopped') throw new Error(`sender: ${JSON.stringify(stopped)}`);
      const deadline = Date.now() + DRAIN_TIMEOUT_MS;
      while (run.received() < stopped.sent && Date.now() < deadline) await delay(5);
      const error = run.check({ frames: stopped.sent, top: expectTop(stopped.sent) });
      return { cpuUs: cpu.user + cpu.system, wallUs, handled, sent: stopped.sent, backlog: stopped.maxBufferedBytes, ...(error ? { error } : {}) };
    } finally {
      await run.close();
    }
  };

  try {
    const shuffle = seededRandom(cfg.seed ^ 0x51ed);
    /** Runs `fn` for every (rate, style, scenario) once per repetition, scenarios shuffled; collects per cell. */
    const interleaved = async <T>(pass: string, scenarios: readonly Scenario[], fn: (s: Scenario, rate: number, style: SenderStyle) => Promise<T>) => {
      const cells = new Map<string, T[]>();
      for (let rep = 0; rep < cfg.reps; rep++) {
        for (const rate of cfg.rates) {
          for (const style of cfg.styles) {
            const order = [...scenarios];
            for (let i = order.length - 1; i > 0; i--) {
              const j = Math.floor(shuffle() * (i + 1));
              [order[i], order[j]] = [order[j]!, order[i]!];
            }
            for (const s of order) {
              const k = `${rate}/${style}/${s.id}`;
              cells.set(k, [...(cells.get(k) ?? []), await fn(s, rate, style)]);
            }
          }
          log(`  socket ${pass}: repetition ${rep + 1}/${cfg.reps}, ${rate} frames/s done`);
        }
      }
      return (rate: number, style: SenderStyle, s: Scenario) => cells.get(`${rate}/${style}/${s.id}`) ?? [];
    };

    const cpuRuns = await interleaved('cpu', cfg.scenarios, (s, rate, style) => once(s, rate, style, cfg.windowMs));
    const cpu: CpuRow[] = [];
    for (const rate of cfg.rates) {
      for (const style of cfg.styles) for (const s of cfg.scenarios) {
        const outs = cpuRuns(rate, style, s);
        const perFrame = outs.map((o) => o.cpuUs / Math.max(1, o.handled));
        const errors = outs.flatMap((o) => (o.error ? [o.error] : []));
        cpu.push({
          rate,
          style,
          scenario: s.id,
          label: s.label,
          cpuUsPerFrame: median(perFrame),
          samplesUs: perFrame,
          coreShare: median(outs.map((o) => o.cpuUs / o.wallUs)),
          handledPerSec: median(outs.map((o) => (o.handled * 1e6) / o.wallUs)),
          maxBacklogBytes: median(outs.map((o) => o.backlog)),
          correct: errors.length === 0,
          errors,
        });
      }
    }

    const timed = cfg.scenarios.filter((x) => x.timesLatency);
    const latencyRuns = await interleaved('latency', timed, async (s, rate, style) => {
      const h = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: 3, useWebAssembly: false });
      try {
        const out = await once(s, rate, style, cfg.latencyWindowMs, (ns) => h.recordValue(ns), () => h.reset());
        const us = (p: number) => h.getValueAtPercentile(p) / 1000;
        return { count: h.totalCount, p50: us(50), p99: us(99), p999: us(99.9), max: h.maxValue / 1000, error: out.error };
      } finally {
        h.destroy();
      }
    });
    const latency: LatencyRow[] = [];
    for (const rate of cfg.rates) {
      for (const style of cfg.styles) for (const s of timed) {
        const outs = latencyRuns(rate, style, s);
        const errors = outs.flatMap((o) => (o.error ? [o.error] : []));
        latency.push({
          rate,
          style,
          scenario: s.id,
          label: s.label,
          count: Math.min(...outs.map((o) => o.count)),
          p50Us: median(outs.map((o) => o.p50)),
          p99Us: median(outs.map((o) => o.p99)),
          p999Us: median(outs.map((o) => o.p999)),
          maxUs: Math.max(...outs.map((o) => o.max)),
          correct: errors.length === 0,
          errors,
        });
      }
    }
    return { config: { rates: cfg.rates, styles: cfg.styles, warmupMs: cfg.warmupMs, windowMs: cfg.windowMs, latencyWindowMs: cfg.latencyWindowMs, reps: cfg.reps, levels: cfg.levels, seed: cfg.seed, tickMs }, cpu, latency };
  } finally {
    await sender.close();
  }
}
