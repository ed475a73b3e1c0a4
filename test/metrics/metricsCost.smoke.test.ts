/**
 * Smoke test of the metrics-cost benchmark (benchmarks/metrics/metricsCost.ts, `--quick`):
 * three whole clients (no meter, the API's no-op meter, an SDK meter) handed the same book
 * frames; the benchmark's own checks must pass (every update applied by each, the books agree,
 * the SDK counted each update once). Speeds are not asserted.
 */
import { runTsx } from '../cli/spawnTsx';

it('runs its three clients and its own checks pass', async () => {
  const { exit, lines, stderr } = await runTsx('benchmarks/metrics/metricsCost.ts', ['--quick'], 80_000);
  expect({ code: exit.code, stderr: stderr.split('\n').filter((l) => l && !l.startsWith('metrics cost: repetition')) }).toEqual({ code: 0, stderr: [] });
  expect(lines).toContain('Checked: every client applied every update, the books agree, the SDK counted each update once.');
  for (const label of ['no meterProvider (default)', '@opentelemetry/api `metrics`, no SDK (no-op meter)', 'SDK MeterProvider (recording)']) {
    expect(lines.some((l) => l.startsWith(`| ${label} | `) && /\| \d+ \|/.test(l))).toBe(true);
  }
});
