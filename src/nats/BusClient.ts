/**
 * BusClient: the replicas of `ExchangeClient` (the same observables, statuses, pool, metrics,
 * `whenLive`, `iterate`) fed from NATS JetStream by `ReplicaRelay`s instead of the exchange:
 * an `ExchangeClient` whose replicas run on a `BusSource`. It never opens an exchange feed
 * connection for its replicas; `rest` calls `restUrl` when one is given.
 */
import { sleep, systemClock, type Clock } from '../clock';
import { ExchangeClient, type ExchangeClientOptions } from '../client';
import { BusSource, type BusSourceOptions, type CarriedStream } from './BusSource';

/** Where `rest` points without a `restUrl`: a name that never resolves (every call fails). */
const NO_REST_URL = 'http://no-rest-url.invalid';

export interface BusClientOptions extends BusSourceOptions, Omit<ExchangeClientOptions, 'restUrl' | 'source' | 'clock'> {
  /** REST base URL for `client.rest` calls (the replicas never use it). @default none: `rest` calls fail */
  readonly restUrl?: string;
}

/**
 * @example
 * const client = new BusClient({ natsUrl: 'nats://127.0.0.1:4222' });
 * client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe(({ status, state }) => {
 *   if (status === 'live') console.log(state.bestBid(), state.bestAsk());
 * });
 * console.log(await client.streams()); // what the relays carry
 * await client.close();
 */
export class BusClient extends ExchangeClient {
  /** The source of the replicas (NATS connection, heartbeats, KV). */
  readonly bus: BusSource;
  /** The client's one clock (the waits of `streams`). */
  private readonly clientClock: Clock;

  /** @throws InvalidParameterError for a missing NATS URL or a bad option. */
  constructor(options: BusClientOptions) {
    const bus = new BusSource(options);
    const { natsUrl: _u, nats: _n, natsOptions: _o, natsAuth: _auth, maxHeartbeatIntervalMs: _mh, prefix: _p, missedHeartbeats: _m, checkMs: _c, aheadCheckMs: _a, consumerHeartbeatMs: _h, onError: _e, ...rest } = options;
    super({ ...rest, restUrl: options.restUrl ?? NO_REST_URL, clock: options.clock, source: bus });
    this.bus = bus;
    this.clientClock = options.clock ?? systemClock;
    void bus.open().catch(() => undefined);
  }

  /**
   * The streams relays carry (from their heartbeats), after waiting up to `waitMs` for the
   * first heartbeats. @throws ExchangeReplicaError `ERR_BUS_AUTH` when NATS refused the
   * connection, `ERR_BUS` when the NATS packages are missing
   */
  async streams(options: { readonly waitMs?: number } = {}): Promise<CarriedStream[]> {
    await this.bus.open();
    const clock = this.clientClock;
    const deadline = clock.nowMs() + (options.waitMs ?? 2500);
    for (;;) {
      const carried = this.bus.carried();
      if (carried.length > 0 || clock.nowMs() >= deadline) return carried;
      await sleep(50, undefined, clock);
    }
  }

  override async close(): Promise<void> {
    await super.close();
    await this.bus.close();
  }
}
