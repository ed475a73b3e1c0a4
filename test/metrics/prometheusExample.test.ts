/**
 * examples/prometheusMetrics.ts serves the client's metrics for Prometheus: run as a child
 * process (its own simulator, the SDK with the Prometheus exporter on 127.0.0.1, a port the
 * system picks), it names its endpoint once the book went live, applied an update and came
 * back from a forced resync; one scrape then shows every instrument that had something to say.
 */
import { TsxChild } from '../cli/spawnTsx';
import { WAIT_MS } from '../helpers/deadlines';

jest.setTimeout(120_000);

let child: TsxChild | undefined;
afterEach(async () => {
  await child?.stop();
  child = undefined;
});

it('serves the instruments on /metrics in the Prometheus text format', async () => {
  child = new TsxChild('examples/prometheusMetrics.ts', ['--port', '0', '--duration-ms', '120000']);
  const line = await child.waitForLine((l) => /\] metrics at http:\/\/127\.0\.0\.1:\d+\/metrics$/.test(l), 'the metrics endpoint', 90_000);
  expect(child.lines.some((l) => /\] book resynced \(resyncs started for resync_required: [1-9]\d*\)$/.test(l))).toBe(true);
  const url = /(http:\/\/\S+)$/.exec(line)![1]!;
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await res.text();
  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  expect(Object.fromEntries([...types].filter(([name]) => name.startsWith('exchange_replica')))).toEqual({
    exchange_replica_update_latency: 'histogram',
    exchange_replica_emission_latency: 'histogram',
    exchange_replica_staleness: 'histogram',
    exchange_replica_updates_total: 'counter',
    exchange_replica_frames_total: 'counter',
    exchange_replica_resyncs_total: 'counter',
    exchange_replica_replica_count: 'gauge',
  });
  const book = 'exchange_replica_stream="book|market_id=0|is_perps=true"';
  expect(text).toMatch(new RegExp(String.raw`^exchange_replica_updates_total\{[^}]*${escape(book)}[^}]*\} [1-9]\d*$`, 'm'));
  expect(text).toMatch(new RegExp(String.raw`^exchange_replica_resyncs_total\{[^}]*${escape(book)}[^}]*exchange_replica_resync_reason="resync_required"[^}]*\} [1-9]\d*$`, 'm'));
  expect(text).toMatch(/^exchange_replica_update_latency_bucket\{[^}]*le="0\.001"[^}]*\} \d+$/m);
  expect(text).toMatch(/^exchange_replica_replica_count\{[^}]*exchange_replica_channel="book",exchange_replica_replica_status="live"[^}]*\} [12]$/m);
  child.signal('SIGINT');
  const exit = await child.waitForExit(WAIT_MS);
  expect({ code: exit.code, stderr: child.stderr }).toEqual({ code: 0, stderr: '' });
  expect(child.lines[child.lines.length - 1]).toMatch(/\] prometheusMetrics: done$/);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
