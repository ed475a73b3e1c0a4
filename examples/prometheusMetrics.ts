/**
 * The client's metrics in Prometheus: the application installs the OpenTelemetry SDK with a
 * Prometheus exporter and hands the client its `MeterProvider`; the client records (update and
 * emission latency, staleness, updates, frames, resyncs by reason, errors by code, replicas by
 * status), the exporter serves them on `/metrics` for Prometheus to scrape. Runs against an
 * embedded simulator, and forces one resync once the book is live so that the resync counter
 * has something to show.
 *
 *   npm install @opentelemetry/api @opentelemetry/sdk-metrics @opentelemetry/exporter-prometheus
 *   npx tsx examples/prometheusMetrics.ts [--port 9464] [--duration-ms 60000] [--seed 1]
 *   curl -s http://127.0.0.1:9464/metrics | grep exchange_replica
 *
 * A scrape job for it (prometheus.yml):
 *
 *   scrape_configs:
 *     - job_name: trading-bot
 *       static_configs: [{ targets: ['127.0.0.1:9464'] }]
 *
 * In your own project the imports are `exchange-replica` and `exchange-replica/simulator`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { filter, firstValueFrom, merge, timeout } from 'rxjs';
import { ExchangeClient } from '../src';
import { Simulator, streamKey } from '../src/simulator';

const { values } = parseArgs({ options: { port: { type: 'string', default: '9464' }, 'duration-ms': { type: 'string', default: '60000' }, seed: { type: 'string', default: '1' } } });
const port = Number(values.port);
const durationMs = Number(values['duration-ms']);
const started = performance.now();
const log = (line: string): void => void process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(2).padStart(6)}s] ${line}\n`);

// 1. The application's side: the SDK, its Prometheus exporter, and an HTTP endpoint for it.
//    (Or `new PrometheusExporter({ port })`, which serves /metrics on a server of its own; or
//    `metrics.setGlobalMeterProvider(provider)` and `meterProvider: metrics` of @opentelemetry/api.)
const exporter = new PrometheusExporter({ preventServerStart: true });
const provider = new MeterProvider({ readers: [exporter] });
const server = createServer((req, res) => (req.url === '/metrics' ? exporter.getMetricsRequestHandler(req, res) : res.writeHead(404).end()));
await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;

// 2. The client records through the provider it is given.
const sim = await Simulator.start({ seed: Number(values.seed) });
const client = new ExchangeClient({ restUrl: sim.restUrl, meterProvider: provider });
client.errors$.subscribe((e) => log(`client error ${e.code}: ${e.message}`));

const perp = { market_type: 'perp', market_id: 0 } as const;
const book = client.orderBook(perp);
const subscription = merge(book, client.bbo(perp), client.trades(perp), client.orderBook({ market_type: 'spot', market_id: 3 })).subscribe();

// Once the book has applied an update, one forced resync (counted as `resync_required`).
const first = await firstValueFrom(book.pipe(filter((e) => e.status === 'live' && e.cause === 'update'), timeout(30_000)));
log(`book live: best bid ${first.state.bestBid()}, best ask ${first.state.bestAsk()}`);
sim.faults.resyncStream(streamKey('book', { market_id: 0, is_perps: true }));
await firstValueFrom(book.pipe(filter((e) => e.status === 'live' && e.snapshotId > first.snapshotId), timeout(30_000)));
log(`book resynced (resyncs started for resync_required: ${client.resyncCounts().resync_required})`);
log(`metrics at ${url}`);

await new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, durationMs);
  process.once('SIGINT', () => {
    clearTimeout(timer);
    resolve();
  });
});
subscription.unsubscribe();
await client.close();
await sim.stop();
await provider.shutdown();
server.close();
log('prometheusMetrics: done');
