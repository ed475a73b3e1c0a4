/** The options of a `BusSource` (a bus consumer), and their one check. */
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
import { systemClock, type Clock } from '../clock';
import { InvalidParameterError, type ExchangeReplicaError } from '../errors';
import { checkNatsAuth, checkNatsUrls, type NatsAuth } from './natsAuth';
import { busNames, DEFAULT_BUS_PREFIX, HEARTBEAT_INTERVAL_MS, type BusNames } from './wire';

export interface BusSourceOptions {
  /** NATS server URL(s), e.g. `nats://127.0.0.1:4222`. Required unless `nats` is given. */
  readonly natsUrl?: string | readonly string[];
  /** A NATS connection to use (not closed by the source). @default one of its own, from `natsUrl` */
  readonly nats?: NatsConnection;
  /** Options of its own NATS connection. @default { maxReconnectAttempts: -1, waitOnFirstConnect: true } */
  readonly natsOptions?: Partial<ConnectionOptions>;
  /**
   * Credentials and TLS of its own NATS connection (user and password, token, NKey seed or
   * `.creds` file; a CA file): on a bus with roles (examples/nats/roles.conf), a consumer's.
   * A server that refuses them fails the source's streams with `ERR_BUS_AUTH`. Never printed.
   * @default none (anonymous, TLS only for a `tls://` URL)
   */
  readonly natsAuth?: NatsAuth;
  /**
   * The longest heartbeat interval a relay is believed to announce, ms (a relay's `heartbeatMs`
   * is 10 to 60000). A heartbeat announcing an interval outside 10..this is judged at the
   * default interval (1000 ms): no message can keep a stream live long after its relays
   * stopped. @default 60000
   */
  readonly maxHeartbeatIntervalMs?: number;
  /** Prefix of the bus's names (as the relays'). @default 'er' */
  readonly prefix?: string;
  /** A stream is stale when no relay heartbeat listed it `live` (or `resyncing`) for this many of the relay's heartbeat intervals. @default 3 */
  readonly missedHeartbeats?: number;
  /** How often the streams' conditions are checked (waiting for a KV entry, heartbeats missed), ms. @default 250 */
  readonly checkMs?: number;
  /**
   * How often a running stream's KV entry is compared with what was delivered, ms: an entry
   * above the last seq delivered at two checks in a row (the relay resynced past updates it
   * never published, and the stream is quiet since) sends `resync_required`. @default 1000
   */
  readonly aheadCheckMs?: number;
  /**
   * Idle heartbeat of a stream's JetStream consumer, ms: the server sends one when it has
   * nothing to deliver, and a consumer silent for two intervals (deleted on the server, lost
   * in a restart the connection did not see) is replaced by a new one from the KV entry.
   * @default 5000
   */
  readonly consumerHeartbeatMs?: number;
  /** @default the system clock */
  readonly clock?: Clock;
  /**
   * Something went wrong and was survived (an unreadable message or KV entry, a consumer that
   * failed to start): an `ExchangeReplicaError` (`ERR_BUS`, `ERR_BUS_PERMISSION`, ...; what the
   * NATS client threw is its `cause`).
   */
  readonly onError?: (error: ExchangeReplicaError) => void;
}

/** {@link BusSourceOptions} checked, with their defaults. */
export interface ResolvedBusSourceOptions {
  readonly names: BusNames;
  /** The servers of its own connection, checked (none when `nats` is given). */
  readonly servers: readonly string[];
  readonly maxHeartbeatMs: number;
  readonly missed: number;
  readonly checkMs: number;
  readonly aheadCheckMs: number;
  /** The consumers' idle heartbeat (`consumerHeartbeatMs`). */
  readonly heartbeatMs: number;
  readonly clock: Clock;
}

/** Checks the options. @throws InvalidParameterError for a missing NATS URL or a bad option. */
export function resolveBusSourceOptions(options: BusSourceOptions): ResolvedBusSourceOptions {
  if (options.nats === undefined && (options.natsUrl === undefined || (typeof options.natsUrl !== 'string' && options.natsUrl.length === 0))) {
    throw new InvalidParameterError("missing option 'natsUrl': expected a NATS URL such as nats://127.0.0.1:4222", { param: 'natsUrl' });
  }
  const servers = options.natsUrl === undefined ? [] : checkNatsUrls(options.natsUrl);
  checkNatsAuth(options.natsAuth);
  const maxHeartbeatMs = options.maxHeartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS.max;
  if (!(maxHeartbeatMs >= HEARTBEAT_INTERVAL_MS.min)) throw new InvalidParameterError(`invalid option 'maxHeartbeatIntervalMs': expected a number of ms >= ${HEARTBEAT_INTERVAL_MS.min}`, { param: 'maxHeartbeatIntervalMs' });
  let names: BusNames;
  try {
    names = busNames(options.prefix ?? DEFAULT_BUS_PREFIX);
  } catch (e) {
    throw new InvalidParameterError(`invalid option 'prefix': ${(e as Error).message}`, { param: 'prefix' });
  }
  const missed = options.missedHeartbeats ?? 3;
  if (!(missed >= 1)) throw new InvalidParameterError("invalid option 'missedHeartbeats': expected a number >= 1", { param: 'missedHeartbeats' });
  const checkMs = options.checkMs ?? 250;
  if (!(checkMs >= 1)) throw new InvalidParameterError("invalid option 'checkMs': expected a number of ms >= 1", { param: 'checkMs' });
  const clock = options.clock ?? systemClock;
  const heartbeatMs = options.consumerHeartbeatMs ?? 5000;
  if (!(heartbeatMs >= 100)) throw new InvalidParameterError("invalid option 'consumerHeartbeatMs': expected a number of ms >= 100", { param: 'consumerHeartbeatMs' });
  return { names, servers, maxHeartbeatMs, missed, checkMs, aheadCheckMs: options.aheadCheckMs ?? 1000, heartbeatMs, clock };
}
