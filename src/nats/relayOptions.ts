/** The options of a `ReplicaRelay` and their defaults (applied and checked here, once). */
import { hostname } from 'node:os';
import type { NatsConnection, NodeConnectionOptions } from '@nats-io/transport-node';
import type { ExchangeClient, ExchangeClientOptions } from '../client';
import { resolveBackoffOptions, type BackoffOptions, type Clock, type ResolvedBackoffOptions, systemClock } from '../clock';
import { InvalidParameterError, type ExchangeReplicaError } from '../errors';
import { CHANNELS, isChannelName, streamKey, validateScope, type ChannelName, type Scope } from '../protocol';
import { busNames, DEFAULT_BUS_PREFIX, DEFAULT_HEARTBEAT_MS, DEFAULT_STREAM_LIMITS, encodeToken, HEARTBEAT_INTERVAL_MS, type BusNames, type BusStreamLimits } from './wire';
import { checkNatsAuth, checkNatsUrls, type NatsAuth } from './natsAuth';

/** One stream to carry: a channel and its feed scope (`market_id`, `is_perps`, `interval`, `address`, `subaccount_id`). */
export interface RelayStream {
  readonly channel: ChannelName;
  readonly scope: Scope;
}

export interface ReplicaRelayOptions {
  /**
   * The exchange: an `ExchangeClient` to use (the relay does not close it), or the options of
   * one the relay creates (and closes). Exactly one of `client` and `exchange`.
   */
  readonly client?: ExchangeClient;
  /** Options of the `ExchangeClient` the relay creates. @default none: `client` must be given */
  readonly exchange?: ExchangeClientOptions;
  /**
   * NATS: an open connection to use (the relay does not close it), or the server URL(s) to
   * connect to (the relay reconnects forever and closes it). Exactly one of `nats` and `natsUrl`.
   */
  readonly nats?: NatsConnection;
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. @default none: `nats` must be given */
  readonly natsUrl?: string | readonly string[];
  /**
   * More options of the NATS connection the relay opens (auth, TLS, name). Its `inboxPrefix`
   * also prefixes the relay's inbox of JetStream acknowledgements: with `nats`, give the
   * connection's own here when its permissions require one.
   * @default { maxReconnectAttempts: -1 }
   */
  readonly natsOptions?: Omit<NodeConnectionOptions, 'servers'>;
  /**
   * Credentials and TLS of the NATS connection the relay opens (user and password, token,
   * NKey seed or `.creds` file; a CA file): on a bus with roles (examples/nats/roles.conf),
   * the relay's. Never printed. @default none (anonymous, TLS only for a `tls://` URL)
   */
  readonly natsAuth?: NatsAuth;
  /**
   * The streams to carry. @default what `exchange-replica view` shows: for the first active
   * perp and spot market, `book`, `marketStats`, `trades` (and `fundingRates` of the perp)
   */
  readonly streams?: readonly RelayStream[];
  /** This relay's name in heartbeats and message headers. @default `<hostname>-<pid>-<4 random hex>` */
  readonly relayId?: string;
  /** Prefix of every name of the bus (stream `<PREFIX>_UPDATES`, subjects `<prefix>.u.>`, bucket `<prefix>_snapshots`). @default 'er' */
  readonly prefix?: string;
  /**
   * Limits of the updates stream when the relay creates it. @default see {@link DEFAULT_STREAM_LIMITS}
   *
   * `replicas` (1 to {@link MAX_REPLICAS}) is the copies of the updates stream AND of the
   * snapshot bucket in a JetStream cluster (`relay --replicas <n>`): with 3, the bus survives
   * the loss of one node (a new leader is elected, publishes and writes wait for it), and costs
   * every publish a round trip from the stream's leader to a follower before its PubAck (a
   * majority must store it), 3x the storage and the cluster traffic of 2 more copies. A stream
   * or bucket that already exists keeps the count it was created with. @default 1
   */
  readonly streamLimits?: BusStreamLimits;
  /**
   * A heartbeat (with every stream's status) every this many ms, from 10 to 60000: consumers
   * believe no interval outside that range (see `HEARTBEAT_INTERVAL_MS`). @default 1000
   */
  readonly heartbeatMs?: number;
  /**
   * Each live stream's snapshot is fetched and rewritten to the KV bucket at least this often
   * (ms), so a consumer's catch-up from the snapshot replays at most about this long of updates.
   * @default 5000
   */
  readonly snapshotRefreshMs?: number;
  /** ... and after this many updates published since the last snapshot, whichever comes first. @default 5000 */
  readonly snapshotRefreshUpdates?: number;
  /** A refresh snapshot the replica stays below for this long means the feed missed an update (a silent gap): the replica resyncs. @default 10000 */
  readonly snapshotAheadMs?: number;
  /**
   * @deprecated Ignored: each stream's replica (a StreamSync) fetches its snapshot as soon as
   * its subscription is active, quiet stream or not. Still checked, for compatibility. @default 500
   */
  readonly quietMs?: number;
  /** Publishes awaiting their PubAck, over every stream. @default 1024 */
  readonly maxInFlight?: number;
  /** Publishes waiting to be sent; beyond it a stream resyncs once the backlog is gone. @default 100000 */
  readonly maxQueued?: number;
  /** Bound of one publish's wait for its PubAck (ms): beyond it the publish is sent again (see `noLeaderWaitMs`) or its stream resyncs. @default 10000 */
  readonly publishTimeoutMs?: number;
  /**
   * How long (ms from its first send) a publish JetStream answers 503 (no leader for the
   * updates stream: the election after a cluster node is lost, seconds) or does not answer
   * within `publishTimeoutMs` (taken by a leader that died) is sent again, in order, before
   * its stream resyncs (OrderedPublisher.ts). Failing at once would leave a hole on every
   * subject (every relay fails the same updates) that an event stream's consumers could only
   * mark as a gap. Meanwhile nothing else is published. 0: fail at once.
   * @default 30000 with `streamLimits.replicas` above 1 (a cluster), else 0
   */
  readonly noLeaderWaitMs?: number;
  /** Updates kept while a stream waits for its snapshot. @default 10000 */
  readonly maxBufferedUpdates?: number;
  /** Backoff of failed snapshot fetches and of resyncs that made no progress. @default { initialDelayMs: 100, maxDelayMs: 5000, factor: 2, jitter: 0.5, retries: Infinity } */
  readonly retry?: BackoffOptions;
  /** Every error the relay survived (snapshot failures, publish failures, KV writes), as on `errors$`. @default none */
  readonly onError?: (error: ExchangeReplicaError) => void;
  /** @default the system clock */
  readonly clock?: Clock;
}

/** The options with every default applied. @internal */
export interface ResolvedRelayOptions {
  readonly client?: ExchangeClient;
  readonly exchange?: ExchangeClientOptions;
  readonly nats?: NatsConnection;
  readonly natsUrl?: readonly string[];
  readonly natsOptions: Omit<NodeConnectionOptions, 'servers'>;
  readonly natsAuth?: NatsAuth;
  readonly streams?: readonly RelayStream[];
  readonly relayId: string;
  readonly names: BusNames;
  readonly streamLimits: Required<BusStreamLimits>;
  readonly heartbeatMs: number;
  readonly snapshotRefreshMs: number;
  readonly snapshotRefreshUpdates: number;
  readonly snapshotAheadMs: number;
  readonly quietMs: number;
  readonly maxInFlight: number;
  readonly maxQueued: number;
  readonly publishTimeoutMs: number;
  readonly noLeaderWaitMs: number;
  readonly maxBufferedUpdates: number;
  readonly retry: ResolvedBackoffOptions;
  readonly onError?: (error: ExchangeReplicaError) => void;
  readonly clock: Clock;
}

/** The most copies JetStream keeps of a stream. */
export const MAX_REPLICAS = 5;

const DEFAULT_RETRY: ResolvedBackoffOptions = Object.freeze({ initialDelayMs: 100, maxDelayMs: 5000, factor: 2, jitter: 0.5, retries: Number.POSITIVE_INFINITY });

function fail(param: string, message: string): never {
  throw new InvalidParameterError(`invalid ReplicaRelay option '${param}': ${message}`, { param });
}

function integer(param: string, v: unknown, dflt: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const x = v === undefined ? dflt : v;
  if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < min || x > max) fail(param, max === Number.MAX_SAFE_INTEGER ? `expected an integer >= ${min}, got ${String(x)}` : `expected an integer from ${min} to ${max}, got ${String(x)}`);
  return x;
}

function defaultRelayId(): string {
  return `${hostname() || 'relay'}-${process.pid}-${Math.floor(Math.random() * 0xffff).toString(16).padStart(4, '0')}`;
}

/** Checks a list of streams; returns them with their scopes checked, without repeats. */
export function checkStreams(streams: readonly RelayStream[], param = 'streams'): RelayStream[] {
  if (!Array.isArray(streams)) fail(param, 'expected an array of { channel, scope }');
  const seen = new Set<string>();
  const out: RelayStream[] = [];
  streams.forEach((s, i) => {
    if (!s || typeof s !== 'object' || !isChannelName((s as { channel?: unknown }).channel)) fail(`${param}[${i}].channel`, `expected one of ${Object.keys(CHANNELS).join(', ')}`);
    const checked = validateScope(s.channel, (s.scope ?? {}) as Record<string, unknown>);
    if (!checked.ok) fail(`${param}[${i}].scope`, checked.message);
    const key = streamKey(s.channel, checked.scope);
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ channel: s.channel, scope: checked.scope });
  });
  return out;
}

/**
 * Applies the defaults of `ReplicaRelayOptions` and checks every field.
 * @throws InvalidParameterError naming the first bad option.
 */
export function resolveRelayOptions(options: ReplicaRelayOptions): ResolvedRelayOptions {
  if (!options || typeof options !== 'object') fail('options', 'expected an object');
  if ((options.client === undefined) === (options.exchange === undefined)) fail('client', "give exactly one of 'client' (an ExchangeClient) and 'exchange' (its options)");
  if ((options.nats === undefined) === (options.natsUrl === undefined)) fail('natsUrl', "give exactly one of 'nats' (a NatsConnection) and 'natsUrl'");
  const natsUrl: readonly string[] | undefined = options.natsUrl === undefined ? undefined : checkNatsUrls(options.natsUrl, 'natsUrl');
  if (options.natsAuth !== undefined && options.nats !== undefined) fail('natsAuth', "applies to the connection the relay opens ('natsUrl'), not to a given 'nats'");
  checkNatsAuth(options.natsAuth, 'natsAuth');
  let names: BusNames;
  try {
    names = busNames(options.prefix ?? DEFAULT_BUS_PREFIX);
  } catch (e) {
    fail('prefix', (e as Error).message);
  }
  const relayId = options.relayId ?? defaultRelayId();
  if (typeof relayId !== 'string' || relayId === '' || relayId.length > 128) fail('relayId', 'expected a non-empty string of at most 128 characters');
  if (encodeToken(relayId).length > 256) fail('relayId', 'too long once encoded as a subject token');
  // It travels in a message header: no control characters, no spaces at its ends.
  if (/[\x00-\x1f\x7f]/.test(relayId) || relayId.trim() !== relayId) fail('relayId', 'expected no control characters and no spaces at either end');
  const l = options.streamLimits ?? {};
  const streamLimits: Required<BusStreamLimits> = {
    duplicateWindowMs: integer('streamLimits.duplicateWindowMs', l.duplicateWindowMs, DEFAULT_STREAM_LIMITS.duplicateWindowMs, 1000),
    maxAgeMs: integer('streamLimits.maxAgeMs', l.maxAgeMs, DEFAULT_STREAM_LIMITS.maxAgeMs, 1000),
    maxMsgsPerSubject: integer('streamLimits.maxMsgsPerSubject', l.maxMsgsPerSubject, DEFAULT_STREAM_LIMITS.maxMsgsPerSubject, 1),
    maxBytes: integer('streamLimits.maxBytes', l.maxBytes, DEFAULT_STREAM_LIMITS.maxBytes, -1),
    storage: l.storage ?? DEFAULT_STREAM_LIMITS.storage,
    replicas: integer('streamLimits.replicas', l.replicas, DEFAULT_STREAM_LIMITS.replicas, 1),
  };
  if (streamLimits.replicas > MAX_REPLICAS) fail('streamLimits.replicas', `expected at most ${MAX_REPLICAS} (JetStream's limit), got ${streamLimits.replicas}`);
  if (streamLimits.storage !== 'file' && streamLimits.storage !== 'memory') fail('streamLimits.storage', `expected 'file' or 'memory', got ${String(streamLimits.storage)}`);
  if (streamLimits.maxAgeMs < streamLimits.duplicateWindowMs) fail('streamLimits.maxAgeMs', `must be at least duplicateWindowMs (${streamLimits.duplicateWindowMs})`);
  if (options.onError !== undefined && typeof options.onError !== 'function') fail('onError', 'expected a function');
  const snapshotRefreshMs = integer('snapshotRefreshMs', options.snapshotRefreshMs, 5000, 100);
  return {
    client: options.client,
    exchange: options.exchange,
    nats: options.nats,
    natsUrl,
    natsOptions: { maxReconnectAttempts: -1, ...(options.natsOptions ?? {}) },
    natsAuth: options.natsAuth,
    streams: options.streams === undefined ? undefined : checkStreams(options.streams),
    relayId,
    names,
    streamLimits,
    heartbeatMs: integer('heartbeatMs', options.heartbeatMs, DEFAULT_HEARTBEAT_MS, HEARTBEAT_INTERVAL_MS.min, HEARTBEAT_INTERVAL_MS.max),
    snapshotRefreshMs,
    snapshotRefreshUpdates: integer('snapshotRefreshUpdates', options.snapshotRefreshUpdates, 5000, 1),
    snapshotAheadMs: integer('snapshotAheadMs', options.snapshotAheadMs, 10_000, 1),
    quietMs: integer('quietMs', options.quietMs, 500, 0),
    maxInFlight: integer('maxInFlight', options.maxInFlight, 1024, 1),
    maxQueued: integer('maxQueued', options.maxQueued, 100_000, 1),
    publishTimeoutMs: integer('publishTimeoutMs', options.publishTimeoutMs, 10_000, 1),
    // Only a replicated stream has leader elections to wait through; on one server a 503 is a
    // server that restarts, where sending again held the stream back (the relay test's restart).
    noLeaderWaitMs: integer('noLeaderWaitMs', options.noLeaderWaitMs, streamLimits.replicas > 1 ? 30_000 : 0, 0),
    maxBufferedUpdates: integer('maxBufferedUpdates', options.maxBufferedUpdates, 10_000, 1),
    retry: resolveBackoffOptions(options.retry, DEFAULT_RETRY, 'retry'),
    onError: options.onError,
    clock: options.clock ?? systemClock,
  };
}
