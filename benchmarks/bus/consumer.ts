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
 * `bare`: the cheapest consumer of the bus (the floor of a bus consumer's CPU): a plain
 * nats.js core subscription on the stream's subject, each update of each message decoded
 * with the feed's fast decoder, counted and timed the same way; no replica (no book: it is
 * not checked for exactness). Ready once subscribed.
 *
 * IPC: `ConsumerCommand` / `ConsumerReply` (busProtocol.ts); argv[2]: `ConsumerArgs` as JSON.
 */
import * as hdr from 'hdr-histogram-js';
import type { Subscription } from 'rxjs';
import { ExchangeClient } from '../../src/client';
import { connect } from '@nats-io/transport-node';
import { BusClient } from '../../src/nats';
import { busNames, updateSubject } from '../../src/nats/busProtocol';
import { fastDecodeServerFrame } from '../../src/protocol/fastDecode';
import type { OrderBook } from '../../src/replicas/book';
import type { TopLevels } from '../book/deltaStream';
import { latencyClock } from '../socket/wallClock';
import type { ConsumerArgs, ConsumerCommand, ConsumerReply } from './busProtocol';
import { SlowUpdateLog } from './SlowUpdateLog';
import { monoUs, StageRecorder, stampToMonoUs } from './stageTrace';

const args = JSON.parse(process.argv[2] ?? '{}') as ConsumerArgs;
const reply = (r: ConsumerReply): void => void process.send!(r);
const latencyOf = latencyClock(BigInt(args.anchorNs));
const errors: string[] = [];
const common = { strict: true, replica: { livenessMs: 0 } } as const;
const client: ExchangeClient | undefined =
  args.mode === 'bare'
    ? undefined
    : args.mode === 'bus'
      ? new BusClient({ ...common, natsUrl: args.natsUrl, prefix: args.prefix, onError: (e) => errors.push(String(e)) })
      : new ExchangeClient({ ...common, restUrl: args.restUrl, wsUrl: args.wsUrl, router: { decode: fastDecodeServerFrame } });
client?.errors$.subscribe((e) => errors.push(`${e.code}: ${e.message}`));

const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: 3, useWebAssembly: false });
let timing = false;
let seen = 0;
let status = 'syncing';
let announced = false;
const resyncCodes: string[] = [];
let book: OrderBook | undefined;
let window = { cpu: process.cpuUsage(), t0: process.hrtime.bigint(), n0: 0, m0: 0, b0: 0 };
const slow = SlowUpdateLog.fromEnv(args.mode);
/** When each update of the window was emitted (decoded by `bare`, which notes its send stamp too): stageTrace.ts. */
const stages = new StageRecorder();
const sentUsOf = stampToMonoUs(BigInt(args.anchorNs));

/** `bare` only: bus messages and their bytes received in the window. */
let bareMessages = 0;
let bareBytes = 0;
const UTF8 = new TextDecoder();

/** The bare consumer: a core subscription, each update of each batch decoded (busProtocol.ts: a head line, then one frame a line). */
async function startBare(): Promise<() => Promise<void>> {
  const nc = await connect({ servers: args.natsUrl });
  const subject = updateSubject(busNames(args.prefix), 'book', { market_id: 0, is_perps: true });
  nc.subscribe(subject, {
    callback: (err, m) => {
      if (err !== null) return void errors.push(String(err));
      const data = m.data;
      bareMessages++;
      bareBytes += data.length;
      const text = UTF8.decode(data);
      for (let at = text.indexOf('\n') + 1; at > 0 && at <= text.length; ) {
        let end = text.indexOf('\n', at);
        if (end < 0) end = text.length;
        const r = fastDecodeServerFrame(text.slice(at, end));
        if (!r.ok || r.frame.type !== 'update') errors.push(`bare: not an update frame in ${subject}`);
        else {
          const seq = Number(r.frame.seq);
          if (seq > seen) {
            seen = seq;
            if (timing) {
              histogram.recordValue(latencyOf(r.frame.timestamp_ns));
              stages.note(seq, monoUs(), sentUsOf(r.frame.timestamp_ns));
            }
          }
        }
        at = end + 1;
      }
    },
  });
  await nc.flush();
  status = 'live';
  reply({ type: 'ready' });
  return () => nc.close();
}

let closeBare: (() => Promise<void>) | undefined;
if (args.mode === 'bare') {
  startBare().then(
    (close) => void (closeBare = close),
    (e: unknown) => reply({ type: 'error', message: String(e) }),
  );
}

const sub: Subscription | undefined = client?.orderBook({ market_type: 'perp', market_id: 0 }).subscribe({
  next: (e) => {
    book = e.state as OrderBook;
    seen = Number(e.seq);
    if (timing && e.cause === 'update') {
      const ns = latencyOf(String(e.timestampNs));
      histogram.recordValue(ns);
      stages.note(seen, monoUs());
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
  const bare = args.mode === 'bare' ? { messages: bareMessages - window.m0, bytes: bareBytes - window.b0 } : {};
  return { type: 'window', cpuUs: cpu.user + cpu.system, wallUs, updates: seen - window.n0, seq: seen, p50Us: us(50), p99Us: us(99), p999Us: us(99.9), maxUs: histogram.maxValue / 1000, ...bare, trace: stages.take() };
}

async function exit(): Promise<void> {
  sub?.unsubscribe();
  await client?.close().catch(() => undefined);
  await closeBare?.().catch(() => undefined);
  histogram.destroy();
  process.exit(0);
}

process.on('message', (cmd: ConsumerCommand) => {
  switch (cmd.cmd) {
    case 'window':
      histogram.reset();
      stages.start();
      timing = true;
      window = { cpu: process.cpuUsage(), t0: process.hrtime.bigint(), n0: seen, m0: bareMessages, b0: bareBytes };
      reply({ type: 'started' });
      break;
    case 'report':
      reply(report());
      break;
    case 'state': {
      const resyncs = client ? Object.values(client.resyncCounts()).reduce((a, b) => a + b, 0) : 0;
      reply({ type: 'state', seq: seen, status, top: exactTop(cmd.depth), resyncs, resyncCodes: [...new Set(resyncCodes)], errors: errors.slice(-5) });
      break;
    }
    case 'exit':
      void exit();
      break;
  }
});
process.on('disconnect', () => void exit());
