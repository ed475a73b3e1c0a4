/** The targets and the benchmark's own correctness checks, judged from the results. */
import { bookRatio, type BookBenchResult } from '../book/bookBench';
import type { BusBenchResult } from '../bus/busBench';
import { busChecks, busTargets } from '../bus/busReport';
import type { FanoutBenchResult } from '../fanout/fanoutBench';
import type { ResyncBenchResult } from '../resync/resyncBench';
import type { SimulatorThroughputResult } from '../simulatorThroughput';
import type { SocketBenchResult } from '../socket/socketBench';
import type { CheckOutcome, TargetOutcome } from './report';
import { fmt, fmtRatio } from './stats';

export const OURS = 'ours (OrderBook)';
export const CCXT = 'ccxt pro OrderBook';
/** Target: our book at least this many times faster than ccxt's, net of the loop. */
export const SPEEDUP_TARGET = 4;
/** Target: bytes per level at 10,000 levels a side. */
export const BYTES_PER_LEVEL_TARGET = 30;
/** Target: the client's own work in a resync of a 500-level book (median), in ms. */
export const RESYNC_CLIENT_MS_TARGET = 1;
/** Targets of the whole client path against the raw floor (ws + JSON.parse), at every rate and sender style: CPU per frame, latency p50 and p99. */
export const CLIENT_CPU_VS_FLOOR_TARGET = 0.9;
export const LATENCY_P50_VS_FLOOR_TARGET = 1.1;
export const LATENCY_P99_VS_FLOOR_TARGET = 1.3;
/** Target: fan-out CPU per frame (200 subscriptions on one connection) against a single subscription's. */
export const FANOUT_VS_SINGLE_TARGET = 1.5;

/** The results of the parts that ran. */
export interface PartResults {
  readonly book?: BookBenchResult;
  readonly socket?: SocketBenchResult;
  readonly resync?: ResyncBenchResult;
  readonly fanout?: FanoutBenchResult;
  readonly simulator?: SimulatorThroughputResult;
  readonly bus?: BusBenchResult;
}

/** Streams on which a float book cannot be right (prices beyond 2^53): their errors are the point. */
export const INEXACT_FOR_FLOATS = new Set(['exact']);

export function evaluateTargets(parts: PartResults): TargetOutcome[] {
  const out: TargetOutcome[] = [];
  const { book, resync, socket, bus, fanout } = parts;
  if (bus) out.push(...busTargets(bus));
  if (fanout) out.push(...fanoutTargets(fanout));
  if (socket) {
    for (const rate of socket.config.rates) {
      for (const style of socket.config.styles) {
        const cpu = (id: string) => socket.cpu.find((c) => c.rate === rate && c.style === style && c.scenario === id);
        const floor = cpu('parse');
        const client = cpu('client');
        if (floor && client) {
          const r = client.cpuUsPerFrame / floor.cpuUsPerFrame;
          out.push({ target: `client CPU/frame <= ${CLIENT_CPU_VS_FLOOR_TARGET}x the floor (ws + JSON.parse) at ${rate}/s, ${style} sender`, measured: `${fmtRatio(r)} (${fmt(client.cpuUsPerFrame)} vs ${fmt(floor.cpuUsPerFrame)} µs)`, met: r <= CLIENT_CPU_VS_FLOOR_TARGET });
        }
        const lf = socket.latency.find((l) => l.rate === rate && l.style === style && l.scenario === 'parse');
        const lc = socket.latency.find((l) => l.rate === rate && l.style === style && l.scenario === 'client');
        if (!lf || !lc) continue;
        const p50 = lc.p50Us / lf.p50Us;
        const p99 = lc.p99Us / lf.p99Us;
        out.push({ target: `client latency p50 <= ${LATENCY_P50_VS_FLOOR_TARGET}x the floor's at ${rate}/s, ${style} sender`, measured: `${fmtRatio(p50)} (${fmt(lc.p50Us)} vs ${fmt(lf.p50Us)} µs)`, met: p50 <= LATENCY_P50_VS_FLOOR_TARGET });
        out.push({ target: `client latency p99 <= ${LATENCY_P99_VS_FLOOR_TARGET}x the floor's at ${rate}/s, ${style} sender`, measured: `${fmtRatio(p99)} (${fmt(lc.p99Us)} vs ${fmt(lf.p99Us)} µs)`, met: p99 <= LATENCY_P99_VS_FLOOR_TARGET });
      }
    }
  }
  if (resync) {
    const m = resync.clientMs;
    out.push({ target: `resync client work < ${RESYNC_CLIENT_MS_TARGET} ms (median), ${resync.levels.bids}/${resync.levels.asks}-level book`, measured: `${fmt(m.p50, 3)} ms (p99 ${fmt(m.p99, 3)})`, met: m.p50 < RESYNC_CLIENT_MS_TARGET });
  }
  if (!book) return out;
  for (const stream of ['top', 'whole', 'numbers']) {
    for (const op of ['best', 'top10'] as const) {
      const r = bookRatio(book, stream, op, OURS, CCXT);
      if (r === undefined && !book.rows.some((x) => x.stream === stream)) continue;
      out.push({ target: `ours >= ${SPEEDUP_TARGET}x faster than ccxt, apply+${op}, stream ${stream}`, measured: fmtRatio(r), met: r !== undefined && r >= SPEEDUP_TARGET });
    }
  }
  const mem = book.memory.find((m) => m.book === OURS);
  if (mem) out.push({ target: `ours <= ${BYTES_PER_LEVEL_TARGET} bytes/level at ${book.config.memoryLevelsPerSide} levels a side`, measured: fmt(mem.bytesPerLevel), met: mem.bytesPerLevel <= BYTES_PER_LEVEL_TARGET });
  return out;
}

/** 200 subscriptions on one connection: CPU per frame against a single subscription's, by both pairings. */
function fanoutTargets(f: FanoutBenchResult): TargetOutcome[] {
  const out: TargetOutcome[] = [];
  const target = (against: string, r: number, single: number, note = '') => ({
    target: `fan-out (${f.subscriptions.total} subscriptions) CPU/frame <= ${FANOUT_VS_SINGLE_TARGET}x a single subscription's, ${against}`,
    measured: `${fmtRatio(r)} (${fmt(f.cpuUsPerFrame)} vs ${fmt(single)} µs)${note}`,
    met: r <= FANOUT_VS_SINGLE_TARGET,
  });
  const single = f.singleSubscription;
  if (single) out.push(target(`socket part at ${single.rate}/s, 1 ms bursts`, single.ratio, single.cpuUsPerFrame));
  const same = f.sameDelivery;
  if (same) {
    const range = `, ${fmtRatio(f.cpuUsPerFrame / Math.max(...same.samplesUs))}..${fmtRatio(f.cpuUsPerFrame / Math.min(...same.samplesUs))} over its windows`;
    out.push(target(`fed alike (${same.rate}/s, ${same.tickMs} ms bursts)`, same.ratio, same.cpuUsPerFrame, range));
  }
  return out;
}

export function evaluateChecks(parts: PartResults): CheckOutcome[] {
  const { book, socket, resync, fanout, simulator } = parts;
  const out: CheckOutcome[] = [];
  for (const row of book?.rows ?? []) {
    if (row.book === 'no-op') continue;
    const floatOnExact = INEXACT_FOR_FLOATS.has(row.stream) && !row.book.startsWith('ours');
    if (floatOnExact) {
      // Not a failure of the benchmark: the check did its job if it caught the rounding.
      out.push({ check: `book ${row.stream}/${row.op}: ${row.book} (float prices beyond 2^53)`, ok: true, detail: row.correct ? 'happened to match' : `wrong as expected, excluded: ${row.error}` });
      continue;
    }
    out.push({ check: `book ${row.stream}/${row.op}: ${row.book} top levels = plain replay`, ok: row.correct, ...(row.error ? { detail: row.error } : {}) });
  }
  for (const c of socket?.cpu ?? []) out.push({ check: `socket cpu ${c.rate}/s ${c.style} ${c.scenario}: every frame handled, state = replay`, ok: c.correct, ...(c.errors.length ? { detail: c.errors.join('; ') } : {}) });
  for (const l of socket?.latency ?? []) {
    out.push({ check: `socket latency ${l.rate}/s ${l.style} ${l.scenario}: every frame handled, state = replay`, ok: l.correct, ...(l.errors.length ? { detail: l.errors.join('; ') } : {}) });
    out.push({ check: `socket latency ${l.rate}/s ${l.style} ${l.scenario}: latencies recorded`, ok: l.count > 0 });
  }
  if (resync) {
    out.push({
      check: `resync: ${resync.config.repetitions} resyncs, each one trigger and one snapshot fetch, book = truth at the end`,
      ok: resync.correct,
      ...(resync.errors.length ? { detail: resync.errors.slice(0, 3).join('; ') } : {}),
    });
  }
  if (fanout) {
    out.push({
      check: `fan-out: ${fanout.subscriptions.total} subscriptions live throughout, no resync/drop/gap, replicas at the truth's seq, books = truth`,
      ok: fanout.correct,
      ...(fanout.errors.length ? { detail: fanout.errors.slice(0, 3).join('; ') } : {}),
    });
  }
  for (const r of simulator?.rows ?? []) out.push({ check: `simulator throughput ${r.levelsPerSide} level(s) a side: frames delivered`, ok: r.frames > 0 });
  if (parts.bus) out.push(...busChecks(parts.bus));
  return out;
}
