/** The soak's summary: the numbers a run produced, its verdict and the markdown table. */
import type { ResyncTrigger } from '../../src';
import type { LedgerFindings } from '../helpers/truth';
import { percentile } from './RecoveryTracker';

/** The key of an error in the soak's counts: its code, and for a REST error the server's code too (`ERR_REST_API(INTERNAL_ERROR)`). */
export function errorKey(e: { readonly code: string; readonly serverCode?: unknown }): string {
  return e.code === 'ERR_REST_API' ? `ERR_REST_API(${String(e.serverCode)})` : e.code;
}

/** Errors the client reports that are expected consequences of the injected faults, by {@link errorKey}. */
export const EXPECTED_ERROR_CODES: Readonly<Record<string, string>> = {
  'ERR_REST_API(INTERNAL_ERROR)': 'an injected REST 500 that outlasted the snapshot retries (the replica asks again later)',
  ERR_SNAPSHOT_BEHIND: 'a snapshot older than updates buffered after a skip (retried with a newer snapshot)',
};

interface Snapshot {
  readonly heapUsed: number;
  readonly handles: Record<string, number>;
}

export interface SoakInputs {
  readonly seed: number;
  readonly durationMs: number;
  readonly replicas: number;
  readonly faults: Record<string, number>;
  readonly faultsSkipped: number;
  readonly overflowDrops: number;
  readonly heartbeatCloses: number;
  readonly resyncs: Record<ResyncTrigger, number>;
  readonly recoveries: { kind: string; ms: number | undefined; visible: boolean }[];
  readonly episodes: number;
  readonly checkpoints: { atMs: number; waitedMs: number; divergences: number; notConverged: number }[];
  readonly divergences: string[];
  readonly events: LedgerFindings;
  readonly unhandled: string[];
  readonly errors: Record<string, number>;
  readonly unexpectedErrors: string[];
  readonly start: Snapshot;
  readonly end: Snapshot;
}

export interface SoakReport extends SoakInputs {
  /** Divergences plus replicas not converged at a checkpoint. */
  readonly divergenceCount: number;
  /** Unhandled rejections/exceptions plus client errors that no injected fault explains. */
  readonly unhandledCount: number;
  /** Duplicate, missing, mismatched or unknown events. */
  readonly eventProblems: number;
  /** Recovery times (ms) of faults with a visible effect: median, p99, max. */
  readonly recovery: { count: number; visible: number; unrecovered: number; median?: number; p99?: number; max?: number };
  /** True when the run found nothing wrong. */
  readonly ok: boolean;
  readonly markdown: string;
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
const ms = (v: number | undefined) => (v === undefined ? 'n/a' : `${Math.round(v)} ms`);
const total = (h: Record<string, number>) => Object.values(h).reduce((a, b) => a + b, 0);
const handleList = (h: Record<string, number>) => Object.entries(h).sort().map(([k, v]) => `${k} ${v}`).join(', ') || 'none';

export function summarize(r: SoakInputs): SoakReport {
  const times = r.recoveries.filter((x) => x.visible && x.ms !== undefined).map((x) => x.ms!);
  const recovery = {
    count: r.recoveries.length,
    visible: r.recoveries.filter((x) => x.visible).length,
    unrecovered: r.recoveries.filter((x) => x.ms === undefined).length,
    median: percentile(times, 50),
    p99: percentile(times, 99),
    max: times.length ? Math.max(...times) : undefined,
  };
  const divergenceCount = r.divergences.length;
  const unhandledCount = r.unhandled.length + r.unexpectedErrors.length;
  const eventProblems = r.events.duplicates + r.events.missing + r.events.mismatched + r.events.unknown;
  const ok = divergenceCount === 0 && unhandledCount === 0 && eventProblems === 0;
  const report = { ...r, divergenceCount, unhandledCount, eventProblems, recovery, ok };
  return { ...report, markdown: markdown(report) };
}

function markdown(r: Omit<SoakReport, 'markdown'>): string {
  const lines: string[] = [];
  const row = (...cells: (string | number)[]) => lines.push(`| ${cells.join(' | ')} |`);
  lines.push(`# Soak: seed ${r.seed}, ${(r.durationMs / 60_000).toFixed(1)} min, ${r.replicas} replicas on one client`, '');
  lines.push(`Verdict: **${r.ok ? 'PASS' : 'FAIL'}**`, '');
  lines.push('| measure | value |', '| --- | --- |');
  row('divergences (live at the truth sequence but different, or not live within the bound)', `**${r.divergenceCount}**`);
  row('unhandled errors (process + unexpected client errors)', `**${r.unhandledCount}**`);
  row('duplicate / missing / mismatched / unknown events', `**${r.events.duplicates} / ${r.events.missing} / ${r.events.mismatched} / ${r.events.unknown}**`);
  row('events checked against the truth / covered by gap markers', `${r.events.checked} / ${r.events.gapped}`);
  row('checkpoints (engine paused, every replica compared)', r.checkpoints.length);
  row('checkpoint wait for all-live at the truth sequence: median / max', `${ms(percentile(r.checkpoints.map((c) => c.waitedMs), 50))} / ${ms(Math.max(0, ...r.checkpoints.map((c) => c.waitedMs)))}`);
  row('time from fault to all-live: median / p99 / max', `${ms(r.recovery.median)} / ${ms(r.recovery.p99)} / ${ms(r.recovery.max)}`);
  row('faults with a visible effect / total / never recovered', `${r.recovery.visible} / ${r.recovery.count} / ${r.recovery.unrecovered}`);
  row('episodes with some replica not live', r.episodes);
  row('heap used: start / end', `${mb(r.start.heapUsed)} / ${mb(r.end.heapUsed)}`);
  row('active handles: start / end', `${total(r.start.handles)} (${handleList(r.start.handles)}) / ${total(r.end.handles)} (${handleList(r.end.handles)})`);
  lines.push('', '## Faults injected, by kind', '', '| kind | count |', '| --- | --- |');
  for (const [k, v] of Object.entries(r.faults)) row(k, v);
  row('queue overflow drops (server queue bound exceeded)', r.overflowDrops);
  row('connections closed with HEARTBEAT_TIMEOUT', r.heartbeatCloses);
  row('random faults that found no target', r.faultsSkipped);
  lines.push('', '## Resyncs, by trigger', '', '| trigger | count |', '| --- | --- |');
  for (const [k, v] of Object.entries(r.resyncs)) row(k, v);
  lines.push('', '## Client errors, by code', '', '| code | count | expected because |', '| --- | --- | --- |');
  for (const [k, v] of Object.entries(r.errors).sort()) row(k, v, EXPECTED_ERROR_CODES[k] ?? '**unexpected**');
  if (Object.keys(r.errors).length === 0) row('none', 0, '');
  const problems = [...r.divergences, ...r.unhandled, ...r.unexpectedErrors, ...r.events.examples];
  if (problems.length > 0) {
    lines.push('', '## Problems (first 30)', '');
    for (const p of problems.slice(0, 30)) lines.push(`- ${p.replace(/\n/g, ' ').slice(0, 400)}`);
  }
  return `${lines.join('\n')}\n`;
}
