/**
 * A consumer of the bus benchmark, in its OWN process (its CPU is its own
 * `process.cpuUsage()`): the library's book replica of the feed's stream, either straight
 * from the feed (`direct`: an `ExchangeClient`, strict, fast decoder, as the socket
 * benchmark's client path) or from NATS JetStream (`bus`: a `BusClient` on the relay's
 * stream). Both run the same subscriber: it counts the updates it sees (by the state's `seq`)
 * and, inside a window, times each one from its `timestamp_ns` (the feed's send time, which
 * the relay carries in its headers) to its emission, in an HDR histogram. No liveness window:
 * the feed pauses between phases. Ready once the replica is `live`.
 *
 * IPC: `ConsumerCommand` / `ConsumerReply` (busProtocol.ts); argv[2]: `ConsumerArgs` as JSON.
 */
import * as hdr from 'hdr-histogram-js';
import type { Subscription } from 'rxjs';
import { ExchangeClient } from '../../src/client';
import { BusClient } from '../../src/nats';
import { fastDecodeServerFrame } from '../../src/protocol/fastDecode';
import type { OrderBook } from '../../src/replicas/book';
import type { TopLevels } from '../book/deltaStream';
import { latencyClock } from '../socket/wallClock';
import type { ConsumerArgs, ConsumerCommand, ConsumerReply } from './busProtocol';
import { SlowUpdateLog } from './SlowUpdateLog';

const args = JSON.parse(process.argv[2] ?? '{}') as ConsumerArgs;
const reply = (r: ConsumerReply): void => void process.send!(r);
const latencyOf = latencyClock(BigInt(args.anchorNs));
const errors: string[] = [];
const common = { strict: true, replica: { livenessMs: 0 } } as const;
const client: ExchangeClient =
  args.mode === 'bus'
    ? new BusClient({ ...common, natsUrl: args.natsUrl, prefix: args.prefix, onError: (e) => errors.push(String(e)) })
    : new ExchangeClient({ ...common, restUrl: args.restUrl, wsUrl: args.wsUrl, router: { decode: fastDecodeServerFrame } });
client.errors$.subscribe((e) => errors.push(`${e.code}: ${e.message}`));

const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: 3, useWebAssembly: false });
let timing = false;
let seen = 0;
let status = 'syncing';
let announced = false;
const resyncCodes: string[] = [];
let book: OrderBook | undefined;
let window = { cpu: process.cpuUsage(), t0: process.hrtime.bigint(), n0: 0 };
const slow = SlowUpdateLog.fromEnv(args.mode);

const sub: Subscription = client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe({
  next: (e) => {
    book = e.state as OrderBook;
    seen = Number(e.seq);
    if (timing && e.cause === 'update') {
      const ns = latencyOf(String(e.timestampNs));
      histogram.recordValue(ns);
      slow?.note(e.seq, ns);
    }
    // Why each resync happened (the transition's code), for the report.
    if (e.status === 'resyncing' && status !== 'resyncing') resyncCodes.push(e.code);
    status = e.status;
    if (!announced && status === 'live') {
      announced = true;
      reply({ type: 'ready' });
    }
  },
  error: (err: unknown) => {
    errors.push(`replica failed: ${String(err)}`);
    reply({ type: 'error', message: String(err) });
  },
});

function exactTop(n: number): TopLevels {
  if (!book) return { bids: [], asks: [] };
  const t = book.top(n);
  const pairs = (ls: typeof t.bids) => ls.map((l): [string, string] => [l.price_ticks, l.size_base_lots]);
  return { bids: pairs(t.bids), asks: pairs(t.asks) };
}

function report(): ConsumerReply {
  const cpu = process.cpuUsage(window.cpu);
  const wallUs = Number(process.hrtime.bigint() - window.t0) / 1000;
  timing = false;
  const us = (p: number) => histogram.getValueAtPercentile(p) / 1000;
  return { type: 'window', cpuUs: cpu.user + cpu.system, wallUs, updates: seen - window.n0, seq: seen, p50Us: us(50), p99Us: us(99), p999Us: us(99.9), maxUs: histogram.maxValue / 1000 };
}

async function exit(): Promise<void> {
  sub.unsubscribe();
  await client.close().catch(() => undefined);
  histogram.destroy();
  process.exit(0);
}

process.on('message', (cmd: ConsumerCommand) => {
  switch (cmd.cmd) {
    case 'window':
      histogram.reset();
      timing = true;
      window = { cpu: process.cpuUsage(), t0: process.hrtime.bigint(), n0: seen };
      reply({ type: 'started' });
      break;
    case 'report':
      reply(report());
      break;
    case 'state': {
      const resyncs = Object.values(client.resyncCounts()).reduce((a, b) => a + b, 0);
      reply({ type: 'state', seq: seen, status, top: exactTop(cmd.depth), resyncs, resyncCodes: [...new Set(resyncCodes)], errors: errors.slice(-5) });
      break;
    }
    case 'exit':
      void exit();
      break;
  }
});
process.on('disconnect', () => void exit());
