/**
 * Smoke test of the bus benchmark (`npx tsx benchmarks/run.ts --quick --only bus`): runs it in a
 * child process (it starts a nats-server, the feed, the relay and consumer processes) and
 * checks that its own correctness checks passed, that every consumer ended exact, and that
 * the report has the bus's section, rows and targets. Speeds are not asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchReport } from '../../benchmarks/lib/report';
import { natsServerBinary } from '../nats/natsServer';

const ROOT = resolve(__dirname, '../..');
const TSX_LOADER = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
const RUN_TIMEOUT_MS = 100_000;

function runQuick(outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, join(ROOT, 'benchmarks/run.ts'), '--quick', '--only', 'bus', '--out', outDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      // SIGTERM first: the benchmark's own cleanup ends its processes (nats-server, relay, consumers).
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      reject(new Error(`quick bus benchmark did not finish within ${RUN_TIMEOUT_MS} ms:\n${output}`));
    }, RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

describe('bus benchmark --quick', () => {
  let outDir = '';
  beforeAll(() => {
    natsServerBinary();
    outDir = mkdtempSync(join(tmpdir(), 'bench-bus-smoke-'));
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('runs, every consumer ends exact, and the report has the bus section and targets', async () => {
    const { code, output } = await runQuick(outDir);
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
  }, 120_000);
});
