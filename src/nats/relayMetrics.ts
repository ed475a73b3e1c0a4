/**
 * What an operator watches of a relay that runs for weeks: Prometheus metrics at `/metrics`
 * and a health check at `/healthz`, served over HTTP (`exchange-replica relay --metrics-port`).
 * The exposition format is prom-client's (an optional peer dependency, loaded when the server
 * starts, like the NATS packages): nothing here writes it by hand.
 *
 * Every value is read from the relay when scraped (its heartbeat counters, its resync counts,
 * its per-stream stats), so a scrape costs the relay nothing between scrapes; NATS reconnects
 * and connectivity are followed on the connection's status events.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NatsConnection } from '@nats-io/transport-node';
import { ExchangeReplicaError, InvalidParameterError } from '../errors';
import type { HeartbeatStream, RelayStreamStatus } from './wire';
import type { BreakReason, StreamRelayStats } from './StreamRelay';

type PromClient = typeof import('prom-client');

/** The package to install for relay metrics. */
export const METRICS_PACKAGE = 'prom-client';

/** Stream statuses, each a series of `exchange_replica_relay_stream_status` (1 for the stream's current one). */
const STATUSES: readonly RelayStreamStatus[] = ['syncing', 'live', 'resyncing', 'stale', 'failed'];

/** The metric names (README, "Operating a relay"). */
export const RELAY_METRIC_NAMES = {
  info: 'exchange_replica_relay_info',
  updatesPublished: 'exchange_replica_relay_updates_published_total',
  batchesPublished: 'exchange_replica_relay_batches_published_total',
  duplicatesDropped: 'exchange_replica_relay_duplicates_dropped_total',
  resyncs: 'exchange_replica_relay_resyncs_total',
  syncs: 'exchange_replica_relay_syncs_total',
  secondsSinceLastPublish: 'exchange_replica_relay_seconds_since_last_publish',
  snapshotWrites: 'exchange_replica_relay_snapshot_writes_total',
  streamStatus: 'exchange_replica_relay_stream_status',
  publishedSeq: 'exchange_replica_relay_published_seq',
  natsConnected: 'exchange_replica_relay_nats_connected',
  natsReconnects: 'exchange_replica_relay_nats_reconnects_total',
  natsDisconnects: 'exchange_replica_relay_nats_disconnects_total',
  feedConnected: 'exchange_replica_relay_feed_connected',
} as const;

/** What the metrics read of a relay (a `ReplicaRelay` has it all). */
export interface MetricsRelay {
  readonly relayId: string;
  readonly nats: NatsConnection;
  readonly client: { readonly connection: { readonly state: string } };
  describe(): HeartbeatStream[];
  breakCounts(): Record<string, Readonly<Record<BreakReason, number>>>;
  stats(): Record<string, StreamRelayStats>;
}

export interface RelayMetricsOptions {
  /** TCP port of the HTTP server; 0 picks a free one (see {@link RelayMetricsServer.port}). @default none: required */
  readonly port: number;
  /** Address to listen on. Metrics tell what a relay carries: keep it local unless a scraper elsewhere needs it. @default '127.0.0.1' */
  readonly host?: string;
  /** Also the process's own metrics (CPU, memory, GC, event-loop lag: prom-client's default metrics). @default true */
  readonly processMetrics?: boolean;
  /** Resolution of the event-loop delay histogram behind `nodejs_eventloop_lag_*` (ms). @default 10 */
  readonly eventLoopResolutionMs?: number;
}

/** The health of a relay now: healthy while every stream is live and NATS is connected. */
export interface RelayHealth {
  readonly healthy: boolean;
  /** Why not, one line each (empty when healthy). */
  readonly reasons: readonly string[];
}

/** A running metrics server. */
export interface RelayMetricsServer {
  /** `http://<host>:<port>` */
  readonly url: string;
  /** The port listened on (the one picked when `port` was 0). */
  readonly port: number;
  /** The text `/metrics` serves now. */
  metrics(): Promise<string>;
  /** What `/healthz` answers now. */
  health(): RelayHealth;
  /** Stops listening and following NATS. Idempotent. */
  close(): Promise<void>;
}

let loading: Promise<PromClient> | undefined;

/**
 * Loads prom-client (once per process).
 * @throws ExchangeReplicaError `ERR_BUS` naming the package to install when it is missing.
 */
function loadPromClient(): Promise<PromClient> {
  loading ??= import('prom-client').then(
    (m) => m,
    (cause: unknown) => {
      loading = undefined;
      throw new ExchangeReplicaError('ERR_BUS', `relay metrics need ${METRICS_PACKAGE}: npm install ${METRICS_PACKAGE}@15 (${(cause as Error)?.message ?? String(cause)})`, {}, { cause });
    },
  );
  return loading;
}

/** Follows a NATS connection's status: connected or not, reconnects and disconnects counted. */
class NatsWatch {
  connected: boolean;
  reconnects = 0;
  disconnects = 0;
  private readonly iterator: AsyncIterable<{ type: string }> & { stop?: () => void };

  constructor(private readonly nats: NatsConnection) {
    this.connected = !nats.isClosed();
    this.iterator = nats.status();
    void this.follow();
  }

  private async follow(): Promise<void> {
    try {
      for await (const s of this.iterator) {
        if (s.type === 'disconnect') {
          this.connected = false;
          this.disconnects++;
        } else if (s.type === 'reconnect') {
          this.connected = true;
          this.reconnects++;
        } else if (s.type === 'close') this.connected = false;
      }
    } catch {
      // The connection closed: nothing more to follow.
    }
  }

  get up(): boolean {
    return this.connected && !this.nats.isClosed();
  }

  stop(): void {
    this.iterator.stop?.();
  }
}

/** The relay's health now (what `/healthz` answers). */
export function relayHealth(relay: Pick<MetricsRelay, 'describe'>, natsUp: boolean): RelayHealth {
  const reasons: string[] = [];
  if (!natsUp) reasons.push('NATS disconnected');
  for (const d of relay.describe()) if (d.status !== 'live') reasons.push(`${d.streamKey} ${d.status}`);
  return { healthy: reasons.length === 0, reasons };
}

function checkOptions(options: RelayMetricsOptions): Required<RelayMetricsOptions> {
  if (!options || typeof options !== 'object') throw new InvalidParameterError('invalid relay metrics options: expected an object', { param: 'options' });
  const { port, host = '127.0.0.1', processMetrics = true, eventLoopResolutionMs = 10 } = options;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidParameterError(`invalid relay metrics option 'port': expected an integer 0-65535, got ${String(port)}`, { param: 'port' });
  if (typeof host !== 'string' || host.trim() === '') throw new InvalidParameterError("invalid relay metrics option 'host': expected an address such as 127.0.0.1", { param: 'host' });
  if (typeof eventLoopResolutionMs !== 'number' || !Number.isInteger(eventLoopResolutionMs) || eventLoopResolutionMs < 1) {
    throw new InvalidParameterError(`invalid relay metrics option 'eventLoopResolutionMs': expected an integer >= 1, got ${String(eventLoopResolutionMs)}`, { param: 'eventLoopResolutionMs' });
  }
  return { port, host, processMetrics: processMetrics !== false, eventLoopResolutionMs };
}

/**
 * Serves a relay's metrics (`GET /metrics`, Prometheus text) and health (`GET /healthz`: 200
 * `ok` while every stream is live and NATS is connected, else 503 with one reason a line).
 * @example
 * const relay = await ReplicaRelay.start({ ... });
 * const server = await serveRelayMetrics(relay, { port: 9464 });
 * // curl http://127.0.0.1:9464/metrics
 * @throws InvalidParameterError for a bad option; ExchangeReplicaError `ERR_BUS` when
 *   prom-client is missing or the port cannot be listened on.
 */
export async function serveRelayMetrics(relay: MetricsRelay, options: RelayMetricsOptions): Promise<RelayMetricsServer> {
  const o = checkOptions(options);
  const prom = await loadPromClient();
  const watch = new NatsWatch(relay.nats);
  const registry = buildRegistry(prom, relay, watch, o);
  const health = (): RelayHealth => relayHealth(relay, watch.up);
  const server = createServer((req, res) => void answer(req, res, registry, health));
  // A scraper that keeps its connection open must not hold close() up.
  server.keepAliveTimeout = 5000;
  try {
    await listen(server, o.port, o.host);
  } catch (cause) {
    watch.stop();
    throw new ExchangeReplicaError('ERR_BUS', `cannot serve relay metrics on ${o.host}:${o.port}: ${(cause as Error)?.message ?? String(cause)}`, { param: 'port' }, { cause });
  }
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    port,
    metrics: () => registry.metrics(),
    health,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        watch.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

async function answer(req: IncomingMessage, res: ServerResponse, registry: import('prom-client').Registry, health: () => RelayHealth): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
    return;
  }
  if (path === '/metrics') {
    try {
      const text = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`collecting metrics failed: ${(e as Error)?.message ?? String(e)}\n`);
    }
    return;
  }
  if (path === '/healthz') {
    const h = health();
    res.writeHead(h.healthy ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : h.healthy ? 'ok\n' : `${h.reasons.join('\n')}\n`);
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: /metrics and /healthz are served\n');
}

/** The relay's metrics, every value read from the relay at scrape time. */
function buildRegistry(prom: PromClient, relay: MetricsRelay, watch: NatsWatch, o: Required<RelayMetricsOptions>): import('prom-client').Registry {
  const registry = new prom.Registry();
  const N = RELAY_METRIC_NAMES;
  const streamLabels = ['stream', 'channel'] as const;
  const labelsOf = (d: HeartbeatStream) => ({ stream: d.streamKey, channel: d.channel });

  /** A counter per stream whose value is read from the relay when scraped. */
  const perStream = (name: string, help: string, value: (d: HeartbeatStream, stats: StreamRelayStats | undefined) => number): void => {
    new prom.Counter({
      name,
      help,
      labelNames: streamLabels,
      registers: [registry],
      collect() {
        this.reset();
        const stats = relay.stats();
        for (const d of relay.describe()) this.inc(labelsOf(d), value(d, stats[d.streamKey]));
      },
    });
  };

  new prom.Gauge({
    name: N.info,
    help: 'The relay: its id (constant 1).',
    labelNames: ['relay'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.set({ relay: relay.relayId }, 1);
    },
  });
  perStream(N.updatesPublished, 'Updates this relay published, acknowledged by JetStream (duplicates included).', (d) => d.published);
  perStream(N.batchesPublished, 'Messages (batches of updates) this relay published, acknowledged by JetStream (duplicates included).', (d) => d.messages);
  perStream(N.duplicatesDropped, 'Updates JetStream dropped as duplicates (another relay stored the same batch first).', (d) => d.duplicates);
  perStream(N.syncs, 'Times the stream was (re)synced from a snapshot (each starts an epoch).', (d) => d.syncs);
  perStream(N.snapshotWrites, 'Snapshots this relay wrote to the KV bucket.', (_d, s) => s?.snapshotWrites ?? 0);
  new prom.Counter({
    name: N.resyncs,
    help: "Epochs of a stream ended, by reason: the replica's resync triggers and the relay's carry failures.",
    labelNames: ['stream', 'channel', 'reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const breaks = relay.breakCounts();
      for (const d of relay.describe()) for (const [reason, n] of Object.entries(breaks[d.streamKey] ?? {})) this.inc({ ...labelsOf(d), reason }, n);
    },
  });
  new prom.Gauge({
    name: N.secondsSinceLastPublish,
    help: "Seconds since this relay's last publish of the stream was acknowledged (absent before the first).",
    labelNames: streamLabels,
    registers: [registry],
    collect() {
      this.reset();
      const stats = relay.stats();
      for (const d of relay.describe()) {
        const ms = stats[d.streamKey]?.msSinceLastPublish;
        if (ms !== null && ms !== undefined) this.set(labelsOf(d), ms / 1000);
      }
    },
  });
  new prom.Gauge({
    name: N.streamStatus,
    help: 'The status of each stream: 1 for the current one, 0 for the others (live, syncing, resyncing, stale, failed).',
    labelNames: ['stream', 'channel', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const d of relay.describe()) for (const s of STATUSES) this.set({ ...labelsOf(d), status: s }, d.status === s ? 1 : 0);
    },
  });
  new prom.Gauge({
    name: N.publishedSeq,
    help: 'The newest exchange seq of the stream this relay published (absent before the first).',
    labelNames: streamLabels,
    registers: [registry],
    collect() {
      this.reset();
      for (const d of relay.describe()) if (d.publishedSeq !== null) this.set(labelsOf(d), Number(d.publishedSeq));
    },
  });
  new prom.Gauge({
    name: N.natsConnected,
    help: '1 while the NATS connection is up, else 0.',
    registers: [registry],
    collect() {
      this.set(watch.up ? 1 : 0);
    },
  });
  new prom.Counter({
    name: N.natsReconnects,
    help: 'Times the NATS connection came back after a disconnect.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(watch.reconnects);
    },
  });
  new prom.Counter({
    name: N.natsDisconnects,
    help: 'Times the NATS connection was lost.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(watch.disconnects);
    },
  });
  new prom.Gauge({
    name: N.feedConnected,
    help: "1 while the relay's exchange feed connection is open, else 0.",
    registers: [registry],
    collect() {
      this.set(relay.client.connection.state === 'open' ? 1 : 0);
    },
  });
  // Event-loop lag (nodejs_eventloop_lag_seconds, and its p50/p90/p99/max since the previous
  // scrape), CPU, memory, GC, handles: prom-client's own.
  if (o.processMetrics) prom.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: o.eventLoopResolutionMs });
  return registry;
}
