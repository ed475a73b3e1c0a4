/** The options of an `ExchangeClient` and their defaults (applied here and nowhere else). */
import { InvalidParameterError } from '../errors';
import type { ConnectionOptions } from '../connection';
import { FEED_PATH, type DriftReport } from '../protocol';
import type { RestClientOptions } from '../rest';
import type { EventReducerOptions, EventReplicaOptions, ReplicaSource, ResyncSchedulerOptions, StreamSyncOptions } from '../replicas';
import type { RouterOptions } from '../router';
import { systemClock, type Clock } from '../clock/Clock';
import type { ClientIoInterceptor, ReducerOverrides } from './ClientIo';
import type { MeterProviderLike } from '../metrics/MeterProviderLike';

export interface ExchangeClientOptions {
  /** Base URL of the REST API, e.g. `http://127.0.0.1:8080`. */
  readonly restUrl: string;
  /** URL of the feed. @default restUrl with the ws(s) scheme and path `/ws` */
  readonly wsUrl?: string;
  /**
   * Lines of the feed: this many sockets to `wsUrl`, each subscribed to every stream, each
   * `seq` taken from the line that brings it first, a hole on one line filled from the other
   * (see `arbitration`). Ignored when `wsUrls` is given. @default 1
   */
  readonly lines?: number;
  /**
   * The feed URLs of the lines, one socket each (e.g. two endpoints of the exchange); the
   * first one is `connection`. @default `lines` sockets to `wsUrl`
   */
  readonly wsUrls?: readonly string[];
  /** How two or more lines are merged. @default { gapWindowMs: 50, maxHeldUpdates: 10000, maxHeldBytes: 16 MiB } */
  readonly arbitration?: ArbitrationOptions;
  /** Reject unexpected extra keys (REST bodies and feed frames) instead of dropping them and reporting drift. @default false */
  readonly strict?: boolean;
  /**
   * REST client settings (timeouts, retry in the library's one backoff shape, fetch, `maxResponseBytes`).
   * @default RestClient defaults; retry { retries: 3, initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5 }
   */
  readonly rest?: Omit<RestClientOptions, 'baseUrl' | 'strict'>;
  /**
   * Feed connection settings (heartbeat, reconnect backoff, WebSocket class, `maxFrameBytes`, clock).
   * @default Connection defaults; reconnect { initialDelayMs: 250, maxDelayMs: 10000, factor: 2, jitter: 0.5, retries: Infinity, stableAfterMs: 30000 }
   */
  readonly connection?: Omit<ConnectionOptions, 'url'>;
  /** Router settings (request timeout, decoder, clock). @default SubscriptionRouter defaults; decoder: the fast path for hot frames */
  readonly router?: Omit<RouterOptions, 'strict' | 'onDrift'>;
  /**
   * Snapshot fetching of resyncs: attempts in flight over every replica, and the retry of one
   * snapshot request (`BackoffOptions`). Checked when the client is built.
   * @default { concurrency: 4, retry: { initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5, retries: 3 } }
   */
  readonly resync?: ResyncSchedulerOptions;
  /**
   * Replica settings applied to every replica (liveness window, buffers), and to event
   * replicas their history and buffers (`recentLimit`, `recentMaxBytes`, `maxHistoryPages`,
   * `bufferSize`, `bufferBytes`). @default StreamSync and event replica defaults
   */
  readonly replica?: ReplicaSettings;
  /** Called once per record location whose unexpected keys were dropped. @default emits `drift` on `client.events` */
  readonly onDrift?: (report: DriftReport & { source: 'rest' | 'feed'; channel?: string; operation?: string }) => void;
  /**
   * The one time source of the client: given to the connection, the router, the REST client and
   * every replica, unless a component's own `clock` option is set.
   * @default systemClock
   */
  readonly clock?: Clock;
  /** The one source of randomness (backoff jitter), uniform in [0, 1), given to every component unless its own `random` is set. @default Math.random */
  readonly random?: () => number;
  /**
   * Records every input of the client (feed frames, REST answers, timer firings, clock reads,
   * random draws) to a file: pass a `FeedRecorder`. Replay it with a `Replayer`.
   * @default undefined (no recording)
   */
  readonly record?: ClientIoInterceptor;
  /** Replaces the reducer of some state channels (`orderBook`, `bbo`, ...; not the parts of `account`). @default undefined */
  readonly reducers?: ReducerOverrides;
  /**
   * Where the replicas get their streams and snapshots (e.g. a `BusSource` reading NATS
   * JetStream). When given, no replica opens the feed connection (only `updates()` does) and
   * no snapshot goes to REST; `rest` still calls `restUrl`.
   * @default the exchange: the feed connection and the REST client (`ExchangeSource`)
   */
  readonly source?: ReplicaSource;
  /**
   * Records the client's measures through OpenTelemetry (README, "Metrics"): update and
   * emission latency, staleness, updates, frames, resyncs by reason, errors by code, replicas
   * by status, on the meter `getMeter('exchange-replica')`. Pass `metrics` of
   * `@opentelemetry/api` (the application's global provider, a no-op until the application
   * installs an SDK: install it before creating the client) or an SDK `MeterProvider`. The
   * library never imports `@opentelemetry/api` (an optional peer) and reads no global itself.
   * @default undefined (nothing recorded, nothing created)
   * @example
   * import { metrics } from '@opentelemetry/api';
   * const client = new ExchangeClient({ restUrl, meterProvider: metrics });
   */
  readonly meterProvider?: MeterProviderLike;
}

/** The settings of every replica of a client (see `ExchangeClientOptions.replica`). */
export type ReplicaSettings = Omit<StreamSyncOptions, 'onLatency' | 'onError'> & EventReducerOptions & EventReplicaOptions;

/** How the lines of a multi-line feed are merged, per stream. */
export interface ArbitrationOptions {
  /**
   * How long (ms) an update after a hole on its line waits for another line to fill the hole
   * before the replica is shown the jump (and resyncs). @default 50
   */
  readonly gapWindowMs?: number;
  /** Most updates held per stream while a hole waits; beyond, they are passed on (the replica resyncs). @default 10000 */
  readonly maxHeldUpdates?: number;
  /** Most bytes (frame lengths) held per stream while a hole waits. @default 16777216 (16 MiB) */
  readonly maxHeldBytes?: number;
}

export interface ResolvedClientOptions extends Required<Pick<ExchangeClientOptions, 'restUrl' | 'wsUrl' | 'strict'>> {
  readonly rest: Omit<RestClientOptions, 'baseUrl' | 'strict'>;
  readonly connection: Omit<ConnectionOptions, 'url'>;
  readonly router: Omit<RouterOptions, 'strict' | 'onDrift'>;
  readonly resync: ResyncSchedulerOptions;
  readonly replica: ReplicaSettings;
  readonly onDrift?: ExchangeClientOptions['onDrift'];
  readonly clock: Clock;
  readonly random: () => number;
  readonly record?: ClientIoInterceptor;
  readonly reducers?: ReducerOverrides;
  readonly source?: ReplicaSource;
  readonly meterProvider?: MeterProviderLike;
  /** The feed URL of each line (the first is `wsUrl`). */
  readonly wsUrls: readonly string[];
  readonly arbitration: Required<ArbitrationOptions>;
}

/** The feed URL served beside a REST base URL (streaming-protocol.md section 7). */
export function feedUrlFor(restUrl: string): string {
  const u = new URL(restUrl);
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = FEED_PATH;
  u.search = '';
  return u.toString();
}

/**
 * Applies the defaults of `ExchangeClientOptions`.
 * @throws InvalidParameterError for a missing or malformed URL.
 */
export function resolveClientOptions(options: ExchangeClientOptions): ResolvedClientOptions {
  if (!options || typeof options.restUrl !== 'string') {
    throw new InvalidParameterError("missing option 'restUrl': expected an http(s) URL such as http://127.0.0.1:8080", { param: 'restUrl' });
  }
  checkUrl('restUrl', options.restUrl, ['http:', 'https:']);
  const wsUrl = options.wsUrl ?? feedUrlFor(options.restUrl);
  checkUrl('wsUrl', wsUrl, ['ws:', 'wss:']);
  const wsUrls = resolveLineUrls(options, wsUrl);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const a = options.arbitration ?? {};
  return {
    restUrl: options.restUrl,
    wsUrl: wsUrls[0]!,
    wsUrls,
    arbitration: {
      gapWindowMs: nonNegativeOption('arbitration.gapWindowMs', a.gapWindowMs ?? 50),
      maxHeldUpdates: positiveIntegerOption('arbitration.maxHeldUpdates', a.maxHeldUpdates ?? 10_000),
      maxHeldBytes: positiveIntegerOption('arbitration.maxHeldBytes', a.maxHeldBytes ?? 16 * 1024 * 1024),
    },
    strict: options.strict ?? false,
    rest: { ...options.rest, clock: options.rest?.clock ?? clock, random: options.rest?.random ?? random },
    connection: { ...options.connection, clock: options.connection?.clock ?? clock, random: options.connection?.random ?? random },
    router: { ...options.router, clock: options.router?.clock ?? clock },
    resync: options.resync ?? {},
    replica: { ...options.replica, clock: options.replica?.clock ?? clock, random: options.replica?.random ?? random },
    onDrift: options.onDrift,
    clock,
    random,
    record: options.record,
    reducers: options.reducers,
    source: options.source,
    meterProvider: meterProviderOption(options.meterProvider),
  };
}

function checkUrl(name: string, value: string, schemes: string[]): void {
  let ok = false;
  try {
    ok = schemes.includes(new URL(value).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw new InvalidParameterError(`invalid option '${name}': expected a ${schemes.join(' or ')} URL, got ${JSON.stringify(value)}`, { param: name });
}

/** The feed URL of each line: `wsUrls`, else `lines` copies of `wsUrl`. */
function resolveLineUrls(options: ExchangeClientOptions, wsUrl: string): readonly string[] {
  if (options.wsUrls !== undefined) {
    if (!Array.isArray(options.wsUrls) || options.wsUrls.length === 0) throw new InvalidParameterError(`invalid option 'wsUrls': expected a non-empty array of ws(s) URLs`, { param: 'wsUrls' });
    options.wsUrls.forEach((u, i) => checkUrl(`wsUrls[${i}]`, u, ['ws:', 'wss:']));
    return [...options.wsUrls];
  }
  const lines = options.lines ?? 1;
  if (!Number.isInteger(lines) || lines < 1 || lines > 8) throw new InvalidParameterError(`invalid option 'lines': expected an integer from 1 to 8, got ${String(lines)}`, { param: 'lines' });
  return Array.from({ length: lines }, () => wsUrl);
}

function nonNegativeOption(name: string, v: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new InvalidParameterError(`invalid option '${name}': expected a finite number >= 0, got ${String(v)}`, { param: name });
  return v;
}

function positiveIntegerOption(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new InvalidParameterError(`invalid option '${name}': expected a positive integer, got ${String(v)}`, { param: name });
  return v;
}

function meterProviderOption(p: MeterProviderLike | undefined): MeterProviderLike | undefined {
  if (p !== undefined && typeof p?.getMeter !== 'function') throw new InvalidParameterError("invalid option 'meterProvider': expected an OpenTelemetry MeterProvider (an object with getMeter), e.g. `metrics` of @opentelemetry/api", { param: 'meterProvider' });
  return p;
}
