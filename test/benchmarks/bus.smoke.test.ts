/**
 * Smoke test of the bus benchmark (`npx tsx benchmarks/run.ts --quick --only bus`): runs it in a
 * child process (it starts a nats-server, the feed, the relay and consumer processes) and
 * checks that its own correctness checks passed, that every consumer ended exact, and that
 * the report has the bus's section, rows and targets. Speeds are not asserted.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchReport } from '../../benchmarks/lib/report';
import { natsServerBinary } from '../nats/natsServer';
import { PROCESS_TEST_TIMEOUT_MS } from '../helpers/deadlines';
import { runQuickBench } from './quickBench';

describe('bus benchmark --quick', () => {
  let outDir = '';
  beforeAll(() => {
    natsServerBinary();
    outDir = mkdtempSync(join(tmpdir(), 'bench-bus-smoke-'));
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('runs, every consumer ends exact, and the report has the bus section and targets', async () => {
    const { code, output } = await runQuickBench(['--only', 'bus'], outDir);
    const json = readdirSync(outDir).find((f) => f.endsWith('.json'));
    if (!json) throw new Error(`the quick bus benchmark wrote no report (exit code ${code}):\n${output}`);
    const report = JSON.parse(readFileSync(join(outDir, json), 'utf8')) as BenchReport;
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.checksPassed).toBe(true);
    expect(code).toBe(0);

    const bus = report.bus!;
    expect(bus.errors).toEqual([]);
    expect(bus.correct).toBe(true);
    // Every consumer process (the direct client and each bus consumer) at the last seq with the truth's book.
    const most = Math.max(...bus.config.consumers);
    expect(bus.exactness).toHaveLength(most + 1);
    expect(bus.exactness.every((e) => e.exact && e.seq === bus.sent)).toBe(true);
    expect(bus.relayPublishedSeq).toBe(String(bus.sent));
    // One latency row per rate, with both clients measured in the same windows.
    expect(bus.latency.map((l) => l.rate)).toEqual([...bus.config.rates]);
    for (const l of bus.latency) {
      expect(l.direct.updates).toBeGreaterThan(0);
      expect(l.bus.updates).toBeGreaterThan(0);
      expect(l.direct.cpuUsPerUpdate).toBeGreaterThan(0);
      expect(l.bus.cpuUsPerUpdate).toBeGreaterThan(0);
    }
    expect(bus.fanout.map((f) => f.consumers)).toEqual([...bus.config.consumers]);
    // The targets are judged (met or not), never asserted here.
    expect(report.targets.some((t) => t.target.startsWith('bus adds'))).toBe(true);
    expect(report.targets.some((t) => t.target.startsWith('bus consumer CPU/update'))).toBe(true);
    expect(output).toContain('## Bus:');
  }, PROCESS_TEST_TIMEOUT_MS);
});
