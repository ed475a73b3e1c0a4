/**
 * exchange-replica/nats: many processes, one feed. A `ReplicaRelay` keeps one exchange
 * connection and republishes its streams on NATS JetStream (updates on one subject per
 * stream, aligned snapshots in a KV bucket, heartbeats with statuses); consumers in other
 * processes read them. Needs the optional peer dependencies `@nats-io/transport-node`,
 * `@nats-io/jetstream` and `@nats-io/kv` (3.x) and a nats-server (2.9 or newer) with JetStream.
 */
export { BusSource, type BusSourceOptions, type CarriedStream } from './BusSource';
export { BusClient, type BusClientOptions } from './BusClient';
export { ReplicaRelay, type RelayStatusChange } from './ReplicaRelay';
export { type ReplicaRelayOptions, type RelayStream } from './relayOptions';
export { redactNatsUrl, type NatsAuth } from './natsAuth';
export { marketStreams, accountStreams, defaultStreams, DEFAULT_MARKET_CHANNELS, DEFAULT_ACCOUNT_CHANNELS } from './relayStreams';
export type { BreakReason } from './StreamRelay';
export {
  BUS_FORMAT_VERSION,
  DEFAULT_BUS_PREFIX,
  DEFAULT_STREAM_LIMITS,
  UPDATE_HEADERS,
  busNames,
  encodeToken,
  updateSubject,
  snapshotKey,
  heartbeatSubject,
  messageId,
  updateMessagePrefix,
  encodeUpdateMessage,
  decodeUpdateMessage,
  encodeUpdateBatch,
  decodeUpdateBatch,
  readBatchHead,
  MAX_BATCH_CHARS,
  type BatchHead,
  decodePublishAck,
  exactJson,
  encodeSnapshotRecord,
  decodeSnapshotRecord,
  encodeHeartbeat,
  decodeHeartbeat,
  HEARTBEAT_INTERVAL_MS,
  DEFAULT_HEARTBEAT_MS,
  encodeResetMessage,
  isResetMessage,
  resetMessageId,
  updateStreamConfig,
  type BusNames,
  type BusStreamLimits,
  type UpdateMessage,
  type PublishAck,
  type SnapshotRecord,
  type Heartbeat,
  type HeartbeatStream,
  type RelayStreamStatus,
  MARKETS_META_KEY,
  type MarketsMeta,
} from './wire';
export { loadNats, NATS_PACKAGES, type NatsModules } from './natsModules';
export { serveRelayMetrics, relayHealth, RELAY_METRIC_NAMES, METRICS_PACKAGE, type RelayMetricsOptions, type RelayMetricsServer, type RelayHealth, type MetricsRelay } from './relayMetrics';
export type { StreamRelayStats } from './StreamRelay';
