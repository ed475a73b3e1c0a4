/**
 * The relay of the bus benchmark, in its OWN process (its CPU is read from /proc): a
 * `ReplicaRelay` with its defaults, carrying the feed's one `book` stream from an
 * `ExchangeClient` configured as the direct consumer's (strict, fast decoder, no liveness
 * window: the feed pauses between phases). Ready once the stream is `live`.
 *
 * IPC: `RelayCommand` / `RelayReply` (busProtocol.ts); argv[2]: `RelayArgs` as JSON.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { SlowUpdateLog } from './SlowUpdateLog';
import { monoUs, StageRecorder } from './stageTrace';
import { latencyClock } from '../socket/wallClock';
import { ReplicaRelay } from '../../src/nats';
import { fastDecodeServerFrame } from '../../src/protocol/fastDecode';
import type { RelayArgs, RelayCommand, RelayReply } from './busProtocol';

const BENCH_BOOK = { channel: 'book', scope: { market_id: 0, is_perps: true } } as const;

const args = JSON.parse(process.argv[2] ?? '{}') as RelayArgs;
const reply = (r: RelayReply): void => void process.send!(r);
const errors: string[] = [];

/** The batch head of an update message (src/nats/wire/updateBatch.ts): its bounds. */
const BATCH_HEAD = /^\{"v":\d+,"first":"(\d+)","last":"(\d+)"\}/;

/**
 * The relay's NATS connection, made here so that its publish calls can be timed in a window:
 * when each update is handed to NATS (the client writes it to the socket in a microtask of
 * the same turn). Outside a window the wrapper only checks a flag.
 */
async function tracedConnection(stages: StageRecorder): Promise<NatsConnection> {
  const nc = await connect({ servers: args.natsUrl, maxReconnectAttempts: -1, ...(process.env['BUS_BENCH_NO_ASYNC_TRACES'] ? { noAsyncTraces: true } : {}) });
  const publish = nc.publish.bind(nc);
  nc.publish = (subject, payload, options) => {
    if (stages.on && typeof payload === 'string') {
      const m = BATCH_HEAD.exec(payload);
      if (m !== null) {
        const at = monoUs();
        for (let seq = Number(m[1]), last = Number(m[2]); seq <= last; seq++) stages.note(seq, at);
      }
    }
    publish(subject, payload, options);
  };
  return nc;
}

async function main(): Promise<void> {
  const stages = new StageRecorder();
  const nats = await tracedConnection(stages);
  const relay = await ReplicaRelay.start({
    exchange: { restUrl: args.restUrl, wsUrl: args.wsUrl, strict: true, router: { decode: fastDecodeServerFrame }, replica: { livenessMs: 0 } },
    nats,
    prefix: args.prefix,
    streamLimits: { storage: args.storage },
    streams: [BENCH_BOOK],
    onError: (e) => errors.push(String(e)),
    // Diagnosis (A/B of relay options): `BUS_BENCH_RELAY_OPTIONS='{"snapshotRefreshUpdates":50000}'`.
    ...(JSON.parse(process.env['BUS_BENCH_RELAY_OPTIONS'] ?? '{}') as Record<string, never>),
  });
  // The relay's own replica, for the slow-update log (see SlowUpdateLog).
  const slow = SlowUpdateLog.fromEnv('relay');
  if (slow) {
    const latencyOf = latencyClock(BigInt(args.anchorNs));
    relay.client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe((e) => {
      if (e.cause === 'update') slow.note(e.seq, latencyOf(String(e.timestampNs)));
    });
  }
  const describe = (): RelayReply => {
    const d = relay.describe()[0];
    return { type: 'describe', status: d?.status ?? 'none', publishedSeq: d?.publishedSeq?.toString() ?? null, published: d?.published ?? 0, messages: d?.messages ?? 0, syncs: d?.syncs ?? 0, errors: errors.slice(-5) };
  };
  process.on('message', (cmd: RelayCommand) => {
    if (cmd.cmd === 'describe') reply(describe());
    else if (cmd.cmd === 'window') {
      stages.start();
      reply({ type: 'started' });
    } else if (cmd.cmd === 'trace') reply({ type: 'trace', trace: stages.take() });
    else if (cmd.cmd === 'exit') void relay.close().finally(() => void nats.close().finally(() => process.exit(0)));
  });
  process.on('disconnect', () => void relay.close().finally(() => void nats.close().finally(() => process.exit(0))));
  const live = relay.status$.subscribe(({ status }) => {
    if (status !== 'live') return;
    live.unsubscribe();
    reply({ type: 'ready' });
  });
  if (relay.describe()[0]?.status === 'live') {
    live.unsubscribe();
    reply({ type: 'ready' });
  }
}

main().catch((e: unknown) => {
  reply({ type: 'error', message: String(e) });
  process.exit(1);
});
