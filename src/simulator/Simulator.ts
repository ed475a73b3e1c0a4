/**
 * The local exchange in one object: the matching engine and its seeded order flow, the REST
 * API and the WebSocket feed on one port, and the fault injector. The control surface for
 * tests, examples and the `simulate` command.
 */
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExchangeReplicaError } from '../errors';
import { messageOf } from '../errors/messageOf';
import { FEED_PATH, type OperationName, type ParamValues } from '../protocol';
import { Engine, type CancelOrderRequest, type PlaceOrderRequest } from './engine/Engine';
import { FaultInjector } from './faults/FaultInjector';
import { RestFaults } from './faults/RestFaults';
import { FeedServer } from './feed/FeedServer';
import { OrderFlowDriver } from './OrderFlowDriver';
import { createRestHandler } from './rest/createRestHandler';
import { resolveSimulatorOptions, type ResolvedSimulatorOptions, type SimulatorOptions } from './simulatorOptions';

/** How long an idle keep-alive socket stays open (an exchange's load balancer is typically 60 s or more). */
const KEEP_ALIVE_MS = 65_000;

/**
 * @example
 * const sim = await Simulator.start({ seed: 7, paused: true });
 * const client = new ExchangeClient({ restUrl: sim.restUrl, wsUrl: sim.wsUrl });
 * sim.step(100);                                            // 100 order-flow events, published at once
 * const truth = sim.truth('orderBook', { market_type: 'perp', market_id: 0, depth: 500 });
 * sim.faults.resyncStream('book|market_id=0|is_perps=true');
 * await sim.stop();
 */
export class Simulator {
  private stopped = false;

  private constructor(
    /** The options in force, defaults applied. */
    readonly options: ResolvedSimulatorOptions,
    /** The matching engine: the exchange's true state. */
    readonly engine: Engine,
    /** Fault injection (feed and REST). */
    readonly faults: FaultInjector,
    private readonly feed: FeedServer,
    private readonly http: Server,
    private readonly flow: OrderFlowDriver,
    /** The TCP port actually listened on. */
    readonly port: number,
  ) {}

  /**
   * Starts a simulator and resolves once `GET /v1/status` answers 200.
   * @throws SimulatorOptionError when an option is out of range
   * @throws ExchangeReplicaError `ERR_SIMULATOR_START` when the port cannot be listened on or the server is not ready
   */
  static async start(options: SimulatorOptions = {}): Promise<Simulator> {
    const o = resolveSimulatorOptions(options);
    const engine = new Engine({ seed: o.seed, clock: o.clock });
    const rest = new RestFaults(o.faultSeed);
    const http = createServer(createRestHandler(engine, rest));
    // Idle keep-alive sockets outlive the client's own idle bound (undici: 4 s): with Node's 5 s the
    // server could close one as a late client timer reused it (ECONNRESET on a loaded machine).
    http.keepAliveTimeout = KEEP_ALIVE_MS;
    const feed = new FeedServer(http, engine.hub, engine, { heartbeatTimeoutMs: o.heartbeatTimeoutMs, maxQueueBytes: o.maxQueueBytes, feedUnavailable: o.feedUnavailable, clock: o.clock });
    const faults = new FaultInjector(feed, rest, (off) => (engine.feedAvailable = !off));
    engine.feedAvailable = !o.feedUnavailable;
    if (o.delayFramesMs > 0) faults.delayFrames(o.delayFramesMs);
    const flow = new OrderFlowDriver((n) => engine.step(n), o.eventsPerSecond);
    let port: number;
    try {
      port = await listen(http, o.port, o.host);
    } catch (e) {
      await feed.close();
      throw new ExchangeReplicaError('ERR_SIMULATOR_START', `cannot listen on ${o.host}:${o.port}: ${messageOf(e)}`, {}, { cause: e });
    }
    const sim = new Simulator(o, engine, faults, feed, http, flow, port);
    try {
      const status = await statusOf(`${sim.restUrl}/v1/status`);
      if (status !== 200) throw new Error(`GET /v1/status answered ${status}`);
    } catch (e) {
      await sim.stop();
      throw new ExchangeReplicaError('ERR_SIMULATOR_START', `the simulator did not become ready: ${messageOf(e)}`, {}, { cause: e });
    }
    // REST faults only once ready, so the readiness probe itself is never failed.
    if (o.rest500Rate > 0) faults.rest500Rate(o.rest500Rate);
    if (o.restLatencyMs > 0) faults.restLatencyMs(o.restLatencyMs);
    if (o.randomFaultsPerSecond > 0) faults.randomFaults({ ratePerSecond: o.randomFaultsPerSecond, seed: o.faultSeed, kinds: o.randomFaultKinds });
    if (!o.paused) flow.start();
    return sim;
  }

  /** Base URL of the REST API, e.g. `http://127.0.0.1:41234`. */
  get restUrl(): string {
    return `http://${hostForUrl(this.options.host)}:${this.port}`;
  }

  /** URL of the feed, e.g. `ws://127.0.0.1:41234/ws`. */
  get wsUrl(): string {
    return `ws://${hostForUrl(this.options.host)}:${this.port}${FEED_PATH}`;
  }

  /** True while the order flow runs on its own. */
  get running(): boolean {
    return this.flow.running;
  }

  /** Pauses the order flow (the servers keep answering). */
  pause(): void {
    this.flow.stop();
  }

  /** Resumes the order flow at `eventsPerSecond`. */
  resume(): void {
    if (!this.stopped) this.flow.start();
  }

  /** Runs `n` order-flow events now, publishing their stream updates (meant for a paused simulator). */
  step(n = 1): void {
    this.engine.step(n);
  }

  /** Places an order as `address`/`subaccount_id`; matches at once and publishes every resulting update. */
  placeOrder(request: PlaceOrderRequest): ReturnType<Engine['placeOrder']> {
    return this.engine.placeOrder(request);
  }

  /** Cancels an open order; undefined when it is not open. */
  cancelOrder(request: CancelOrderRequest): ReturnType<Engine['cancelOrder']> {
    return this.engine.cancelOrder(request);
  }

  /** The true answer of a REST operation, in process (no faults): `{ status, body }`. */
  truth(name: OperationName, params: ParamValues = {}): { status: number; body: unknown } {
    return this.engine.query(name, params);
  }

  /** Stops the flow, every fault timer, every socket and the server. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.flow.stop();
    this.faults.stop();
    await this.feed.close();
    const closed = new Promise<void>((resolve) => this.http.close(() => resolve()));
    this.http.closeAllConnections();
    await closed;
  }
}

function listen(http: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    http.once('error', onError);
    http.listen(port, host, () => {
      http.off('error', onError);
      resolve((http.address() as AddressInfo).port);
    });
  });
}

/** One GET without keep-alive (so no pooled socket outlives the probe). */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
  });
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
