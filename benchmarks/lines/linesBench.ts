/**
 * A/B lines: the same feed to a one-line and a two-line `ExchangeClient` (`lines: 2`), with
 * random jitter added per connection by the simulator.
 *
 * Processes: the simulator (linesSim.ts) and each client (linesClient.ts) in its own process,
 * both clients connected to the same simulator at the same time and measured over the same
 * windows (one feed, one order flow, the same moments; each client's CPU its own). Both
 * replicate every market's book that changes (one the order flow never moves would be
 * resynced by its 30 s liveness window, in whichever client had not resynced it lately). The simulator delays every frame of every connection by a
 * uniform draw in [0, jitterMs) from that connection's own seeded generator
 * (`faults.delayFrames(0, { jitterMs })`, order kept on each connection, as TCP keeps it), so
 * the one-line client's connection and each line of the two-line client draw alike and
 * independently.
 *
 * Latency of an update = its emission by the client's replica minus the moment the simulator
 * published it (the hub event, before any delay; CLOCK_MONOTONIC, shared by the processes).
 * Not `timestamp_ns`: the simulator stamps a frame when it writes it, after the delay. The
 * physical floor of two lines: the two-line client's `receivedAtNs` minus the same event time,
 * i.e. the first arrival over its two sockets (what the better of two independent one-line
 * clients would see per update, as stamped in the same process). Per window: p50/p99 of each,
 * CPU per update (`process.cpuUsage()` over the window / updates emitted); ratios are taken
 * per window (paired: the same window for both) and their median and range reported.
 *
 * Profiles: `uniform` (jitter alone) and, when configured, `spikes` (the same jitter plus
 * random stalls of each connection on its own seeded Poisson schedule: a heavier tail).
 *
 * Drop phase (uniform jitter on): every `dropEveryMs` the one-line client's connection is
 * dropped, and half a period later one line of the two-line client (alternating A, B); each
 * drop waits for its replacement connection (subscribed again) before the next, which is how a
 * connection is attributed to its client. Snapshots fetched by each client are counted (snapshot
 * id changes of its books) with its resync counts. Both clients use
 * `connection.reconnect.stableAfterMs` = `stableAfterMs`: with the default (30 s) the backoff of a
 * line dropped every few seconds doubles at each drop (250 ms, 0.5, 1, 2, 4 s...) until one
 * line is still down when the other goes, which measures the backoff, not the arbitration.
 *
 * At the end the order flow is paused and every book of both clients must equal the truth.
 */
import { fileURLToPath } from 'node:url';
import { IpcChild } from '../bus/IpcChild';
import { delay, median, percentile } from '../lib/stats';
import { makeAnchorNs } from '../socket/wallClock';
import type { BookStream, ClientArgs, ClientCommand, ClientCounts, ClientReply, SimArgs, SimCommand, SimReply, SpikeSpec, WindowSamples } from './linesProtocol';

export interface LinesBenchConfig {
  /** Order-flow events per second of the simulator (every market's book changes with it). */
  readonly eventsPerSecond: number;
  readonly seed: number;
  /** Every frame of every connection delayed by a uniform draw in [0, jitterMs), per connection seeded. */
  readonly jitterMs: number;
  /** The second profile: the jitter plus random stalls of each connection (omitted: not run). */
  readonly spikes?: Omit<SpikeSpec, 'seed'>;
  readonly warmupMs: number;
  readonly windowMs: number;
  /** Windows per profile. */
  readonly reps: number;
  /** Drop phase: a drop of each client's connection (one line of the two-line client) this often. */
  readonly dropEveryMs: number;
  /** Drops of each client. */
  readonly drops: number;
  /** `connection.reconnect.stableAfterMs` of both clients. */
  readonly stableAfterMs: number;
  /** Levels a side compared with the truth at the end. */
  readonly checkDepth: number;
  readonly log?: (line: string) => void;
}

/** Latency percentiles of one window, µs. */
export interface Lat {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** A paired ratio over the windows: median and range. */
export interface Ratio {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface LinesWindow {
  readonly updatesPerSec: number;
  /** Emission - event: the one-line and the two-line client. */
  readonly one: Lat;
  readonly two: Lat;
  /** receivedAtNs - event: the one-line client's arrival, and the first arrival over the two lines (the floor). */
  readonly oneArrival: Lat;
  readonly floor: Lat;
  /** CPU µs per update emitted. */
  readonly oneCpuUs: number;
  readonly twoCpuUs: number;
  /** Share of a core. */
  readonly oneCore: number;
  readonly twoCore: number;
}

export interface LinesProfileResult {
  readonly id: 'uniform' | 'spikes';
  readonly label: string;
  readonly windows: LinesWindow[];
  /** Medians over the windows. */
  readonly one: Lat;
  readonly two: Lat;
  readonly oneArrival: Lat;
  readonly floor: Lat;
  readonly oneCpuUs: number;
  readonly twoCpuUs: number;
  readonly updatesPerSec: number;
  /** Two lines / one line, per window. */
  readonly p50: Ratio;
  readonly p99: Ratio;
  readonly cpu: Ratio;
  /** The floor / one line, per window (what no two-line client can beat). */
  readonly floorP50: Ratio;
  readonly floorP99: Ratio;
  /** Stalls the simulator injected during the profile (spikes). */
  readonly stalls: number;
}

export interface LinesDropSide {
  /** Snapshots applied over the phase (snapshot id changes of its books). */
  readonly snapshots: number;
  /** Snapshot requests sent over the phase (`/v1/orderBook`, counted in the client's `rest.fetch`). */
  readonly fetches: number;
  /** Resyncs started over the phase, by trigger (non-zero only). */
  readonly resyncs: Record<string, number>;
  /** Book emissions not `live` over the phase. */
  readonly notLive: number;
  /** Drop -> replacement connection subscribed again, ms (median). */
  readonly reconnectMs: number;
}

export interface LinesDropResult {
  readonly drops: number;
  readonly everyMs: number;
  readonly one: LinesDropSide;
  readonly two: LinesDropSide & { readonly resyncsAvoided: number; readonly gapsUnfilled: number; readonly lines: ClientCounts['lineStats']['lines'] };
}

export interface LinesBenchResult {
  readonly config: Omit<LinesBenchConfig, 'log'>;
  /** Books replicated by both clients. */
  readonly streams: number;
  /** Books left out: nothing published on them in the first second (a book the order flow does not change). */
  readonly quietBooks: string[];
  readonly profiles: LinesProfileResult[];
  readonly drop?: LinesDropResult;
  /** Simulator CPU share of a core over the measured windows. */
  readonly simulatorCore: number;
  readonly correct: boolean;
  readonly errors: string[];
}

const SIM_FILE = fileURLToPath(new URL('./linesSim.ts', import.meta.url));
const CLIENT_FILE = fileURLToPath(new URL('./linesClient.ts', import.meta.url));
const START_MS = 60_000;
const REPLY_MS = 30_000;
const LIVE_MS = 30_000;
const RECONNECT_MS = 15_000;
const TRUTH_MS = 20_000;
/** Books that published nothing this long after the simulator started are left out (the busy ones change every few ms; seed 1, 2000 events/s: at most 164 ms apart over 40 s). */
const QUIET_BOOK_MS = 1000;

type Sim = IpcChild<SimCommand, SimReply>;
type Client = IpcChild<ClientCommand, ClientReply>;

export async function runLinesBench(cfg: LinesBenchConfig): Promise<LinesBenchResult> {
  const log = cfg.log ?? (() => undefined);
  const errors: string[] = [];
  const baseHrNs = String(process.hrtime.bigint());
  const anchorNs = String(makeAnchorNs());
  const simArgs: SimArgs = { options: { seed: cfg.seed, eventsPerSecond: cfg.eventsPerSecond }, baseHrNs };
  const profiles: LinesProfileResult[] = [];
  let drop: LinesDropResult | undefined;
  let streams: BookStream[] = [];
  let quiet: string[] = [];
  let sim: Sim | undefined;
  const clients: Client[] = [];
  let simCpu = { us: 0, wallUs: 0 };
  try {
    // The three processes load at once; the clients connect one after the other, so each connection is known to be whose.
    const args = (lines: number): ClientArgs => ({ lines, anchorNs, baseHrNs, stableAfterMs: cfg.stableAfterMs });
    const starting = [1, 2].map((n) => IpcChild.start<ClientCommand, ClientReply>(CLIENT_FILE, [JSON.stringify(args(n))], `${n}-line client`, START_MS));
    const started = await Promise.allSettled([IpcChild.start<SimCommand, SimReply>(SIM_FILE, [JSON.stringify(simArgs)], 'lines simulator', START_MS), ...starting]);
    for (const r of started.slice(1)) if (r.status === 'fulfilled') clients.push(r.value as Client);
    if (started[0]!.status === 'fulfilled') sim = started[0]!.value;
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (!sim || clients.length !== 2) throw new Error('a process of the lines benchmark did not start');
    const [one, two] = clients;
    const { restUrl, wsUrl } = sim.ready as Extract<SimReply, { type: 'ready' }>;
    // A book the order flow never changes (seed 1: perp 2's) would be resynced by its liveness
    // window (30 s for books) in whichever client had not resynced it lately: not a line's doing.
    const { sinceStartMs } = await sim.request({ cmd: 'streams' }, 'streams', REPLY_MS);
    await delay(Math.max(0, QUIET_BOOK_MS - sinceStartMs));
    const all = (await sim.request({ cmd: 'streams' }, 'streams', REPLY_MS)).streams;
    streams = all.filter((s) => s.published > 0).map(({ key, market_type, market_id }) => ({ key, market_type, market_id }));
    quiet = all.filter((s) => s.published === 0).map((s) => s.key);
    if (streams.length === 0) throw new Error('no book changed in the first second');
    const connect = { cmd: 'connect', restUrl, wsUrl, streams } as const;
    const ids = new Set<number>();
    const newIds = async (): Promise<number[]> => {
      const conns = (await sim!.request({ cmd: 'connections' }, 'connections', REPLY_MS)).connections;
      const fresh = conns.filter((c) => !ids.has(c.id)).map((c) => c.id);
      for (const id of fresh) ids.add(id);
      return fresh;
    };
    await one!.request(connect, 'live', LIVE_MS);
    const oneIds = await newIds();
    await two!.request(connect, 'live', LIVE_MS);
    const twoIds = await newIds();
    if (oneIds.length !== 1 || twoIds.length !== 2) throw new Error(`expected 1 + 2 connections, saw ${oneIds.length} + ${twoIds.length}`);
    log(`  lines: ${streams.length} books, one-line client on connection ${oneIds[0]}, two-line client on ${twoIds.join(' and ')}; jitter U[0, ${cfg.jitterMs}) ms per connection`);
    await sim.request({ cmd: 'jitter', ms: 0, jitterMs: cfg.jitterMs }, 'ok', REPLY_MS);
    await delay(cfg.warmupMs);

    const simStats = () => sim!.request({ cmd: 'stats' }, 'stats', REPLY_MS);
    const s0 = await simStats();
    const w0 = process.hrtime.bigint();
    profiles.push(await runProfile('uniform', `jitter U[0, ${cfg.jitterMs}) ms per frame, each connection its own draws`, sim, one!, two!, streams, cfg, errors, log));
    if (cfg.spikes) {
      const sp = cfg.spikes;
      await sim.request({ cmd: 'spikes', spec: { ...sp, seed: cfg.seed ^ 0x5b1ce } }, 'ok', REPLY_MS);
      await delay(Math.min(cfg.warmupMs, 500));
      const st0 = (await simStats()).stalls;
      const label = `jitter U[0, ${cfg.jitterMs}) ms + each connection stalled ${sp.minMs}-${sp.maxMs} ms about every ${sp.meanEveryMs} ms (own seeded Poisson schedule)`;
      const p = await runProfile('spikes', label, sim, one!, two!, streams, cfg, errors, log);
      await sim.request({ cmd: 'spikes', spec: null }, 'ok', REPLY_MS);
      profiles.push({ ...p, stalls: (await simStats()).stalls - st0 });
    }
    const s1 = await simStats();
    simCpu = { us: s1.cpuUs - s0.cpuUs, wallUs: Number(process.hrtime.bigint() - w0) / 1000 };

    if (cfg.drops > 0) drop = await dropPhase(sim, one!, two!, oneIds[0]!, twoIds, ids, streams.length, cfg, errors, log);
    errors.push(...(await checkAtTruth(sim, [one!, two!], streams, cfg.checkDepth)));
    const end = await simStats();
    if (end.overflowDrops > 0) errors.push(`the simulator dropped ${end.overflowDrops} socket(s) for a full queue`);
    for (const [i, c] of [one!, two!].entries()) {
      const counts = (await c.request({ cmd: 'counts' }, 'counts', REPLY_MS)).counts;
      if (counts.errors.length) errors.push(`${i + 1}-line client: ${counts.errors.slice(0, 3).join('; ')}`);
    }
  } catch (e) {
    errors.push(e instanceof Error ? e.message : String(e));
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await sim?.close();
  }
  const expected = cfg.spikes ? 2 : 1;
  return {
    config: { eventsPerSecond: cfg.eventsPerSecond, seed: cfg.seed, jitterMs: cfg.jitterMs, ...(cfg.spikes ? { spikes: cfg.spikes } : {}), warmupMs: cfg.warmupMs, windowMs: cfg.windowMs, reps: cfg.reps, dropEveryMs: cfg.dropEveryMs, drops: cfg.drops, stableAfterMs: cfg.stableAfterMs, checkDepth: cfg.checkDepth },
    streams: streams.length,
    quietBooks: quiet,
    profiles,
    ...(drop ? { drop } : {}),
    simulatorCore: simCpu.wallUs > 0 ? simCpu.us / simCpu.wallUs : NaN,
    correct: errors.length === 0 && profiles.length === expected && profiles.every((p) => p.windows.length === cfg.reps) && (cfg.drops === 0 || drop !== undefined),
    errors,
  };
}

async function runProfile(
  id: LinesProfileResult['id'],
  label: string,
  sim: Sim,
  one: Client,
  two: Client,
  streams: readonly BookStream[],
  cfg: LinesBenchConfig,
  errors: string[],
  log: (line: string) => void,
): Promise<LinesProfileResult> {
  const windows: LinesWindow[] = [];
  for (let rep = 0; rep < cfg.reps; rep++) {
    await Promise.all([one.request({ cmd: 'start' }, 'started', REPLY_MS), two.request({ cmd: 'start' }, 'started', REPLY_MS)]);
    await delay(cfg.windowMs);
    const [a, b] = await Promise.all([one.request({ cmd: 'stop' }, 'window', REPLY_MS), two.request({ cmd: 'stop' }, 'window', REPLY_MS)]);
    if (a.updates === 0 || b.updates === 0) {
      errors.push(`${id} window ${rep + 1}: no update (one line ${a.updates}, two lines ${b.updates})`);
      continue;
    }
    const events = await eventTimes(sim, streams, [a.samples, b.samples]);
    const lat = (s: WindowSamples, field: 'emitNs' | 'recvNs', who: string): Lat => {
      const us: number[] = [];
      let missing = 0;
      for (let i = 0; i < s.seq.length; i++) {
        const at = events[s.stream[i]!]!.get(s.seq[i]!);
        if (at === undefined || Number.isNaN(at)) missing++;
        else us.push((s[field][i]! - at) / 1000);
      }
      if (missing > 0 && field === 'emitNs') errors.push(`${id} window ${rep + 1}: ${missing} update(s) of the ${who} client without a published event`);
      if (us.some((x) => x < 0)) errors.push(`${id} window ${rep + 1}: the ${who} client saw an update before it was published`);
      return { p50: percentile(us, 50), p99: percentile(us, 99), p999: percentile(us, 99.9), max: us.length ? Math.max(...us) : NaN };
    };
    const w: LinesWindow = {
      updatesPerSec: (a.updates * 1e6) / a.wallUs,
      one: lat(a.samples, 'emitNs', 'one-line'),
      two: lat(b.samples, 'emitNs', 'two-line'),
      oneArrival: lat(a.samples, 'recvNs', 'one-line'),
      floor: lat(b.samples, 'recvNs', 'two-line'),
      oneCpuUs: a.cpuUs / a.updates,
      twoCpuUs: b.cpuUs / b.updates,
      oneCore: a.cpuUs / a.wallUs,
      twoCore: b.cpuUs / b.wallUs,
    };
    windows.push(w);
    const ms = (x: number) => (x / 1000).toFixed(1);
    log(`  lines ${id} ${rep + 1}/${cfg.reps}: p50 ${ms(w.one.p50)} / ${ms(w.two.p50)} ms, p99 ${ms(w.one.p99)} / ${ms(w.two.p99)} ms (floor ${ms(w.floor.p99)}), CPU ${w.oneCpuUs.toFixed(1)} / ${w.twoCpuUs.toFixed(1)} µs/update (one / two lines), ${w.updatesPerSec.toFixed(0)} updates/s`);
  }
  const med = (f: (w: LinesWindow) => number) => median(windows.map(f));
  const medLat = (f: (w: LinesWindow) => Lat): Lat => ({ p50: med((w) => f(w).p50), p99: med((w) => f(w).p99), p999: med((w) => f(w).p999), max: Math.max(...windows.map((w) => f(w).max)) });
  const ratio = (f: (w: LinesWindow) => number): Ratio => {
    const rs = windows.map(f);
    return { median: median(rs), min: Math.min(...rs), max: Math.max(...rs) };
  };
  return {
    id,
    label,
    windows,
    one: medLat((w) => w.one),
    two: medLat((w) => w.two),
    oneArrival: medLat((w) => w.oneArrival),
    floor: medLat((w) => w.floor),
    oneCpuUs: med((w) => w.oneCpuUs),
    twoCpuUs: med((w) => w.twoCpuUs),
    updatesPerSec: med((w) => w.updatesPerSec),
    p50: ratio((w) => w.two.p50 / w.one.p50),
    p99: ratio((w) => w.two.p99 / w.one.p99),
    cpu: ratio((w) => w.twoCpuUs / w.oneCpuUs),
    floorP50: ratio((w) => w.floor.p50 / w.one.p50),
    floorP99: ratio((w) => w.floor.p99 / w.one.p99),
    stalls: 0,
  };
}

/** The publication time of every (stream, seq) the windows' samples name, per stream. */
async function eventTimes(sim: Sim, streams: readonly BookStream[], samples: readonly WindowSamples[]): Promise<Map<number, number>[]> {
  const out: Map<number, number>[] = [];
  for (let k = 0; k < streams.length; k++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of samples) {
      for (let i = 0; i < s.seq.length; i++) {
        if (s.stream[i] !== k) continue;
        lo = Math.min(lo, s.seq[i]!);
        hi = Math.max(hi, s.seq[i]!);
      }
    }
    const m = new Map<number, number>();
    if (lo <= hi) {
      const { times } = await sim.request({ cmd: 'events', key: streams[k]!.key, from: lo, to: hi }, 'events', REPLY_MS);
      times.forEach((t, i) => m.set(lo + i, t));
    }
    out.push(m);
  }
  return out;
}

async function dropPhase(
  sim: Sim,
  one: Client,
  two: Client,
  oneId: number,
  twoIds: number[],
  known: Set<number>,
  books: number,
  cfg: LinesBenchConfig,
  errors: string[],
  log: (line: string) => void,
): Promise<LinesDropResult | undefined> {
  const counts = async (c: Client) => (await c.request({ cmd: 'counts' }, 'counts', REPLY_MS)).counts;
  const [a0, b0] = [await counts(one), await counts(two)];
  const reconnect = { one: [] as number[], two: [] as number[] };
  /** Drops `id`; returns its replacement once it is subscribed to every book again. */
  const dropAndReplace = async (id: number, who: 'one' | 'two'): Promise<number> => {
    const t = performance.now();
    const { done } = await sim.request({ cmd: 'drop', id }, 'dropped', REPLY_MS);
    if (!done) throw new Error(`connection ${id} (${who === 'one' ? 'one-line client' : 'a line of the two-line client'}) was not open to drop`);
    while (performance.now() - t < RECONNECT_MS) {
      const conns = (await sim.request({ cmd: 'connections' }, 'connections', REPLY_MS)).connections;
      const fresh = conns.filter((c) => !known.has(c.id));
      if (fresh.length > 1) throw new Error(`${fresh.length} new connections at once: cannot tell whose`);
      if (fresh.length === 1 && fresh[0]!.keys.length >= books) {
        known.add(fresh[0]!.id);
        reconnect[who].push(performance.now() - t);
        return fresh[0]!.id;
      }
      await delay(10);
    }
    throw new Error(`no replacement of connection ${id} within ${RECONNECT_MS} ms`);
  };
  const t0 = performance.now();
  let oneConn = oneId;
  const lines = [...twoIds];
  try {
    for (let k = 0; k < cfg.drops; k++) {
      await delay(Math.max(0, t0 + k * cfg.dropEveryMs - performance.now()));
      oneConn = await dropAndReplace(oneConn, 'one');
      await delay(Math.max(0, t0 + (k + 0.5) * cfg.dropEveryMs - performance.now()));
      lines[k % 2] = await dropAndReplace(lines[k % 2]!, 'two');
    }
    await delay(cfg.dropEveryMs / 2);
    // The one-line client's last resync completes before the counts are read.
    const deadline = performance.now() + LIVE_MS;
    while (performance.now() < deadline) {
      const states = await Promise.all([one, two].map(async (c) => (await c.request({ cmd: 'books', depth: 0 }, 'books', REPLY_MS)).books));
      if (states.every((bs) => bs.every((b) => b.status === 'live'))) break;
      await delay(20);
    }
  } catch (e) {
    errors.push(`drop phase: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  const [a1, b1] = [await counts(one), await counts(two)];
  const side = (c0: ClientCounts, c1: ClientCounts, ms: number[]): LinesDropSide => {
    const resyncs: Record<string, number> = {};
    for (const [k, n] of Object.entries(c1.resyncs)) if (n - (c0.resyncs[k] ?? 0) > 0) resyncs[k] = n - (c0.resyncs[k] ?? 0);
    return { snapshots: c1.snapshots - c0.snapshots, fetches: c1.fetches - c0.fetches, resyncs, notLive: c1.notLive - c0.notLive, reconnectMs: median(ms) };
  };
  const result: LinesDropResult = {
    drops: cfg.drops,
    everyMs: cfg.dropEveryMs,
    one: side(a0, a1, reconnect.one),
    two: {
      ...side(b0, b1, reconnect.two),
      resyncsAvoided: b1.lineStats.resyncsAvoided - b0.lineStats.resyncsAvoided,
      gapsUnfilled: b1.lineStats.gapsUnfilled - b0.lineStats.gapsUnfilled,
      lines: b1.lineStats.lines,
    },
  };
  log(`  lines drops: ${cfg.drops} each, every ${cfg.dropEveryMs} ms: snapshots fetched ${result.one.fetches} (one line) / ${result.two.fetches} (two lines), applied ${result.one.snapshots} / ${result.two.snapshots}`);
  return result;
}

/** With the order flow paused, every book of every client at the truth's seq equals the truth. */
async function checkAtTruth(sim: Sim, clients: readonly Client[], streams: readonly BookStream[], depth: number): Promise<string[]> {
  await sim.request({ cmd: 'pause' }, 'ok', REPLY_MS);
  const errors: string[] = [];
  const truths: Extract<SimReply, { type: 'truthBook' }>[] = [];
  for (const s of streams) truths.push(await sim.request({ cmd: 'truthBook', market_type: s.market_type, market_id: s.market_id, depth }, 'truthBook', REPLY_MS));
  for (const [ci, c] of clients.entries()) {
    const who = `${ci + 1}-line client`;
    const deadline = performance.now() + TRUTH_MS;
    let books = (await c.request({ cmd: 'books', depth }, 'books', REPLY_MS)).books;
    while (books.some((b, i) => b.seq !== truths[i]!.seq || b.status !== 'live') && performance.now() < deadline) {
      await delay(20);
      books = (await c.request({ cmd: 'books', depth }, 'books', REPLY_MS)).books;
    }
    const same = (x: [string, string][], y: [string, string][]) => x.length === y.length && x.every((l, i) => l[0] === y[i]![0] && l[1] === y[i]![1]);
    books.forEach((b, i) => {
      const t = truths[i]!;
      if (b.seq !== t.seq || b.status !== 'live') errors.push(`${who}, ${streams[i]!.key}: ${b.status} at seq ${b.seq}, the truth at ${t.seq}`);
      else if (!same(b.bids, t.bids) || !same(b.asks, t.asks)) errors.push(`${who}, ${streams[i]!.key}: the book differs from the truth within ${depth} levels a side`);
    });
  }
  return errors;
}
