/**
 * Smoke test of `npm run bench`: runs the quick mode in a child process (the benchmark forks
 * its own sender and simulator processes and needs the tsx loader) and checks that the
 * benchmark's OWN correctness checks passed and that every section produced figures. Speeds
 * are not asserted.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchReport } from '../../benchmarks/lib/report';
import { PROCESS_TEST_TIMEOUT_MS } from '../helpers/deadlines';
import { runQuickBench } from './quickBench';

describe('npm run bench --quick', () => {
  let outDir = '';
  beforeAll(() => {
    outDir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('runs every section and its own correctness checks pass', async () => {
    const { code, output } = await runQuickBench([], outDir);
    const files = readdirSync(outDir);
    const json = files.find((f) => f.endsWith('.json'));
    if (!json) throw new Error(`the quick benchmark wrote no report (exit code ${code}):\n${output}`);
    expect(files.some((f) => f.endsWith('.md'))).toBe(true);
    const report = JSON.parse(readFileSync(join(outDir, json!), 'utf8')) as BenchReport;

    const failed = report.checks.filter((c) => !c.ok);
    expect(failed).toEqual([]);
    expect(report.checksPassed).toBe(true);
    expect(code).toBe(0);

    // Every section ran and was checked.
    expect(report.header.cores).toBeGreaterThan(0);
    expect(report.book?.rows.some((r) => r.book.startsWith('ours') && r.correct)).toBe(true);
    expect(report.book?.rows.filter((r) => r.stream !== 'exact' && r.book !== 'no-op').every((r) => r.correct)).toBe(true);
    expect(report.book?.memory.length).toBeGreaterThanOrEqual(3);
    const scenarios = new Set(report.socket?.cpu.map((c) => c.scenario));
    for (const s of ['receive', 'parse', 'parse+apply', 'zod+apply', 'fast+apply', 'client']) expect(scenarios.has(s)).toBe(true);
    expect(report.socket?.cpu.every((c) => c.correct && c.cpuUsPerFrame > 0)).toBe(true);
    expect(report.socket?.latency.every((l) => l.correct && l.count > 0)).toBe(true);

    // Resync: every resync measured and checked (one trigger, one fetch; book = truth at the end).
    const resync = report.resync!;
    expect(resync.errors).toEqual([]);
    expect(resync.correct).toBe(true);
    expect(resync.samples).toBe(resync.config.repetitions);
    expect(Math.min(resync.levels.bids, resync.levels.asks)).toBeGreaterThanOrEqual(400);
    expect(resync.restMs.p50).toBeGreaterThan(0);
    expect(resync.clientMs.p50).toBeGreaterThan(0);
    expect(resync.phases).toHaveLength(3);
    expect(resync.breakdown.map((b) => b.warmUs > 0 && b.afterIdleUs > 0)).toEqual([true, true, true]);

    // Fan-out: one subscription of each kind, all live throughout, replicas at the truth.
    const fanout = report.fanout!;
    expect(fanout.errors).toEqual([]);
    expect(fanout.correct).toBe(true);
    const subs = fanout.subscriptions;
    expect(subs.replicas + subs.accountReplicas + subs.rawTaps).toBe(subs.total);
    expect(Math.min(subs.replicas, subs.accountReplicas, subs.rawTaps)).toBeGreaterThan(0);
    expect(subs.serverSubscriptions).toBe(subs.replicas);
    expect(fanout.framesPerSec).toBeGreaterThan(0);
    expect(fanout.cpuUsPerFrame).toBeGreaterThan(0);
    expect(fanout.singleSubscription?.cpuUsPerFrame).toBeGreaterThan(0);

    // The simulator's own throughput.
    expect(report.simulator?.rows.length).toBeGreaterThan(0);
    expect(report.simulator?.rows.every((r) => r.frames > 0 && r.framesPerSec > 0)).toBe(true);

    for (const part of ['resync:', 'fan-out:', 'simulator throughput']) expect(report.checks.some((c) => c.check.startsWith(part) && c.ok)).toBe(true);
    expect(report.targets.some((t) => t.target.startsWith('resync client work'))).toBe(true);
    expect(report.targets.length).toBeGreaterThan(0);
    // The printed table is the report.
    expect(output).toContain('## Correctness checks: all passed');
    for (const section of ['## Resync', '## Fan-out', '## Simulator throughput']) expect(output).toContain(section);
  }, PROCESS_TEST_TIMEOUT_MS);
});
