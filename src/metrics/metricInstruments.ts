/**
 * The OpenTelemetry instruments of an `ExchangeClient` and their attributes: names after
 * OpenTelemetry's naming conventions (a lowercase dotted namespace, the library's own
 * `exchange_replica`; counters of things pluralized with a `{thing}` unit; durations in
 * seconds; no `total` suffix), attributes namespaced the same way except the registry's
 * `error.type`. Measurements carry few attributes: an SDK hashes them on every record (about
 * half a microsecond a key), and the latency histograms are recorded once per update. A Prometheus exporter shows `exchange_replica.update.latency` (unit `s`) as
 * `exchange_replica_update_latency_seconds` and the counters with `_total`. Imports nothing.
 */
import type { InstrumentOptions, MetricAttributes } from './MeterProviderLike';

/** Scope name the client's meter is created under (`meterProvider.getMeter(METER_NAME)`). */
export const METER_NAME = 'exchange-replica';

/** Attribute keys. Each value set is bounded: streams by the application's subscriptions, the rest by the library's code lists. */
export const METRIC_ATTRIBUTES = {
  /** The canonical stream key, e.g. `book|market_id=0|is_perps=true` (`accountReplica|account|...` for a combined account replica). */
  stream: 'exchange_replica.stream',
  /** The stream's channel: `book`, `bbo`, `trades`, ... (`accountReplica` for a combined account replica). */
  channel: 'exchange_replica.channel',
  /** What started a resync: one of `RESYNC_TRIGGERS` (`resync_required`, `seq_jump`, `liveness`, ...). */
  resyncReason: 'exchange_replica.resync.reason',
  /** A replica's status: `syncing`, `live`, `resyncing`, `stale` or `failed`. */
  status: 'exchange_replica.replica.status',
  /** An error's stable code (`ErrorCode`: `ERR_SNAPSHOT_AHEAD`, `ERR_SUBSCRIBER_THREW`, ...). */
  errorType: 'error.type',
} as const;

/** Sub-millisecond to 10 s: feed latencies of a trading client. */
const LATENCY_BOUNDARIES_S = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Up to 5 min: quiet streams (candles, funding) go minutes between updates. */
const STALENESS_BOUNDARIES_S = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** One instrument: its name and the options it is created with. */
export interface InstrumentSpec {
  readonly name: string;
  readonly options: InstrumentOptions;
}

/** Every instrument of the client (README, "Metrics"). */
export const METRIC_INSTRUMENTS = {
  /** Histogram, per stream: server send time (`timestamp_ns`) to the replica receiving the update. Negative (clock skew) counts as 0. */
  updateLatency: {
    name: 'exchange_replica.update.latency',
    options: { unit: 's', description: "Time from the server's send timestamp of an update to its receipt by the client's replica.", advice: { explicitBucketBoundaries: LATENCY_BOUNDARIES_S } },
  },
  /** Histogram, per stream: server send time to the replica's emission of the state it applied (before subscribers run). */
  emissionLatency: {
    name: 'exchange_replica.emission.latency',
    options: { unit: 's', description: "Time from the server's send timestamp of an update to the emission of the replica state that applied it.", advice: { explicitBucketBoundaries: LATENCY_BOUNDARIES_S } },
  },
  /** Histogram, per stream: the age of a replica's newest data when the next update replaced it. */
  staleness: {
    name: 'exchange_replica.staleness',
    options: { unit: 's', description: "Age of a replica's newest data when the next update replaced it (receipt time minus the previous update's server timestamp).", advice: { explicitBucketBoundaries: STALENESS_BOUNDARIES_S } },
  },
  /** Counter, per stream: updates the replicas received (once per stream, whatever its subscribers). */
  updates: {
    name: 'exchange_replica.updates',
    options: { unit: '{update}', description: "Updates received by the client's replicas, each counted once per stream." },
  },
  /** Counter: text frames received on the feed connection (updates, acknowledgements, pongs, error frames). */
  frames: {
    name: 'exchange_replica.frames',
    options: { unit: '{frame}', description: 'Frames received from the feed.' },
  },
  /** Counter, per stream and reason: resyncs started (as `client.resyncCounts()`, kept across a replica's close). */
  resyncs: {
    name: 'exchange_replica.resyncs',
    options: { unit: '{resync}', description: 'Resyncs started, by stream and by what started them.' },
  },
  /** Counter, per `error.type` (and stream when the error names one): errors the client survived (`errors$`). */
  errors: {
    name: 'exchange_replica.errors',
    options: { unit: '{error}', description: 'Errors the client survived (as on client.errors$), by code.' },
  },
  /** UpDownCounter, per channel and status: replicas running. */
  replicaCount: {
    name: 'exchange_replica.replica.count',
    options: { unit: '{replica}', description: 'Replicas running, by channel and status.' },
  },
} as const satisfies Record<string, InstrumentSpec>;

/** The channel of a stream key (`book|market_id=0|...` -> `book`). */
export function channelOfStream(stream: string): string {
  const bar = stream.indexOf('|');
  return bar < 0 ? stream : stream.slice(0, bar);
}

/** The attributes of one stream's measurements: the stream and its channel (one frozen object per stream, reused). */
export function streamAttributes(stream: string): MetricAttributes {
  return Object.freeze({ [METRIC_ATTRIBUTES.stream]: stream, [METRIC_ATTRIBUTES.channel]: channelOfStream(stream) });
}
