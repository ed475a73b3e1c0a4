/**
 * `npm run bench`: the library's benchmarks, on 127.0.0.1 only, in a few minutes.
 *
 *   npx tsx benchmarks/run.ts [--quick] [--only book|socket|resync|fanout|simulator|replay|metrics|lines|bus] [--bus-storage file|memory] [--out DIR]
 *
 * 1. Book reducer: our OrderBook vs ccxt pro's OrderBook vs `orderbooks`, ns per frame net of
 *    a no-op loop, on a top-heavy stream, a whole-book stream, the top-heavy one pre-parsed
 *    (numbers) and an exact (> 2^53) stream;
 *    bytes per level at 10,000 levels a side.
 * 2. Socket path: client CPU per frame at fixed rates (sender in another process), from
 *    bare receive to our fast validating decoder and the library's whole client path
 *    (ExchangeClient), as ratios to the JSON.parse floor.
 * 3. Latency at the same rates, send to state seen, p50/p99/p99.9.
 * 4. Resync: `resync_required` to `live` for a 500-level book (real simulator in another
 *    process, real ExchangeClient), split into the REST round trip and the client's work.
 * 5. Fan-out: one connection, 200 subscriptions across markets and accounts, client CPU per
 *    frame (simulator in another process), against the single-subscription figure of 2.
 * 6. The simulator's own throughput: frames/s its feed delivers to one client.
 * 7. Replay: a recorded 50,000-frame book session replayed at full speed into a client, frames/s.
 * 8. Bus: exchange -> relay -> NATS JetStream -> consumer processes against a direct client on
 *    the same fixed-rate feed: latency added, consumer CPU per update, relay and nats-server
 *    CPU with 1, 4, 16 consumers, all exact at the end (needs a nats-server, see
 *    scripts/ensure-nats-server.mjs). `--quick` of every part skips it (its own smoke test,
 *    test/benchmarks/bus.smoke.test.ts, runs `--quick --only bus`): it starts a dozen processes.
 * 9. Lines: a one-line and a two-line client (`lines: 2`) on the same feed, the simulator adding
 *    seeded random jitter to every connection: latency p50/p99 and CPU per update of both, and
 *    snapshots fetched by each with one line dropped every few seconds (lines/linesBench.ts).
 * Metrics (`--only metrics`): the client's CPU per update with no meter, the OpenTelemetry
 * API's no-op meter and an SDK meter, in process, as ratios to the no-meter client of the
 * same run (metrics/metricsCost.ts).
 *
 * Prints a markdown report and writes it, with the JSON of every figure, to
 * `benchmarks/results/` (or DIR). Exits 1 when one of the benchmark's own correctness
 * checks failed (speed targets missed are reported, not fatal). `--quick` runs tiny sizes.
 */
import { fileURLToPath } from 'node:url';
import { ccxtAdapter, ccxtNumbersAdapter, loadCcxtOrderBook, noopAdapter, orderbooksAdapter, oursAdapter, oursExactAdapter, oursNumbersAdapter } from './book/adapters';
import { runBookBench, type BookBenchResult } from './book/bookBench';
import { DEFAULT_STREAM_LIMITS } from '../src/nats/busProtocol';
import { runBusBench, type BusBenchResult } from './bus/busBench';
import { FULL, QUICK, type RunSizes } from './config';
import { evaluateChecks, evaluateTargets } from './lib/evaluate';
import { machineHeader } from './lib/machine';
import { renderMarkdown, writeReport, type BenchReport } from './lib/report';
import { runFanoutBench, type FanoutBenchResult } from './fanout/fanoutBench';
import { runLinesBench, type LinesBenchResult } from './lines/linesBench';
import { linesChecks, linesTargets, renderLines } from './lines/linesReport';
import { runResyncBench, type ResyncBenchResult } from './resync/resyncBench';
import { runSimulatorThroughput, type SimulatorThroughputResult } from './simulatorThroughput';
import { renderReplay, REPLAY_FULL, REPLAY_QUICK, runReplayBench, type ReplayBenchResult } from './replay';
import { METRICS_FULL, METRICS_QUICK, metricsCostCheck, renderMetricsCost, runMetricsCost, type MetricsCostResult } from './metrics/metricsCost';
import { clientPath, clientPathOnWs } from './socket/clientPathScenario';
import { RAW_SCENARIOS } from './socket/scenarios';
import { runSocketBench, type SocketBenchResult } from './socket/socketBench';
import { ORDER_FLOW_TICK_MS } from '../src/simulator/OrderFlowDriver';

/** The parts of a run, in the order they run. */
export const PARTS = ['book', 'socket', 'resync', 'fanout', 'simulator', 'replay', 'metrics', 'lines', 'bus'] as const;
export type Part = (typeof PARTS)[number];

export interface RunOptions {
  readonly quick: boolean;
  readonly only?: Part;
  readonly outDir: string;
  /** JetStream storage of the bus part's relay. @default the relay's default (`DEFAULT_STREAM_LIMITS.storage`) */
  readonly busStorage: 'file' | 'memory';
  readonly log: (line: string) => void;
}

const DEFAULT_OUT = fileURLToPath(new URL('./results/', import.meta.url));

export function parseArgs(argv: readonly string[]): RunOptions {
  const opts: { quick: boolean; only?: Part; outDir: string; busStorage: 'file' | 'memory' } = { quick: false, outDir: DEFAULT_OUT, busStorage: DEFAULT_STREAM_LIMITS.storage };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') opts.quick = true;
    else if (a === '--only' && (PARTS as readonly string[]).includes(argv[i + 1] ?? '')) opts.only = argv[++i] as Part;
    else if (a === '--out' && argv[i + 1]) opts.outDir = argv[++i]!;
    else if (a === '--bus-storage' && (argv[i + 1] === 'file' || argv[i + 1] === 'memory')) opts.busStorage = argv[++i] as 'file' | 'memory';
    else throw new Error(`unknown argument ${a}; usage: run.ts [--quick] [--only ${PARTS.join('|')}] [--bus-storage file|memory] [--out DIR]`);
  }
  return { ...opts, log: (line) => console.error(line) };
}

/** The report, with the replay, metrics and lines sections (rendered after the others: see `renderReplay`, `renderMetricsCost`, `renderLines`). */
export type FullBenchReport = BenchReport & { readonly replay?: ReplayBenchResult; readonly lines?: LinesBenchResult; readonly metrics?: MetricsCostResult };

export async function runBench(opts: RunOptions): Promise<FullBenchReport> {
  const sizes: RunSizes = opts.quick ? QUICK : FULL;
  const header = machineHeader();
  const t0 = Date.now();
  // The quick run of every part leaves the bus out (see the header); `--only bus` runs it.
  const runs = (part: Part) => (opts.only === undefined ? !(opts.quick && part === 'bus') : opts.only === part);
  let book: BookBenchResult | undefined;
  let socket: SocketBenchResult | undefined;
  let resync: ResyncBenchResult | undefined;
  let fanout: FanoutBenchResult | undefined;
  let simulator: SimulatorThroughputResult | undefined;
  if (runs('book')) {
    opts.log('book reducer benchmark...');
    const CcxtBook = await loadCcxtOrderBook();
    const ccxt = ccxtAdapter(CcxtBook);
    book = await runBookBench({
      ...sizes.book,
      noop: noopAdapter,
      log: opts.log,
      streams: [
        { id: 'top', label: '80% of changes within the best 20 levels', focus: 'top', base: 0n, input: 'wire', books: [oursAdapter, ccxt, orderbooksAdapter] },
        { id: 'whole', label: 'changes spread over the whole book', focus: 'whole', base: 0n, input: 'wire', books: [oursAdapter, ccxt, orderbooksAdapter] },
        { id: 'numbers', label: 'the top stream pre-parsed: every book handed the same numbers', focus: 'top', base: 0n, input: 'numbers', books: [oursNumbersAdapter, ccxtNumbersAdapter(CcxtBook)] },
        { id: 'exact', label: 'prices beyond 2^53 (exact path)', focus: 'top', base: 2n ** 53n, input: 'wire', books: [oursExactAdapter, ccxt] },
      ],
      memoryBooks: ['ours', 'ccxt', 'orderbooks'],
    });
  }
  if (runs('socket')) {
    opts.log('socket benchmark...');
    socket = await runSocketBench({ ...sizes.socket, scenarios: [...RAW_SCENARIOS, clientPath, clientPathOnWs], log: opts.log });
  }
  if (runs('resync')) {
    opts.log('resync benchmark...');
    resync = await runResyncBench({ ...sizes.resync, log: opts.log });
  }
  if (runs('fanout')) {
    opts.log('fan-out benchmark...');
    fanout = await runFanoutBench({ ...sizes.fanout, log: opts.log });
    const single = singleSubscriptionFigure(socket, fanout.framesPerSec);
    if (single) fanout.singleSubscription = { ...single, ratio: fanout.cpuUsPerFrame / single.cpuUsPerFrame };
    opts.log('fan-out: the single-subscription client fed as the fan-out is...');
    const same = await singleSubscriptionAtDelivery(sizes.socket, fanout.framesPerSec, ORDER_FLOW_TICK_MS, opts.log);
    if (same) fanout.sameDelivery = { ...same, ratio: fanout.cpuUsPerFrame / same.cpuUsPerFrame };
  }
  if (runs('simulator')) {
    opts.log('simulator throughput...');
    simulator = await runSimulatorThroughput(sizes.simulator);
  }
  // Replay: its own section, its own correctness check.
  let replay: ReplayBenchResult | undefined;
  if (runs('replay')) {
    opts.log('replay benchmark...');
    replay = await runReplayBench(opts.quick ? REPLAY_QUICK : REPLAY_FULL, opts.log);
  }
  let metrics: MetricsCostResult | undefined;
  if (runs('metrics')) {
    opts.log('metrics cost (no meter, no-op meter, SDK meter)...');
    metrics = await runMetricsCost(opts.quick ? METRICS_QUICK : METRICS_FULL, opts.log);
  }
  let lines: LinesBenchResult | undefined;
  if (runs('lines')) {
    opts.log('lines benchmark (one line vs two)...');
    lines = await runLinesBench({ ...sizes.lines, log: opts.log });
  }
  let bus: BusBenchResult | undefined;
  if (runs('bus')) {
    opts.log('bus benchmark...');
    bus = await runBusBench({ ...sizes.bus, storage: opts.busStorage, log: opts.log });
  }
  const parts = { book, socket, resync, fanout, simulator, bus };
  const checks = evaluateChecks(parts);
  if (metrics) checks.push(metricsCostCheck(metrics));
  if (replay) checks.push({ check: `replay: ${replay.config.frames} frames replayed ${replay.config.reps}x, final book and emissions as recorded`, ok: replay.correct, ...(replay.error ? { detail: replay.error } : {}) });
  if (lines) checks.push(...linesChecks(lines));
  return {
    mode: opts.quick ? 'quick' : 'full',
    header,
    durationSec: (Date.now() - t0) / 1000,
    ...(book ? { book } : {}),
    ...(socket ? { socket } : {}),
    ...(resync ? { resync } : {}),
    ...(fanout ? { fanout } : {}),
    ...(simulator ? { simulator } : {}),
    ...(replay ? { replay } : {}),
    ...(metrics ? { metrics } : {}),
    ...(lines ? { lines } : {}),
    ...(bus ? { bus } : {}),
    targets: [...evaluateTargets(parts), ...(lines ? linesTargets(lines) : [])],
    checks,
    checksPassed: checks.every((c) => c.ok),
  };
}

/**
 * The single-subscription client and the floor, fed by the socket part's sender at the
 * fan-out's frame rate with the fan-out's burst shape: everything due sent once per `tickMs`.
 * CPU pass only.
 */
async function singleSubscriptionAtDelivery(
  sizes: RunSizes['socket'],
  framesPerSec: number,
  tickMs: number,
  log: (line: string) => void,
): Promise<{ rate: number; tickMs: number; cpuUsPerFrame: number; samplesUs: number[]; floorCpuUsPerFrame: number } | undefined> {
  const rate = Math.max(1000, Math.round(framesPerSec / 500) * 500);
  const floor = RAW_SCENARIOS.find((s) => s.id === 'parse');
  if (!floor) throw new Error('the socket scenarios lost their parse floor');
  // More windows than the socket part's cells: bursts of ~100 frames 10 ms apart make this
  // figure noisier than the socket part's (3.5-5.9 µs a frame across full runs with 3).
  const r = await runSocketBench({ ...sizes, reps: sizes.reps + 2, rates: [rate], styles: ['batched'], tickMs, scenarios: [{ ...floor, timesLatency: false }, { ...clientPath, timesLatency: false }], log });
  const client = r.cpu.find((c) => c.scenario === clientPath.id && c.correct);
  const parse = r.cpu.find((c) => c.scenario === floor.id && c.correct);
  return client && parse
    ? { rate, tickMs, cpuUsPerFrame: client.cpuUsPerFrame, samplesUs: client.samplesUs, floorCpuUsPerFrame: parse.cpuUsPerFrame }
    : undefined;
}

/** The library client's single-subscription row of the socket part at the rate nearest `framesPerSec`. */
export function singleSubscriptionFigure(socket: SocketBenchResult | undefined, framesPerSec: number): { rate: number; cpuUsPerFrame: number } | undefined {
  // The fan-out's simulator writes as events happen, closest to the batched sender's bursts at its rates.
  const rows = (socket?.cpu ?? []).filter((c) => c.scenario === clientPath.id && c.style === 'batched' && c.correct);
  rows.sort((a, b) => Math.abs(a.rate - framesPerSec) - Math.abs(b.rate - framesPerSec));
  const r = rows[0];
  return r ? { rate: r.rate, cpuUsPerFrame: r.cpuUsPerFrame } : undefined;
}

async function main(): Promise<void> {
  // A signal exits through 'exit', where the parts' helper processes (the bus part's
  // nats-server above all) are ended; the others follow their IPC channel.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  const opts = parseArgs(process.argv.slice(2));
  const report = await runBench(opts);
  const md = renderMarkdown(report) + (report.replay ? `\n\n${renderReplay(report.replay)}\n` : '') + (report.metrics ? `\n${renderMetricsCost(report.metrics)}\n` : '') + (report.lines ? `\n${renderLines(report.lines)}\n` : '');
  const files = writeReport(opts.outDir, report, md);
  console.log(md);
  console.log(`written: ${files.md}\n         ${files.json}`);
  process.exitCode = report.checksPassed ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
