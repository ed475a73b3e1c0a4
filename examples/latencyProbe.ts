/**
 * Prints the client's latency and staleness histograms (`client.streamMetrics()`): for each
 * stream, the time from the server's send timestamp to the replica (latency) and the age
 * of a replica's newest data when the next update replaced it (staleness), as p50/p99/max.
 * `--stall-ms N` holds the perp book's frames for N ms a third of the way in: the server
 * stamps frames when it sends them, so latency stays low while that stream's staleness
 * max shows the stall.
 *
 *   npx tsx examples/latencyProbe.ts [--duration-ms 10000] [--seed 1] [--stall-ms 0] [--every-ms 2000]
 */
import { merge } from 'rxjs';
import type { StreamMetricsSnapshot } from '../src';
import { streamKey } from '../src/simulator';
import { startExample } from './support/exampleRun';

const ex = await startExample('latencyProbe', ['stall-ms', 'every-ms']);
const { sim, client, log } = ex;
const stallMs = Number(ex.flags['stall-ms'] ?? 0);
const everyMs = Number(ex.flags['every-ms'] ?? 2000);
const stallTimer = setTimeout(() => {
  if (stallMs <= 0) return;
  sim.faults.stallStream(streamKey('book', { market_id: 0, is_perps: true }), stallMs);
  log(`perp book stream stalled for ${stallMs} ms`);
}, ex.durationMs / 3);

// Something to measure: books, best bid/offer, stats and trades of two markets, one account.
const perp = { market_type: 'perp', market_id: 0 } as const;
const spot = { market_type: 'spot', market_id: 3 } as const;
const account = sim.engine.accounts[1]!;
const subscription = merge(
  client.orderBook(perp),
  client.orderBook(spot),
  client.bbo(perp),
  client.bbo(spot),
  client.marketStats(perp),
  client.trades(perp),
  client.account({ address: account.address, subaccount_id: account.subaccount_ids[0]! }),
).subscribe();

const ms = (us: number) => (us / 1000).toFixed(2).padStart(8);
function table(rows: StreamMetricsSnapshot[]): string[] {
  const sorted = [...rows].sort((a, b) => a.stream.localeCompare(b.stream));
  const width = Math.max(6, ...sorted.map((r) => r.stream.length));
  const head = `${'stream'.padEnd(width)}  updates  latency ms: p50      p99      max  | staleness ms: p50      p99      max`;
  return [
    head,
    ...sorted.map((r) => `${r.stream.padEnd(width)}  ${String(r.latency.count).padStart(7)}  ${' '.repeat(10)}${ms(r.latency.p50)} ${ms(r.latency.p99)} ${ms(r.latency.max)}  | ${' '.repeat(12)}${ms(r.staleness.p50)} ${ms(r.staleness.p99)} ${ms(r.staleness.max)}`),
  ];
}

const timer = setInterval(() => {
  const rows = client.streamMetrics();
  const updates = rows.reduce((n, r) => n + r.latency.count, 0);
  const worst = rows.reduce((m, r) => Math.max(m, r.latency.p99), 0);
  log(`${rows.length} streams, ${updates} updates so far, worst latency p99 ${ms(worst).trim()} ms`);
}, everyMs);

await ex.done;
clearInterval(timer);
clearTimeout(stallTimer);
const rows = client.streamMetrics();
subscription.unsubscribe();
log('latency (server timestamp -> replica) and staleness per stream:');
for (const line of table(rows)) log(line);
log(`latencyProbe: ${rows.length} streams, ${rows.reduce((n, r) => n + r.latency.count, 0)} updates measured`);
await ex.close();
