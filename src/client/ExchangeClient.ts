/**
 * ExchangeClient: wires the rooms together (REST client, feed connection, router, replicas,
 * metrics) and nothing more. One instance per trading process and exchange.
 */
import { EventEmitter } from 'eventemitter3';
import { Observable, Subject, type Observable as Obs } from 'rxjs';
import type { Connection } from '../connection';
import { ClientClosedError, ExchangeReplicaError } from '../errors';
import { asExchangeReplicaError } from '../errors/asExchangeReplicaError';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import { RestClient } from '../rest';
import {
  AccountReplica,
  ResyncScheduler,
  createEventReplica,
  createReplicaWith,
  createStateReplica,
  stateReducer,
  type AccountReplicaState,
  type EventItem,
  type EventLog,
  type EventChannel,
  type EventChannelRecords,
  type EventReplica,
  type ReplicaDeps,
  type Reducer,
  type ReplicaState,
  type ResyncTrigger,
  type StateChannelStates,
  type StreamSyncOptions,
  type ReplicaLease,
  type SharedReplicas,
} from '../replicas';
import type { SubscriptionRouter, UpdateEvent } from '../router';
import type { ClientEvents } from './ClientEvents';
import { resolveClientOptions, type ExchangeClientOptions, type ResolvedClientOptions } from './clientOptions';
import { accountScopeOf, scopeOf, type AccountParams, type CandleParams, type MarketParams, type PerpCandleParams, type PerpMarketParams } from './replicaParams';
import { FeedLines, type LineStats } from './FeedLines';
import { interceptedIo } from './interceptedIo';
import { ReplicaPool } from './ReplicaPool';
import { StreamMetrics, type StreamMetricsSnapshot } from './StreamMetrics';
import { ClientTelemetry, ReplicaCensus, type TrackedReplica } from '../metrics';
import { GuardedObservable, subscriberError, type GuardSink } from './GuardedObservable';
import { whenLive, type WhenLiveOptions } from './whenLive';
import { iterate, type IterateOptions } from './iterate';
import type { ReplicaStatus } from '../replicas';
import type { Balance, Bbo, Fill, FundingRate, LastCandle, MarkCandle, MarketStats, Order, Position, Subaccount, Trade } from '../protocol';

/**
 * Live, exact replicas of an exchange, as RxJS observables. Faults heal by themselves
 * (resync, reconnect, a subscribe that timed out is retried); a replica that cannot work at
 * all (scope refused, FEED_UNAVAILABLE, a snapshot answered 4xx) emits status `failed` when
 * it had a state, then its observable errors with the cause (an `ExchangeReplicaError`).
 *
 * @example
 * const client = new ExchangeClient({ restUrl: 'http://127.0.0.1:8080' });
 * client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe(({ status, state }) => {
 *   if (status === 'live') console.log(state.bestBid(), state.bestAsk());
 * });
 * // later
 * await client.close();
 */
export class ExchangeClient {
  /** The typed REST client: one method per operation (`client.rest.orderBook({...})`). */
  readonly rest: RestClient;
  /** The feed connection: `state$`, and events `state`, `open`, `close`, `error`. */
  readonly connection: Connection;
  /** Errors the client survived (never fatal to the client), also emitted as `error` on `events`. */
  readonly errors$: Obs<ExchangeReplicaError>;
  readonly events = new EventEmitter<ClientEvents>();

  private readonly options: ResolvedClientOptions;
  private readonly router: SubscriptionRouter;
  private readonly feed: FeedLines;
  private readonly scheduler: ResyncScheduler;
  private readonly pool: ReplicaPool;
  private readonly metrics: StreamMetrics;
  private readonly errorSubject = new Subject<ExchangeReplicaError>();
  private readonly deps: ReplicaDeps;
  private readonly replicas: ReplicaCensus;
  /** Errors already on `errors$` (a failure reaches both the replica's observers and `errors$`). */
  private readonly reported = new WeakSet<object>();
  private readonly guardSink: GuardSink = (error, what) => {
    if (what !== 'unhandled') return this.report(subscriberError(error, what));
    // A failure nobody subscribed to handle: on errors$ (once), never an uncaught exception.
    if (typeof error !== 'object' || error === null || !this.reported.has(error)) this.report(error);
  };
  private closed = false;
  /** The replicas' clock and random as the recorder wraps them (empty without one). */
  private readonly replicaIo: Pick<StreamSyncOptions, 'clock' | 'random'>;

  /** @throws InvalidParameterError for a missing or malformed URL or option. */
  constructor(options: ExchangeClientOptions) {
    this.options = resolveClientOptions(options);
    const o = this.options;
    this.pool = new ReplicaPool(this.guardSink);
    // A throwing errors$ subscriber is told on `events` only (reporting it on errors$ could loop).
    this.errors$ = new GuardedObservable<ExchangeReplicaError>(
      (error, what) => {
        if (what !== 'unhandled') this.events.emit('error', subscriberError(error, what));
      },
      (subscriber) => this.errorSubject.subscribe(subscriber),
    );
    const { rest, connection, routerClock, replica } = interceptedIo(o, options);
    this.replicaIo = replica;
    this.rest = new RestClient({ ...rest, baseUrl: o.restUrl, strict: o.strict });
    this.rest.events.on('drift', (d) => this.drift({ ...d, source: 'rest' }));
    this.feed = new FeedLines(o, connection, { ...o.router, clock: routerClock, strict: o.strict, onDrift: (report, ctx) => this.drift({ ...report, source: 'feed', channel: ctx.channel }) }, this.rest);
    this.connection = this.feed.lines[0]!.connection;
    this.router = this.feed.lines[0]!.router;
    for (const line of this.feed.lines) {
      line.router.errors.subscribe((e) => this.report(e));
      line.connection.on('error', (e: unknown) => this.report(e));
    }
    this.scheduler = new ResyncScheduler(o.resync);
    const telemetry = ClientTelemetry.start(o.meterProvider, { clock: o.clock, errors$: this.errors$, connections: this.feed.lines.map((l) => l.connection) });
    this.metrics = new StreamMetrics(telemetry);
    this.replicas = new ReplicaCensus(telemetry);
    this.deps = { source: o.source ?? this.feed.source, scheduler: this.scheduler, timerOf: (key) => this.metrics.timer(key) };
  }

  /**
   * The order book of a market: exact integers, O(1) best bid/ask, non-allocating top-N reads.
   * The emitted `state` is a live view updated in place; a resync builds a new book object.
   * @throws InvalidParameterError naming the bad parameter.
   */
  orderBook(params: MarketParams): Observable<ReplicaState<StateChannelStates['book']>> {
    return this.stateReplica('book', params);
  }

  /** Best bid and offer of a market. @throws InvalidParameterError */
  bbo(params: MarketParams): Observable<ReplicaState<Bbo>> {
    return this.stateReplica('bbo', params);
  }

  /** Statistics of a market. @throws InvalidParameterError */
  marketStats(params: MarketParams): Observable<ReplicaState<MarketStats>> {
    return this.stateReplica('marketStats', params);
  }

  /** Trade candles (the newest ones, oldest first). @throws InvalidParameterError */
  candles(params: CandleParams): Observable<ReplicaState<readonly LastCandle[]>> {
    return this.stateReplica('candles', params);
  }

  /** Mark-price candles of a perp market. @throws InvalidParameterError */
  markCandles(params: PerpCandleParams): Observable<ReplicaState<readonly MarkCandle[]>> {
    return this.stateReplica('markCandles', params);
  }

  /**
   * Public trades, each exactly once in `sequence` order, with an explicit gap marker where
   * some could not be recovered. @throws InvalidParameterError
   */
  trades(params: MarketParams): Observable<EventItem<Trade>> {
    return this.eventReplica('trades', params);
  }

  /** Funding rates of a perp market, exactly once, with gap markers. @throws InvalidParameterError */
  fundingRates(params: PerpMarketParams): Observable<EventItem<FundingRate>> {
    return this.eventReplica('fundingRates', params);
  }

  /** Fills of a subaccount, exactly once, with gap markers. @throws InvalidParameterError */
  fills(params: AccountParams): Observable<EventItem<Fill>> {
    return this.eventReplica('fills', params);
  }

  /** The newest trades of a market with the stream's status (`live`, `resyncing`, ...), conflated. @throws InvalidParameterError */
  recentTrades(params: MarketParams): Observable<ReplicaState<EventLog<Trade>>> {
    return this.eventLog('trades', params);
  }

  /** The newest funding rates of a perp market with the stream's status, conflated. @throws InvalidParameterError */
  recentFundingRates(params: PerpMarketParams): Observable<ReplicaState<EventLog<FundingRate>>> {
    return this.eventLog('fundingRates', params);
  }

  /** The newest fills of a subaccount with the stream's status, conflated. @throws InvalidParameterError */
  recentFills(params: AccountParams): Observable<ReplicaState<EventLog<Fill>>> {
    return this.eventLog('fills', params);
  }

  /** The subaccount record. @throws InvalidParameterError */
  subaccount(params: AccountParams): Observable<ReplicaState<Subaccount>> {
    return this.stateReplica('account', params);
  }

  /**
   * Balances by token id. The map is a live view, updated in place by each update
   * and replaced by a new map when the stream resyncs (it never mixes two snapshots): read it
   * when an emission arrives, or copy it (`new Map(state)`) to keep a point-in-time value.
   * @throws InvalidParameterError
   */
  balances(params: AccountParams): Observable<ReplicaState<ReadonlyMap<string, Balance>>> {
    return this.stateReplica('balances', params);
  }

  /**
   * Open positions by market id. The map is a live view, updated in place by each update
   * and replaced by a new map when the stream resyncs (it never mixes two snapshots): read it
   * when an emission arrives, or copy it (`new Map(state)`) to keep a point-in-time value.
   * @throws InvalidParameterError
   */
  positions(params: AccountParams): Observable<ReplicaState<ReadonlyMap<number, Position>>> {
    return this.stateReplica('positions', params);
  }

  /**
   * Open orders by order id. The map is a live view, updated in place by each update
   * and replaced by a new map when the stream resyncs (it never mixes two snapshots): read it
   * when an emission arrives, or copy it (`new Map(state)`) to keep a point-in-time value.
   * @throws InvalidParameterError
   */
  openOrders(params: AccountParams): Observable<ReplicaState<ReadonlyMap<string, Order>>> {
    return this.stateReplica('orders', params);
  }

  /**
   * Everything about one subaccount (record, balances, positions, open orders, recent fills)
   * in one state, with the list of what changed; after a reconnect it reconciles from REST.
   * Each emission's `state` is a new object, but its `balances`, `positions` and `openOrders`
   * maps are live views (updated in place, replaced on a resync of their part): `changes`
   * says exactly what each emission changed (before and after per key); copy a map to keep it.
   * @throws InvalidParameterError
   */
  account(params: AccountParams): Observable<AccountReplicaState> {
    const scope = accountScopeOf(params);
    const key = `accountReplica|${streamKey('account', scope)}`;
    // Its parts are this client's replicas of the part streams (applied and timed once, shared
    // with direct subscribers); the combined emissions are not timed.
    return this.pool.observe(
      key,
      () => {
        this.assertOpen();
        const replica = new AccountReplica(scope, { ...this.deps, shared: this.shared }, this.replicaOptions()).start();
        // Its leased parts are counted as replicas of their own.
        return this.replicas.track(key, replica, { get resyncCounts() { return replica.ownResyncCounts; } });
      },
      (r) => r.replica.states$,
    );
  }

  /**
   * What this client's replicas run on: its replica source and resync scheduler. Internal
   * (ReplicaRelay builds its replicas on them); not for applications.
   * @internal
   */
  get replicaDeps(): ReplicaDeps {
    return this.deps;
  }

  /**
   * Raw, validated updates of any channel, without a replica (no snapshot, no resync).
   * `scope` uses the feed's keys (`market_id`, `is_perps`, `interval`, `address`, `subaccount_id`).
   */
  updates(channel: ChannelName, scope: Scope): Observable<UpdateEvent> {
    this.assertOpen();
    const raw = this.router.raw(channel, scope);
    return new GuardedObservable<UpdateEvent>(this.guardSink, (subscriber) => raw.subscribe(subscriber));
  }

  /**
   * Resolves with the first `live` emission of a replica observable of this client (see
   * {@link whenLive}: hold a subscription of your own for the state to keep following).
   * @example
   * const { state } = await client.whenLive(client.orderBook(p), { signal: AbortSignal.timeout(10_000) });
   * @throws AbortedError when the signal fires first; the replica's own error when it fails first.
   */
  whenLive<E extends { readonly status: ReplicaStatus }>(source: Observable<E>, options?: WhenLiveOptions): Promise<E> {
    return whenLive(source, options);
  }

  /**
   * A replica observable of this client read with `for await` (see {@link iterate}).
   * @example
   * for await (const e of client.iterate(client.orderBook(p), { conflate: true, signal })) draw(e);
   * @throws InvalidParameterError for a bad `bufferSize`.
   */
  iterate<T>(source: Observable<T>, options?: IterateOptions): AsyncIterable<T> {
    return iterate(source, options);
  }

  /** Latency and staleness percentiles of every stream that had updates. */
  streamMetrics(): StreamMetricsSnapshot[] {
    return this.metrics.snapshot();
  }

  /** Resyncs started by trigger, summed over the replicas currently running. */
  resyncCounts(): Record<ResyncTrigger, number> {
    return this.replicas.resyncCounts();
  }

  /**
   * What each feed line is doing (`lines` / `wsUrls`): its connection state, the updates it
   * brought first or late, its holes another line filled, and the resyncs that spared.
   */
  lineStats(): LineStats {
    return this.feed.stats();
  }

  /** Number of replicas running and of server subscriptions held (0 and 0 after every subscriber left). */
  activity(): { replicas: number; serverSubscriptions: number; pendingRequests: number } {
    return { replicas: this.pool.size, serverSubscriptions: this.router.activeServerSubscriptions(), pendingRequests: this.router.pendingRequests() };
  }

  /** Closes every replica (their observables complete), the router and the socket; releases every timer. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pool.closeAll();
    this.feed.close();
    this.scheduler.close();
    this.errorSubject.complete();
    this.events.removeAllListeners();
    await this.options.record?.close();
  }

  private stateReplica<C extends keyof StateChannelStates>(channel: C, params: unknown): Observable<ReplicaState<StateChannelStates[C]>> {
    const scope = scopeOf(channel, params);
    return this.pooled(
      streamKey(channel, scope),
      () => {
        const override = this.options.reducers?.[channel] as ((standard: Reducer<StateChannelStates[C]>) => Reducer<StateChannelStates[C]>) | undefined;
        const options = this.replicaOptions();
        return (override ? createReplicaWith(channel, scope, override(stateReducer(channel)), this.deps, options) : createStateReplica(channel, scope, this.deps, options)).start();
      },
      (r) => r.states$,
    );
  }

  private eventReplica<C extends EventChannel>(channel: C, params: unknown): Observable<EventItem<EventChannelRecords[C]>> {
    return this.pooledEventReplica(channel, params, (r) => r.events$);
  }

  private eventLog<C extends EventChannel>(channel: C, params: unknown): Observable<ReplicaState<EventLog<EventChannelRecords[C]>>> {
    return this.pooledEventReplica(channel, params, (r) => r.states$);
  }

  /** One event replica per stream, read either as its items or as its recent log with status. */
  private pooledEventReplica<C extends EventChannel, T>(channel: C, params: unknown, select: (r: EventReplica<EventChannelRecords[C]>) => Observable<T>): Observable<T> {
    const scope = scopeOf(channel, params);
    return this.pooled(streamKey(channel, scope), () => createEventReplica(channel, scope, this.deps, this.replicaOptions()).start(), select);
  }

  /**
   * One replica per key, shared by every subscriber: created (and counted) when the first one
   * subscribes, closed when the last one leaves. Replicas time their updates themselves
   * (`ReplicaDeps.timerOf`).
   */
  private pooled<R extends TrackedReplica, T>(key: string, create: () => R, select: (replica: R) => Observable<T>): Observable<T> {
    return this.pool.observe(key, () => this.track(key, create), (r) => select(r.replica));
  }

  /** The pooled replica of `key` for a replica made of others (see SharedReplicas). */
  private lease<R extends TrackedReplica>(key: string, create: () => R): ReplicaLease<R> {
    const held = this.pool.lease(key, () => this.track(key, create));
    return { replica: held.value.replica, release: held.release };
  }

  /** A new replica of the open client, counted in `resyncCounts()` until it closes. */
  private track<R extends TrackedReplica>(key: string, create: () => R): ReturnType<ReplicaCensus['track']> & { readonly replica: R } {
    this.assertOpen();
    return this.replicas.track(key, create());
  }

  /** Parts of account replicas: the same replicas as `subaccount()`, `balances()`, ... of the stream. */
  private readonly shared: SharedReplicas = {
    // A custom reducer's state may not be what the account replica reads: it runs its own part then.
    state: (channel, params) => {
      if (this.options.reducers?.[channel] !== undefined) return undefined;
      const scope = scopeOf(channel, params);
      return this.lease(streamKey(channel, scope), () => createStateReplica(channel, scope, this.deps, this.replicaOptions()).start());
    },
  };

  private assertOpen(): void {
    if (this.closed) throw new ClientClosedError('the client is closed: create a new ExchangeClient');
  }

  private replicaOptions(): StreamSyncOptions {
    return { ...this.options.replica, ...this.replicaIo, onError: (e) => this.report(e) };
  }

  private drift(report: Parameters<ClientEvents['drift']>[0]): void {
    this.options.onDrift?.(report);
    this.events.emit('drift', report);
  }

  private report(error: unknown): void {
    const e = asExchangeReplicaError(error);
    if (this.reported.has(e)) return;
    this.reported.add(e);
    this.errorSubject.next(e);
    this.events.emit('error', e);
  }
}

