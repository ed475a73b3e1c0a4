/**
 * The bus benchmark: what NATS JetStream costs a consumer of the relay's replicas against a
 * client connected to the exchange itself, under ONE feed, every party in its own process.
 *
 * - The exchange (`feed.ts`): a fixed-rate `book` stream sent to every subscribed client,
 *   each frame stamped with its send time (one wall clock shared by every process), and a
 *   REST snapshot of the book as of the last frame sent.
 * - The relay (`relayProcess.ts`): a `ReplicaRelay` (defaults) on a real nats-server.
 * - Consumers (`consumer.ts`): one direct `ExchangeClient` on the feed, and 1..N `BusClient`s.
 *
 * Latency pass: for each repetition and rate (the rate order alternating), the feed runs at
 * the rate, settles for `warmupMs`, then the direct client and one bus consumer record every
 * update's latency (the frame's send time to the replica's emission, HDR histogram) and
 * their own `process.cpuUsage()` across the SAME window; the relay's and nats-server's CPU
 * are read from /proc over it. The bus's cost is the difference (latency) and the ratio
 * (CPU per update) of the two consumers in one window; medians over repetitions, with the
 * spread (min..max). In the same windows, the cheapest consumer of the bus (`bare`: a core
 * NATS subscription decoding each update with the feed's fast decoder, no replica) is the
 * floor of a bus consumer's CPU per update.
 * In each window, every update is also traced through the stages (stageTrace.ts: the relay's
 * publish call, the cheapest consumer's decode, the bus consumer's and the direct client's
 * emission, joined by seq): where the latency, and the slowest updates' latency, goes. Right
 * after each window, the feed still running, nats-server's own JetStream latency is probed
 * (natsProbe.ts at the window's message rate and size): the floor under the bus's own load.
 * Floor pass (the feed paused): nats-server's own JetStream publish -> delivery latency
 * (natsProbe.ts, memory store, a push consumer) at the message rate and size the relay
 * published in each rate's windows: the floor of the latency the bus adds, as the issue
 * defines it (without the CPU contention of the processes the bus path runs beside).
 * Fan-out pass: with 1, 4, 16 bus consumer processes (the feed paused while they start), the
 * relay's and nats-server's CPU per update and share of a core, and the consumers'.
 * At the end, the feed paused: every consumer (and the relay) reached the last seq sent and
 * every consumer's book equals the plain replay of the frames sent.
 *
 * Part of `npm run bench`; alone: `npx tsx benchmarks/run.ts --only bus [--quick] [--out DIR]`.
 */
import { fileURLToPath } from 'node:url';
import { DEFAULT_STREAM_LIMITS } from '../../src/nats/busProtocol';
import { diffTop, makeDeltaStream, type StreamSpec } from '../book/deltaStream';
import type { BusSizes } from '../config';
import { delay, median } from '../lib/stats';
import { StreamReplay } from '../socket/StreamReplay';
import { makeAnchorNs } from '../socket/wallClock';
import type { ConsumerArgs, ConsumerCommand, ConsumerReply, ConsumerWindow, FeedCommand, FeedReply, RelayArgs, RelayCommand, RelayReply } from './busProtocol';
import { IpcChild } from './IpcChild';
import { NatsServerProcess } from './NatsServerProcess';
import { percentileOf, probeJetStream } from './natsProbe';
import { procCpuUs } from './procCpu';
import { decompose, type Decomposition } from './stageTrace';

export interface BusBenchConfig extends BusSizes {
  readonly log?: (line: string) => void;
  /** JetStream storage of the relay's stream and bucket. @default the relay's default */
  readonly storage?: 'file' | 'memory';
}

type Feed = IpcChild<FeedCommand, FeedReply>;
type Relay = IpcChild<RelayCommand, RelayReply>;
type Consumer = IpcChild<ConsumerCommand, ConsumerReply>;

/** A min..max range over repetitions. */
export interface Range {
  readonly min: number;
  readonly max: number;
}

/** One consumer's figures in one window. */
export interface ConsumerFigures {
  readonly cpuUsPerUpdate: number;
  readonly coreShare: number;
  readonly updates: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly p999Us: number;
  readonly maxUs: number;
}

/** CPU of a process the benchmark does not run itself (relay, nats-server), over a window. */
export interface ProcFigures {
  readonly cpuUsPerUpdate: number;
  readonly coreShare: number;
}

export interface LatencyWindow {
  readonly rep: number;
  readonly rate: number;
  /** Updates the feed sent during the window. */
  readonly sent: number;
  /** At the window's end: updates sent that the relay had not published (acknowledged) yet. */
  readonly relayLag: number;
  /** ... and updates published that the bus consumer had not seen yet. */
  readonly busLag: number;
  readonly direct: ConsumerFigures;
  readonly bus: ConsumerFigures;
  /** The cheapest consumer (`bare`) in the same window. */
  readonly bare: ConsumerFigures;
  /** Bus messages per second the relay published in the window, and their mean payload bytes (seen by `bare`). */
  readonly messagesPerSec: number;
  readonly bytesPerMessage: number;
  readonly relay?: ProcFigures;
  readonly nats?: ProcFigures;
  /** Where the latency went, update by update (stageTrace.ts). */
  readonly stages?: Decomposition;
  /**
   * nats-server's own JetStream latency (natsProbe.ts at the window's message rate and size)
   * measured right after the window with the feed still running: under the load the bus runs in.
   */
  readonly natsLoaded?: { readonly p50Us: number; readonly p99Us: number };
}

/** nats-server's own JetStream latency, publish -> delivery (natsProbe.ts), at a rate's message rate and size. */
export interface NatsFloor {
  readonly messagesPerSec: number;
  readonly bytes: number;
  /** Median over the probe's repetitions, µs, and their range. */
  readonly p50Us: number;
  readonly p50Range: Range;
  readonly p99Us: number;
  readonly p99Range: Range;
  readonly messages: number;
}

/** The latency pass at one rate: medians over repetitions, the bus's cost within each window. */
export interface BusRateRow {
  readonly rate: number;
  readonly reps: number;
  readonly direct: ConsumerFigures;
  readonly bus: ConsumerFigures;
  /** Bus p50 - direct p50 (µs), median over the windows, and its range. */
  readonly addedP50Us: number;
  readonly addedP50Range: Range;
  readonly addedP99Us: number;
  readonly addedP99Range: Range;
  /** Bus CPU per update / direct CPU per update, median over the windows, and its range. */
  readonly cpuRatio: number;
  readonly cpuRatioRange: Range;
  /** The cheapest consumer's figures, and bus CPU per update / its CPU per update (median over the windows, range). */
  readonly bare: ConsumerFigures;
  readonly cpuVsBare: number;
  readonly cpuVsBareRange: Range;
  /** nats-server's own latency at this rate's message rate and size (the floor pass). */
  readonly natsFloor?: NatsFloor;
  /** ... and measured with the feed running, right after each window (median over the windows, range). */
  readonly natsLoaded?: { readonly p50Us: number; readonly p50Range: Range; readonly p99Us: number; readonly p99Range: Range };
  /** The cheapest consumer's latency (feed send -> decode, same windows) minus the direct client's: p50 and p99, median over the windows, range. */
  readonly bareAddedP50Us: number;
  readonly bareAddedP50Range: Range;
  readonly bareAddedP99Us: number;
  readonly bareAddedP99Range: Range;
  /** The windows' decompositions, each stage's figure the median over the windows. */
  readonly stages?: Decomposition;
  /** Median backlogs at the windows' ends (see `LatencyWindow`). */
  readonly relayLag: number;
  readonly busLag: number;
  readonly relay?: ProcFigures;
  readonly nats?: ProcFigures;
}

export interface BusFanoutRow {
  readonly consumers: number;
  readonly rate: number;
  readonly reps: number;
  readonly relay?: ProcFigures;
  readonly natsRange?: Range;
  readonly nats?: ProcFigures;
  /** Median over every bus consumer and window. */
  readonly consumer: ConsumerFigures;
  readonly direct: ConsumerFigures;
}

export interface ExactnessRow {
  readonly name: string;
  readonly seq: number;
  readonly exact: boolean;
  /** Resyncs of its replica over the run, and their codes (a replica that resynced can still end exact). */
  readonly resyncs: number;
  readonly resyncCodes: readonly string[];
  readonly error?: string;
}

export interface BusBenchResult {
  readonly config: BusSizes;
  /** JetStream storage of the relay's stream and bucket in this run. */
  readonly storage: 'file' | 'memory';
  readonly latency: BusRateRow[];
  readonly windows: LatencyWindow[];
  readonly fanout: BusFanoutRow[];
  /** Updates sent in all; the relay's last published seq. */
  readonly sent: number;
  readonly relayPublishedSeq: string | null;
  /** Times the relay (re)synced its stream from a snapshot (1: never broke an epoch). */
  readonly relaySyncs: number;
  /** Updates per bus message the relay published over the run (its batches, see src/nats/busProtocol.ts). */
  readonly relayUpdatesPerMessage: number;
  readonly exactness: ExactnessRow[];
  /** Every consumer exact at the end, the relay at the last seq, the stream long enough, every window caught up. */
  readonly correct: boolean;
  readonly errors: string[];
  readonly durationSec: number;
}

const HERE = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const PREFIX = 'bench';
const READY_MS = 90_000;
const ASK_MS = 30_000;
const CATCH_UP_MS = 30_000;
/**
 * Profiling: `BUS_BENCH_CPU_PROF=<dir>` runs the relay and the first two consumers under
 * `--cpu-prof` (.cpuprofile files in <dir>/relay, <dir>/direct, <dir>/bus, written when they exit;
 * the largest one of a directory is the main thread's, the others tsx's loader thread).
 */
const profDir = process.env['BUS_BENCH_CPU_PROF'];
/** `BUS_BENCH_TRACE_GC=1`: the relay and the consumers run with `--trace-gc` (their lines on this process's stdout, each with its pid). */
const profFlags = (name: string): string[] => [...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}/${name}`] : []), ...(process.env['BUS_BENCH_TRACE_GC'] ? ['--trace-gc'] : [])];

/** Room per window beyond warm-up and window (IPC round trips, rate switches). */
const SLACK_MS = 700;

/** Frames the run needs at most, with a margin: the feed's stream is made once, up front. */
export function framesNeeded(c: BusSizes): number {
  // Each latency window is followed by the loaded probe (windowMs more, the feed still running).
  const latency = c.reps * c.rates.reduce((a, r) => a + (r * (c.warmupMs + 2 * (c.windowMs + SLACK_MS))) / 1000, 0);
  const fanout = c.consumers.length * ((c.fanoutRate * (c.warmupMs + c.fanoutReps * (c.fanoutWindowMs + SLACK_MS))) / 1000);
  return Math.ceil((latency + fanout) * 2) + 1000;
}

const consumerFigures = (w: ConsumerWindow): ConsumerFigures => ({
  cpuUsPerUpdate: w.cpuUs / Math.max(1, w.updates),
  coreShare: w.cpuUs / w.wallUs,
  updates: w.updates,
  p50Us: w.p50Us,
  p99Us: w.p99Us,
  p999Us: w.p999Us,
  maxUs: w.maxUs,
});

/** The median of each figure over `xs`. */
function medianFigures(xs: readonly ConsumerFigures[]): ConsumerFigures {
  const m = (k: keyof ConsumerFigures) => median(xs.map((x) => x[k]));
  return { cpuUsPerUpdate: m('cpuUsPerUpdate'), coreShare: m('coreShare'), updates: m('updates'), p50Us: m('p50Us'), p99Us: m('p99Us'), p999Us: m('p999Us'), maxUs: Math.max(...xs.map((x) => x.maxUs)) };
}

function medianProc(xs: readonly (ProcFigures | undefined)[]): ProcFigures | undefined {
  const got = xs.filter((x): x is ProcFigures => x !== undefined);
  return got.length ? { cpuUsPerUpdate: median(got.map((x) => x.cpuUsPerUpdate)), coreShare: median(got.map((x) => x.coreShare)) } : undefined;
}

const rangeOf = (xs: readonly number[]): Range => ({ min: Math.min(...xs), max: Math.max(...xs) });

/** A measuring window over a set of consumers, the relay and nats-server. */
async function measure(feed: Feed, relay: Relay, consumers: readonly Consumer[], pids: { relay: number; nats: number }, windowMs: number) {
  const proc0 = { relay: procCpuUs(pids.relay), nats: procCpuUs(pids.nats) };
  const s0 = await feed.request({ cmd: 'count' }, 'count', ASK_MS);
  const t0 = process.hrtime.bigint();
  await Promise.all([relay.request({ cmd: 'window' }, 'started', ASK_MS), ...consumers.map((c) => c.request({ cmd: 'window' }, 'started', ASK_MS))]);
  await delay(windowMs);
  const windows = await Promise.all(consumers.map((c) => c.request({ cmd: 'report' }, 'window', ASK_MS)));
  const relayTrace = (await relay.request({ cmd: 'trace' }, 'trace', ASK_MS)).trace;
  const s1 = await feed.request({ cmd: 'count' }, 'count', ASK_MS);
  const published = Number((await relay.request({ cmd: 'describe' }, 'describe', ASK_MS)).publishedSeq ?? 0);
  const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
  const sent = s1.sent - s0.sent;
  const proc = (pid: number, before: number | undefined): ProcFigures | undefined => {
    const after = procCpuUs(pid);
    return before === undefined || after === undefined ? undefined : { cpuUsPerUpdate: (after - before) / Math.max(1, sent), coreShare: (after - before) / wallUs };
  };
  // Where a backlog sits at the window's end: updates sent but not yet published, published but not yet seen.
  const lag = { relay: Math.max(0, s1.sent - published), consumers: windows.map((w) => Math.max(0, published - w.seq)) };
  return { sent, lag, windows: windows.map(consumerFigures), raw: windows, relayTrace, relay: proc(pids.relay, proc0.relay), nats: proc(pids.nats, proc0.nats) };
}

export async function runBusBench(cfg: BusBenchConfig): Promise<BusBenchResult> {
  const log = cfg.log ?? (() => undefined);
  const t0 = Date.now();
  const { log: _log, storage: _storage, ...config } = cfg;
  const spec: StreamSpec = { levels: cfg.levels, frames: framesNeeded(cfg), seed: cfg.seed, focus: 'top' };
  const anchorNs = makeAnchorNs().toString();
  const errors: string[] = [];
  let nats: NatsServerProcess | undefined;
  let feed: Feed | undefined;
  let relay: Relay | undefined;
  const consumers: Consumer[] = [];
  try {
    nats = await NatsServerProcess.start();
    feed = await IpcChild.start<FeedCommand, FeedReply>(HERE('./feed.ts'), [JSON.stringify({ anchorNs, stream: spec })], 'feed', READY_MS);
    const port = feed.ready?.type === 'ready' && 'port' in feed.ready ? feed.ready.port : 0;
    const urls = { restUrl: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/ws`, natsUrl: nats.url, prefix: PREFIX };
    const relayArgs: RelayArgs = { ...urls, anchorNs, storage: cfg.storage ?? DEFAULT_STREAM_LIMITS.storage };
    relay = await IpcChild.start<RelayCommand, RelayReply>(HERE('./relayProcess.ts'), [JSON.stringify(relayArgs)], 'relay', READY_MS, [...profFlags('relay'), ...(process.env['BUS_BENCH_RELAY_FLAGS']?.split(' ').filter(Boolean) ?? [])]);
    const startConsumer = (mode: ConsumerArgs['mode'], flags: string[] = []) =>
      IpcChild.start<ConsumerCommand, ConsumerReply>(HERE('./consumer.ts'), [JSON.stringify({ mode, anchorNs, ...urls } satisfies ConsumerArgs)], `${mode} consumer`, READY_MS, flags);
    const [direct, firstBus, bare] = await Promise.all([startConsumer('direct', profFlags('direct')), startConsumer('bus', profFlags('bus')), startConsumer('bare')]);
    consumers.push(direct, firstBus, bare);
    log(`  bus: nats-server, feed (${spec.frames} frames), relay, direct client, a bus consumer and the bare consumer up (pids: relay ${relay.pid}, direct ${direct.pid}, bus ${firstBus.pid}, bare ${bare.pid})`);
    const pids = { relay: relay.pid, nats: nats.pid };

    // Latency and CPU per update: the direct client and one bus consumer in the same windows.
    const windows: LatencyWindow[] = [];
    for (let rep = 0; rep < cfg.reps; rep++) {
      const order = rep % 2 === 0 ? cfg.rates : [...cfg.rates].reverse();
      for (const rate of order) {
        // Each window starts with nothing in flight: a backlog of the one before is not this one's.
        await settle(feed, relay, consumers, errors);
        await feed.request({ cmd: 'start', rate }, 'started', ASK_MS);
        await delay(cfg.warmupMs);
        const m = await measure(feed, relay, [direct, firstBus, bare], pids, cfg.windowMs);
        const b = m.raw[2]!;
        const stages = decompose(m.relayTrace, b.trace, m.raw[1]!.trace, m.raw[0]!.trace);
        const messagesPerSec = (b.messages ?? 0) / (b.wallUs / 1e6);
        const bytesPerMessage = (b.bytes ?? 0) / Math.max(1, b.messages ?? 0);
        // nats-server's own latency under the same load: the probe right after the window, the feed still running.
        const loaded = messagesPerSec > 0 ? (await probeJetStream(nats.url, { rate: messagesPerSec, ms: cfg.windowMs, bytes: bytesPerMessage, mode: cfg.storage ?? DEFAULT_STREAM_LIMITS.storage })).sort((x, y) => x - y) : [];
        windows.push({
          rep,
          rate,
          sent: m.sent,
          relayLag: m.lag.relay,
          busLag: m.lag.consumers[1]!,
          direct: m.windows[0]!,
          bus: m.windows[1]!,
          bare: m.windows[2]!,
          messagesPerSec,
          bytesPerMessage,
          ...(m.relay ? { relay: m.relay } : {}),
          ...(m.nats ? { nats: m.nats } : {}),
          ...(stages ? { stages } : {}),
          ...(loaded.length > 0 ? { natsLoaded: { p50Us: percentileOf(loaded, 0.5), p99Us: percentileOf(loaded, 0.99) } } : {}),
        });
        const w = (f: ConsumerFigures) => `${f.p50Us.toFixed(0)}/${f.p99Us.toFixed(0)}`;
        const st = stages ? `; stages p50/p99: feed->relay publish ${st2(stages.toRelay)}, relay->bare ${st2(stages.relayToBare)}, relay->bus ${st2(stages.relayToBus)}; slowest 1% of bus: ${stages.slowest.toRelay.toFixed(0)} + ${stages.slowest.relayToBare.toFixed(0)} + ${stages.slowest.bareToBus.toFixed(0)} µs` : '';
        log(`  bus latency: repetition ${rep + 1}/${cfg.reps}, ${rate}/s: p50/p99 µs direct ${w(m.windows[0]!)}, bus ${w(m.windows[1]!)}, bare ${w(m.windows[2]!)}; nats-server under load ${loaded.length ? `${percentileOf(loaded, 0.5).toFixed(0)}/${percentileOf(loaded, 0.99).toFixed(0)}` : '-'}${st}`);
      }
    }
    await feed.request({ cmd: 'stop' }, 'count', ASK_MS);

    // Floor: nats-server's own JetStream latency at each rate's message rate and size, the feed paused.
    const floors = new Map<number, NatsFloor>();
    for (const rate of cfg.rates) {
      const ws = windows.filter((w) => w.rate === rate);
      const messagesPerSec = median(ws.map((w) => w.messagesPerSec));
      const bytes = median(ws.map((w) => w.bytesPerMessage));
      if (!(messagesPerSec > 0)) continue;
      const p50: number[] = [];
      const p99: number[] = [];
      let messages = 0;
      for (let rep = 0; rep < cfg.reps; rep++) {
        const lat = (await probeJetStream(nats.url, { rate: messagesPerSec, ms: cfg.windowMs, bytes, mode: cfg.storage ?? DEFAULT_STREAM_LIMITS.storage })).sort((x, y) => x - y);
        if (lat.length === 0) continue;
        p50.push(percentileOf(lat, 0.5));
        p99.push(percentileOf(lat, 0.99));
        messages += lat.length;
      }
      if (p50.length > 0) floors.set(rate, { messagesPerSec, bytes, p50Us: median(p50), p50Range: rangeOf(p50), p99Us: median(p99), p99Range: rangeOf(p99), messages });
      log(`  bus floor: nats-server alone at ${messagesPerSec.toFixed(0)} messages/s of ${bytes.toFixed(0)} B (${rate} updates/s): p50 ${median(p50).toFixed(0)} µs, p99 ${median(p99).toFixed(0)} µs`);
    }
    const latency = cfg.rates.map((rate) => latencyRow(rate, windows.filter((w) => w.rate === rate), floors.get(rate)));

    // Fan-out: relay and nats-server CPU with more and more bus consumers.
    const buses = [firstBus];
    const fanout: BusFanoutRow[] = [];
    for (const n of cfg.consumers) {
      const more = await Promise.all(Array.from({ length: Math.max(0, n - buses.length) }, () => startConsumer('bus')));
      buses.push(...more);
      consumers.push(...more);
      await settle(feed, relay, consumers, errors);
      await feed.request({ cmd: 'start', rate: cfg.fanoutRate }, 'started', ASK_MS);
      await delay(cfg.warmupMs);
      const runs = [];
      for (let rep = 0; rep < cfg.fanoutReps; rep++) runs.push(await measure(feed, relay, [direct, ...buses], pids, cfg.fanoutWindowMs));
      await feed.request({ cmd: 'stop' }, 'count', ASK_MS);
      fanout.push(fanoutRow(n, cfg.fanoutRate, runs));
      log(`  bus fan-out: ${n} consumer(s) at ${cfg.fanoutRate}/s done`);
    }

    // Exactness, the feed paused: everyone at the last seq, every book = the plain replay.
    const end = await settle(feed, relay, consumers, errors);
    if (end.exhausted) errors.push(`the feed ran out of frames (${end.sent}): the run took longer than planned`);
    const replay = new StreamReplay(makeDeltaStream({ ...spec, frames: end.sent }));
    const truth = replay.topAfter(end.sent, cfg.checkDepth);
    const named = [['direct', direct] as const, ...buses.map((b, i) => [`bus ${i + 1}`, b] as const)];
    const exactness = await Promise.all(named.map(([name, c]) => exactnessOf(name, c, end.sent, truth, cfg.checkDepth)));
    for (const e of exactness) if (!e.exact) errors.push(`${e.name}: ${e.error}`);
    const described = await relay.request({ cmd: 'describe' }, 'describe', ASK_MS);
    if (described.publishedSeq !== String(end.sent)) errors.push(`the relay published up to ${described.publishedSeq}, ${end.sent} were sent`);
    return { config, storage: cfg.storage ?? DEFAULT_STREAM_LIMITS.storage, latency, windows, fanout, sent: end.sent, relayPublishedSeq: described.publishedSeq, relaySyncs: described.syncs, relayUpdatesPerMessage: described.published / Math.max(1, described.messages), exactness, correct: errors.length === 0, errors, durationSec: (Date.now() - t0) / 1000 };
  } finally {
    await Promise.all(consumers.map((c) => c.close()));
    await relay?.close();
    await feed?.close();
    await nats?.stop();
  }
}

/**
 * Pauses the feed and waits (bounded) until the relay published every update sent and every
 * consumer saw it; a bound reached is an error of the run. Resolves with the feed's count.
 */
async function settle(feed: Feed, relay: Relay, consumers: readonly Consumer[], errors: string[]): Promise<Extract<FeedReply, { type: 'count' }>> {
  const end = await feed.request({ cmd: 'stop' }, 'count', ASK_MS);
  const deadline = Date.now() + CATCH_UP_MS;
  for (;;) {
    const published = Number((await relay.request({ cmd: 'describe' }, 'describe', ASK_MS)).publishedSeq ?? 0);
    const seqs = await Promise.all(consumers.map(async (c) => (await c.request({ cmd: 'state', depth: 0 }, 'state', ASK_MS)).seq));
    if (published >= end.sent && seqs.every((q) => q >= end.sent)) return end;
    if (Date.now() > deadline) {
      errors.push(`not caught up ${CATCH_UP_MS} ms after the feed paused at ${end.sent}: relay at ${published}, consumers at ${seqs.join(', ')}`);
      return end;
    }
    await delay(50);
  }
}

function latencyRow(rate: number, ws: readonly LatencyWindow[], natsFloor: NatsFloor | undefined): BusRateRow {
  const p50 = ws.map((w) => w.bus.p50Us - w.direct.p50Us);
  const p99 = ws.map((w) => w.bus.p99Us - w.direct.p99Us);
  const cpu = ws.map((w) => w.bus.cpuUsPerUpdate / w.direct.cpuUsPerUpdate);
  const vsBare = ws.map((w) => w.bus.cpuUsPerUpdate / w.bare.cpuUsPerUpdate);
  const relay = medianProc(ws.map((w) => w.relay));
  const nats = medianProc(ws.map((w) => w.nats));
  const bareP50 = ws.map((w) => w.bare.p50Us - w.direct.p50Us);
  const bareP99 = ws.map((w) => w.bare.p99Us - w.direct.p99Us);
  const loaded = ws.flatMap((w) => (w.natsLoaded ? [w.natsLoaded] : []));
  const stages = medianStages(ws.flatMap((w) => (w.stages ? [w.stages] : [])));
  return {
    rate,
    reps: ws.length,
    bareAddedP50Us: median(bareP50),
    bareAddedP50Range: rangeOf(bareP50),
    bareAddedP99Us: median(bareP99),
    bareAddedP99Range: rangeOf(bareP99),
    ...(loaded.length ? { natsLoaded: { p50Us: median(loaded.map((l) => l.p50Us)), p50Range: rangeOf(loaded.map((l) => l.p50Us)), p99Us: median(loaded.map((l) => l.p99Us)), p99Range: rangeOf(loaded.map((l) => l.p99Us)) } } : {}),
    ...(stages ? { stages } : {}),
    direct: medianFigures(ws.map((w) => w.direct)),
    bus: medianFigures(ws.map((w) => w.bus)),
    addedP50Us: median(p50),
    addedP50Range: rangeOf(p50),
    addedP99Us: median(p99),
    addedP99Range: rangeOf(p99),
    cpuRatio: median(cpu),
    cpuRatioRange: rangeOf(cpu),
    bare: medianFigures(ws.map((w) => w.bare)),
    cpuVsBare: median(vsBare),
    cpuVsBareRange: rangeOf(vsBare),
    ...(natsFloor ? { natsFloor } : {}),
    relayLag: median(ws.map((w) => w.relayLag)),
    busLag: median(ws.map((w) => w.busLag)),
    ...(relay ? { relay } : {}),
    ...(nats ? { nats } : {}),
  };
}

function fanoutRow(consumers: number, rate: number, runs: readonly Awaited<ReturnType<typeof measure>>[]): BusFanoutRow {
  const relay = medianProc(runs.map((r) => r.relay));
  const nats = medianProc(runs.map((r) => r.nats));
  const natsShares = runs.flatMap((r) => (r.nats ? [r.nats.cpuUsPerUpdate] : []));
  return {
    consumers,
    rate,
    reps: runs.length,
    ...(relay ? { relay } : {}),
    ...(nats ? { nats } : {}),
    ...(natsShares.length ? { natsRange: rangeOf(natsShares) } : {}),
    consumer: medianFigures(runs.flatMap((r) => r.windows.slice(1))),
    direct: medianFigures(runs.map((r) => r.windows[0]!)),
  };
}

async function exactnessOf(name: string, c: Consumer, sent: number, truth: ReturnType<StreamReplay['topAfter']>, depth: number): Promise<ExactnessRow> {
  const deadline = Date.now() + CATCH_UP_MS;
  for (;;) {
    const s = await c.request({ cmd: 'state', depth }, 'state', ASK_MS);
    if (s.seq >= sent || Date.now() > deadline) {
      const wrong = s.seq !== sent ? `at seq ${s.seq}, ${sent} were sent (status ${s.status}; ${s.errors.join('; ')})` : diffTop(s.top, truth);
      return { name, seq: s.seq, exact: wrong === undefined, resyncs: s.resyncs, resyncCodes: s.resyncCodes, ...(wrong ? { error: wrong } : {}) };
    }
    await delay(50);
  }
}

const st2 = (f: { p50Us: number; p99Us: number }) => `${f.p50Us.toFixed(0)}/${f.p99Us.toFixed(0)}`;

/** Each figure of the decompositions, the median over the windows. */
function medianStages(ds: readonly Decomposition[]): Decomposition | undefined {
  if (ds.length === 0) return undefined;
  const f = (k: 'toRelay' | 'relayToBare' | 'relayToBus' | 'bareToBus' | 'bare' | 'bus' | 'direct') => ({ p50Us: median(ds.map((d) => d[k].p50Us)), p99Us: median(ds.map((d) => d[k].p99Us)) });
  const s = (k: keyof Decomposition['slowest']) => median(ds.map((d) => d.slowest[k]));
  return {
    updates: median(ds.map((d) => d.updates)),
    toRelay: f('toRelay'),
    relayToBare: f('relayToBare'),
    relayToBus: f('relayToBus'),
    bareToBus: f('bareToBus'),
    bare: f('bare'),
    bus: f('bus'),
    direct: f('direct'),
    slowest: { toRelay: s('toRelay'), relayToBare: s('relayToBare'), bareToBus: s('bareToBus'), total: s('total') },
  };
}
