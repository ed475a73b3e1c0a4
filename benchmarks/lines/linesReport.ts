/** The lines part of the report: its markdown section, its rows of the targets table and its correctness checks. */
import type { CheckOutcome, TargetOutcome } from '../lib/report';
import { fmt, fmtRatio, median } from '../lib/stats';
import type { Lat, LinesBenchResult, LinesProfileResult, Ratio } from './linesBench';

/** Targets of the issue: two lines against one on the same jittered feed. */
export const LINES_P99_TARGET = 0.6;
export const LINES_P50_TARGET = 1.0;
export const LINES_CPU_TARGET = 1.3;

const table = (head: string[], rows: string[][]) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const ms = (us: number) => fmt(us / 1000, 2);
const range = (r: Ratio) => `${fmtRatio(r.min)}..${fmtRatio(r.max)}`;

export function linesTargets(r: LinesBenchResult): TargetOutcome[] {
  const out: TargetOutcome[] = [];
  for (const p of r.profiles) {
    const what = p.id === 'uniform' ? `jitter U[0, ${r.config.jitterMs}) ms per connection` : 'jitter + random stalls per connection';
    const lat = (q: 'p50' | 'p99', target: number) => {
      const ratio = p[q];
      const floor = q === 'p50' ? p.floorP50 : p.floorP99;
      out.push({
        target: `two lines: latency ${q} <= ${target}x one line's, ${what}`,
        measured: `${fmtRatio(ratio.median)} (range ${range(ratio)}; ${ms(p.two[q])} vs ${ms(p.one[q])} ms; floor, first arrival of two lines: ${fmtRatio(floor.median)})`,
        met: ratio.median <= target,
      });
    };
    lat('p99', LINES_P99_TARGET);
    lat('p50', LINES_P50_TARGET);
    if (p.id === 'uniform') {
      out.push({ target: `two lines: CPU/update <= ${LINES_CPU_TARGET}x one line's, ${what}`, measured: `${fmtRatio(p.cpu.median)} (range ${range(p.cpu)}; ${fmt(p.twoCpuUs, 2)} vs ${fmt(p.oneCpuUs, 2)} µs)`, met: p.cpu.median <= LINES_CPU_TARGET });
    }
  }
  const d = r.drop;
  if (d) {
    out.push({
      target: `two lines: no snapshot fetched with one line dropped every ${d.everyMs / 1000} s (${d.drops} drops; ${r.streams} books)`,
      measured: `${d.two.fetches} fetched, ${d.two.snapshots} applied (one-line client: ${d.one.fetches} fetched, ${d.one.snapshots} applied)`,
      met: d.two.fetches === 0 && d.two.snapshots === 0,
    });
  }
  return out;
}

export function linesChecks(r: LinesBenchResult): CheckOutcome[] {
  return [
    {
      check: `lines: ${r.profiles.length} profile(s) x ${r.config.reps} windows measured, every update matched to its published event, ${r.config.drops} drops of each client each replaced, both clients' books = truth at the end, no queue overflow`,
      ok: r.correct,
      ...(r.errors.length ? { detail: r.errors.slice(0, 3).join('; ') } : {}),
    },
  ];
}

const latCells = (l: Lat) => [ms(l.p50), ms(l.p99), ms(l.p999), ms(l.max)];

function profileSection(p: LinesProfileResult, r: LinesBenchResult): string[] {
  const n = p.windows.length;
  const spread = (f: (w: LinesProfileResult['windows'][number]) => number) => {
    const xs = p.windows.map(f);
    return n ? `${ms(Math.min(...xs))}..${ms(Math.max(...xs))}` : '-';
  };
  const out = ['', `### ${p.id}: ${p.label}`, ''];
  out.push(
    table(
      ['client (latency = state emitted - update published)', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'p50 over windows', 'p99 over windows', 'CPU µs/update', 'core share'],
      [
        ['one line', ...latCells(p.one), spread((w) => w.one.p50), spread((w) => w.one.p99), fmt(p.oneCpuUs, 2), `${fmt(median(p.windows.map((w) => w.oneCore)) * 100, 1)}%`],
        ['two lines', ...latCells(p.two), spread((w) => w.two.p50), spread((w) => w.two.p99), fmt(p.twoCpuUs, 2), `${fmt(median(p.windows.map((w) => w.twoCore)) * 100, 1)}%`],
        ['one line, arrival (receivedAtNs)', ...latCells(p.oneArrival), spread((w) => w.oneArrival.p50), spread((w) => w.oneArrival.p99), '', ''],
        ['floor: first arrival over the two lines (receivedAtNs)', ...latCells(p.floor), spread((w) => w.floor.p50), spread((w) => w.floor.p99), '', ''],
      ],
    ),
  );
  out.push(
    '',
    `Two lines / one line, per window (median, range over ${n}): p50 ${fmtRatio(p.p50.median)} (${range(p.p50)}), p99 ${fmtRatio(p.p99.median)} (${range(p.p99)}), CPU/update ${fmtRatio(p.cpu.median)} (${range(p.cpu)}). The floor / one line: p50 ${fmtRatio(p.floorP50.median)}, p99 ${fmtRatio(p.floorP99.median)} (${range(p.floorP99)}). ${fmt(p.updatesPerSec, 0)} updates/s over ${r.streams} books${p.id === 'spikes' ? `; ${p.stalls} stalls injected over the profile` : ''}.`,
  );
  return out;
}

export function renderLines(r: LinesBenchResult): string {
  const c = r.config;
  const out: string[] = [];
  out.push(
    `## A/B lines: one-line and two-line client on the same jittered feed (simulator at ${c.eventsPerSecond} events/s and each client in its own process, both connected at once and measured over the same ${c.reps} windows of ${c.windowMs} ms; medians over the windows, max = largest seen)`,
  );
  const quiet = r.quietBooks.length ? ` (left out, nothing published on it in the first second: ${r.quietBooks.join(', ')})` : '';
  out.push('', `Every market's book that changes: ${r.streams}${quiet}. Simulator CPU over the windows: ${fmt(r.simulatorCore * 100, 0)}% of a core.`);
  for (const p of r.profiles) out.push(...profileSection(p, r));
  const d = r.drop;
  if (d) {
    out.push('', `### Drops: every ${d.everyMs} ms the one-line client's connection, half a period later one line of the two-line client (A, B, A, ...); ${d.drops} each; jitter on; reconnect.stableAfterMs ${c.stableAfterMs} ms for both`, '');
    const resyncs = (x: Record<string, number>) => Object.entries(x).map(([k, n]) => `${k} ${n}`).join(', ') || 'none';
    out.push(
      table(
        ['client', 'snapshots fetched', 'snapshots applied', 'resyncs by trigger', 'book emissions not live', 'drop -> resubscribed (median ms)'],
        [
          ['one line', String(d.one.fetches), String(d.one.snapshots), resyncs(d.one.resyncs), String(d.one.notLive), fmt(d.one.reconnectMs, 0)],
          ['two lines', String(d.two.fetches), String(d.two.snapshots), resyncs(d.two.resyncs), String(d.two.notLive), fmt(d.two.reconnectMs, 0)],
        ],
      ),
    );
    out.push('', `Two-line client over the whole run: ${d.two.lines.map((l, i) => `line ${'AB'[i] ?? i + 1} ${l.state}, won ${l.won}, late ${l.late}, holes filled ${l.gapsFilled}`).join('; ')}; in the drop phase resyncs avoided ${d.two.resyncsAvoided}, holes unfilled ${d.two.gapsUnfilled}.`);
  }
  if (!r.correct) out.push('', `**Not correct:** ${r.errors.slice(0, 5).join('; ')}`);
  return out.join('\n');
}
