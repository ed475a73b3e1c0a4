/**
 * What the OpenTelemetry metrics cost the client per update. Three whole `ExchangeClient`s,
 * each live on the same 500-level book over an in-process socket class (no network: the
 * client's own work only, from the socket message to the subscriber), are handed the same
 * book update frames, interleaved repetition by repetition (the order rotates), CPU time per
 * frame each:
 *
 * - `none`: no `meterProvider` (the default): the baseline;
 * - `api-noop`: `meterProvider: metrics` of `@opentelemetry/api` with no SDK installed (the
 *   API's no-op meter: what a library user pays who passes the global API and exports nothing);
 * - `sdk`: an SDK `MeterProvider` with a reader (collected once, at the end, untimed).
 *
 * A figure is the median over the repetitions; a ratio is the median of the per-repetition
 * ratios to `none` of the same repetition. Checked: every client applied every update, the
 * three books agree, and the SDK counted every update once in `exchange_replica.updates` and
 * the latency histogram. Part of `npm run bench` (`--only metrics`), or alone:
 *
 *   npx tsx benchmarks/metrics/metricsCost.ts [--quick]
 */
import { fileURLToPath } from 'node:url';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader, DataPointType } from '@opentelemetry/sdk-metrics';
import { ExchangeClient, type ExchangeClientOptions } from '../../src/client';
import { systemClock } from '../../src/clock';
import { METRIC_INSTRUMENTS } from '../../src/metrics';
import { FEED_PATH, updateFramePrefix, writeUpdateData, writeUpdateFrame } from '../../src/protocol';
import { makeDeltaStream } from '../book/deltaStream';
import { fmt, fmtRatio, median } from '../lib/stats';
import { LoopbackFeed } from './LoopbackFeed';

export interface MetricsCostConfig {
  /** Frames a repetition (each client is handed all of them). */
  readonly frames: number;
  readonly reps: number;
  readonly levels: number;
  readonly seed: number;
}

export const METRICS_FULL: MetricsCostConfig = { frames: 50_000, reps: 7, levels: 500, seed: 0xfeed };
export const METRICS_QUICK: MetricsCostConfig = { frames: 1_000, reps: 2, levels: 100, seed: 0xfeed };

export const METRICS_VARIANTS = ['none', 'api-noop', 'sdk'] as const;
export type MetricsVariant = (typeof METRICS_VARIANTS)[number];

const LABELS: Record<MetricsVariant, string> = {
  none: 'no meterProvider (default)',
  'api-noop': '@opentelemetry/api `metrics`, no SDK (no-op meter)',
  sdk: 'SDK MeterProvider (recording)',
};

export interface MetricsCostRow {
  readonly variant: MetricsVariant;
  readonly label: string;
  /** CPU ns per frame, median over the repetitions, and each repetition's. */
  readonly nsPerFrame: number;
  readonly samples: readonly number[];
  /** Median of the per-repetition ratios to `none` (1 for `none`), and each repetition's. */
  readonly ratio: number;
  readonly ratios: readonly number[];
}

export interface MetricsCostResult {
  readonly config: MetricsCostConfig;
  readonly rows: readonly MetricsCostRow[];
  /** Every client applied every update, the books agree, the SDK counted each update once. */
  readonly correct: boolean;
  readonly error?: string;
}

/** Collects only when asked. */
class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

interface LiveClient {
  readonly variant: MetricsVariant;
  readonly feed: LoopbackFeed;
  applied(): number;
  best(): string;
  close(): Promise<void>;
}

const BOOK = { market_type: 'perp', market_id: 0 } as const;
const cpuNs = (u: NodeJS.CpuUsage): number => (u.user + u.system) * 1000;

async function liveClient(variant: MetricsVariant, snapshot: string, meterProvider: ExchangeClientOptions['meterProvider']): Promise<LiveClient> {
  const feed = new LoopbackFeed();
  const client = new ExchangeClient({
    restUrl: 'http://127.0.0.1:1',
    wsUrl: `ws://127.0.0.1:1${FEED_PATH}`,
    strict: true,
    connection: { WebSocket: feed.socketClass() },
    rest: { fetch: async () => new Response(snapshot, { status: 200, headers: { 'content-type': 'application/json' } }) },
    meterProvider,
  });
  let applied = 0;
  let best = '';
  let live!: () => void;
  const isLive = new Promise<void>((resolve) => (live = resolve));
  const sub = client.orderBook(BOOK).subscribe((e) => {
    if (e.status === 'live') live();
    if (e.cause === 'update') {
      applied++;
      best = `${e.state.bestBid()}/${e.state.bestAsk()}`;
    }
  });
  await isLive;
  return {
    variant,
    feed,
    applied: () => applied,
    best: () => best,
    close: async () => {
      sub.unsubscribe();
      await client.close();
    },
  };
}

export async function runMetricsCost(config: MetricsCostConfig, log: (line: string) => void = () => undefined): Promise<MetricsCostResult> {
  // One warm-up slice, untimed, then `reps` timed ones: every client is handed each slice.
  const slices = config.reps + 1;
  const stream = makeDeltaStream({ levels: config.levels, frames: config.frames * slices, seed: config.seed, focus: 'top' });
  const prefix = updateFramePrefix('1', 'book');
  const t0 = systemClock.nowNs();
  const wire = stream.frames.map((f, i) => Buffer.from(writeUpdateFrame(prefix, BigInt(i + 1), t0 + BigInt(i) * 1000n, writeUpdateData('book', { bids: f.bids, asks: f.asks }))));
  const snapshot = JSON.stringify({ data: stream.snapshot, sequence: '0', timestamp_ns: String(t0) });
  const reader = new OnDemandReader();
  const sdk = new MeterProvider({ readers: [reader] });
  const providers: Record<MetricsVariant, ExchangeClientOptions['meterProvider']> = { none: undefined, 'api-noop': metrics, sdk };
  const clients: LiveClient[] = [];
  for (const v of METRICS_VARIANTS) clients.push(await liveClient(v, snapshot, providers[v]));
  const times = clients.map((): number[] => []);
  try {
    for (let r = 0; r < slices; r++) {
      const slice = wire.slice(r * config.frames, (r + 1) * config.frames);
      for (let k = 0; k < clients.length; k++) {
        const i = (k + r) % clients.length;
        const a = process.cpuUsage();
        for (const b of slice) clients[i]!.feed.push(b);
        if (r > 0) times[i]!.push(cpuNs(process.cpuUsage(a)) / config.frames);
      }
      if (r > 0) log(`metrics cost: repetition ${r}/${config.reps}: ${clients.map((c, i) => `${c.variant} ${fmt(times[i]!.at(-1), 0)} ns`).join(', ')}`);
    }
    const errors = await checkRun(clients, config.frames * slices, reader);
    const base = times[0]!;
    const rows = clients.map((c, i): MetricsCostRow => {
      const ratios = times[i]!.map((t, r) => t / base[r]!);
      return { variant: c.variant, label: LABELS[c.variant], nsPerFrame: median(times[i]!), samples: times[i]!, ratio: median(ratios), ratios };
    });
    return { config, rows, correct: errors.length === 0, ...(errors.length ? { error: errors.join('; ') } : {}) };
  } finally {
    for (const c of clients) await c.close();
    await sdk.shutdown();
  }
}

/** What the run must have done, whatever its speed. */
async function checkRun(clients: readonly LiveClient[], frames: number, reader: OnDemandReader): Promise<string[]> {
  const errors: string[] = [];
  for (const c of clients) if (c.applied() !== frames) errors.push(`${c.variant}: applied ${c.applied()} of ${frames} updates`);
  const bests = new Set(clients.map((c) => c.best()));
  if (bests.size !== 1) errors.push(`the books disagree: ${[...bests].join(' vs ')}`);
  const { resourceMetrics } = await reader.collect();
  const points = (name: string) => resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).filter((m) => m.descriptor.name === name);
  const updates = points(METRIC_INSTRUMENTS.updates.name).flatMap((m) => (m.dataPointType === DataPointType.SUM ? m.dataPoints.map((p) => p.value) : []));
  const latency = points(METRIC_INSTRUMENTS.updateLatency.name).flatMap((m) => (m.dataPointType === DataPointType.HISTOGRAM ? m.dataPoints.map((p) => p.value.count) : []));
  if (updates.reduce((a, b) => a + b, 0) !== frames) errors.push(`sdk: exchange_replica.updates says ${updates.join('+')} of ${frames}`);
  if (latency.reduce((a, b) => a + b, 0) !== frames) errors.push(`sdk: exchange_replica.update.latency counted ${latency.join('+')} of ${frames}`);
  return errors;
}

/** The no-op meter (the API without an SDK) costs nothing measurable: within this of no meter. */
export const NOOP_TARGET_RATIO = 1.03;

/** The report's section. */
export function renderMetricsCost(r: MetricsCostResult): string {
  const head = `## Metrics: the client's CPU per update with and without a meter (${r.config.frames} book frames a repetition, ${r.config.levels} levels a side, median of ${r.config.reps} interleaved repetitions; in-process socket, no network)`;
  const rows = r.rows.map((x) => `| ${x.label} | ${fmt(x.nsPerFrame, 0)} | ${x.variant === 'none' ? '1 (baseline)' : fmtRatio(x.ratio)} | ${x.variant === 'none' ? '' : `${fmt(Math.min(...x.ratios), 3)}..${fmt(Math.max(...x.ratios), 3)}`} |`);
  const noop = r.rows.find((x) => x.variant === 'api-noop');
  const target = noop ? `Target: the no-op meter within ${NOOP_TARGET_RATIO}x of no meter: ${noop.ratio <= NOOP_TARGET_RATIO ? 'met' : 'NOT met'} (${fmt(noop.ratio, 3)}x; reported, not fatal).` : '';
  const check = r.correct ? 'Checked: every client applied every update, the books agree, the SDK counted each update once.' : `CHECK FAILED: ${r.error}`;
  return [head, '', '| meter | CPU ns/frame | vs none (same run) | per-repetition ratios |', '|---|---|---|---|', ...rows, '', target, check].join('\n');
}

/** The benchmark's correctness check, as a row of the run's checks. */
export function metricsCostCheck(r: MetricsCostResult): { check: string; ok: boolean; detail?: string } {
  return { check: `metrics cost: ${r.config.frames * (r.config.reps + 1)} frames to each of ${r.rows.length} clients, every update applied, books equal, the SDK counted each once`, ok: r.correct, ...(r.error ? { detail: r.error } : {}) };
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const result = await runMetricsCost(quick ? METRICS_QUICK : METRICS_FULL, (line) => console.error(line));
  console.log(renderMetricsCost(result));
  process.exitCode = result.correct ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
