/** The benchmark report: the result object, its markdown rendering and the files of a run. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BookBenchResult } from '../book/bookBench';
import type { BusBenchResult } from '../bus/busBench';
import { renderBus } from '../bus/busReport';
import type { FanoutBenchResult } from '../fanout/fanoutBench';
import type { ResyncBenchResult } from '../resync/resyncBench';
import type { SimulatorThroughputResult } from '../simulatorThroughput';
import type { SocketBenchResult } from '../socket/socketBench';
import type { MachineHeader } from './machine';
import { renderFanout, renderResync, renderSimulator } from './reportParts';
import { fmt, fmtRatio } from './stats';

export interface TargetOutcome {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

export interface CheckOutcome {
  readonly check: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export interface BenchReport {
  readonly mode: 'full' | 'quick';
  readonly header: MachineHeader;
  readonly durationSec: number;
  readonly book?: BookBenchResult;
  readonly socket?: SocketBenchResult;
  readonly resync?: ResyncBenchResult;
  readonly fanout?: FanoutBenchResult;
  readonly simulator?: SimulatorThroughputResult;
  readonly bus?: BusBenchResult;
  readonly targets: TargetOutcome[];
  readonly checks: CheckOutcome[];
  /** Every correctness check of the benchmark passed. */
  readonly checksPassed: boolean;
}

const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

export function renderMarkdown(r: BenchReport): string {
  const h = r.header;
  const out: string[] = [];
  out.push(`# Benchmark run (${r.mode}), ${h.date}`);
  out.push('');
  out.push(`${h.cpuModel}, ${h.cores} cores, ${h.totalMemoryMiB} MiB, load average ${h.loadAverage.join(' ')}; ${h.platform}; Node ${h.node} (V8 ${h.v8})  `);
  out.push(`packages: ${Object.entries(h.packages).map(([k, v]) => `${k} ${v}`).join(', ')}  `);
  out.push(`duration: ${r.durationSec.toFixed(0)} s`);
  if (r.book) {
    const b = r.book;
    out.push('', `## Book reducer (${b.config.levels} levels a side, ${b.config.frames} frames, median of ${b.config.reps} interleaved runs, ns/frame net of the no-op loop)`, '');
    const rows = b.rows.filter((x) => x.book !== 'no-op');
    const streams = [...new Set(rows.map((x) => x.stream))];
    const books = [...new Set(rows.map((x) => `${x.stream}\u0000${x.book}`))];
    out.push(
      table(
        ['stream', 'book', 'apply+best', 'apply+top10', 'correct'],
        books.map((sb) => {
          const [stream, book] = sb.split('\u0000') as [string, string];
          const best = rows.find((x) => x.stream === stream && x.book === book && x.op === 'best');
          const top = rows.find((x) => x.stream === stream && x.book === book && x.op === 'top10');
          const ok = best?.correct && top?.correct;
          return [stream, book, fmt(best?.netNs), fmt(top?.netNs), ok ? 'yes' : `NO: ${best?.error ?? top?.error}`];
        }),
      ),
    );
    const noop = b.rows.filter((x) => x.book === 'no-op');
    out.push('', `no-op loop (subtracted): ${streams.map((s) => `${s} ${noop.filter((x) => x.stream === s).map((x) => `${x.op} ${fmt(x.grossNs)}`).join(', ')}`).join('; ')} ns/frame`);
    out.push('', `Bytes per level at ${b.config.memoryLevelsPerSide} levels a side:`, '');
    out.push(table(['book', 'bytes/level'], b.memory.map((m) => [m.book, fmt(m.bytesPerLevel)])));
  }
  if (r.socket) {
    const s = r.socket;
    out.push('', `## Socket path: client CPU per frame at fixed rates (sender in another process, batched = one write per 1 ms tick, perFrame = one write per frame; median of ${s.config.reps} interleaved runs, ${s.config.windowMs} ms windows)`, '');
    const floor = s.cpu[0]?.scenario;
    out.push(
      table(
        ['rate/s', 'sender', 'scenario', 'CPU µs/frame', 'vs floor', 'core share', 'handled/s', 'correct'],
        s.cpu.map((c) => {
          const f = s.cpu.find((x) => x.rate === c.rate && x.style === c.style && x.scenario === floor);
          return [String(c.rate), c.style, c.label, fmt(c.cpuUsPerFrame, 2), fmtRatio(f ? c.cpuUsPerFrame / f.cpuUsPerFrame : undefined), `${fmt(c.coreShare * 100, 0)}%`, fmt(c.handledPerSec, 0), c.correct ? 'yes' : `NO: ${c.errors[0]}`];
        }),
      ),
    );
    out.push('', `## Latency, send to state seen (µs; median over ${s.config.reps} interleaved runs of ${s.config.latencyWindowMs} ms windows; max = largest seen)`, '');
    out.push(
      table(
        ['rate/s', 'sender', 'scenario', 'frames', 'p50', 'p99', 'p99.9', 'max', 'p50 vs floor', 'p99 vs floor', 'correct'],
        s.latency.map((l) => {
          const f = s.latency.find((x) => x.rate === l.rate && x.style === l.style && x.scenario === floor);
          return [String(l.rate), l.style, l.label, String(l.count), fmt(l.p50Us), fmt(l.p99Us), fmt(l.p999Us), fmt(l.maxUs, 0), fmtRatio(f ? l.p50Us / f.p50Us : undefined), fmtRatio(f ? l.p99Us / f.p99Us : undefined), l.correct ? 'yes' : `NO: ${l.errors[0]}`];
        }),
      ),
    );
  }
  if (r.resync) out.push(...renderResync(r.resync, table));
  if (r.fanout) out.push(...renderFanout(r.fanout, table));
  if (r.simulator) out.push(...renderSimulator(r.simulator, table));
  if (r.bus) out.push(...renderBus(r.bus, table));
  out.push('', '## Targets', '');
  out.push(table(['target', 'measured', 'met'], r.targets.map((t) => [t.target, t.measured, t.met ? 'yes' : 'NO'])));
  out.push('', `## Correctness checks: ${r.checksPassed ? 'all passed' : 'FAILED'}`, '');
  out.push(table(['check', 'ok', 'detail'], r.checks.map((c) => [c.check, c.ok ? 'yes' : 'NO', c.detail ?? ''])));
  return out.join('\n') + '\n';
}

/** Writes `<stem>.json` and `<stem>.md` into `dir` (stem: `bench-<mode>-<date>`); returns their paths. */
export function writeReport(dir: string, r: BenchReport, markdown: string): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const stem = `bench-${r.mode}-${r.header.date.replace(/[:.]/g, '-')}`;
  const json = join(dir, `${stem}.json`);
  const md = join(dir, `${stem}.md`);
  writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  writeFileSync(md, markdown);
  return { json, md };
}
