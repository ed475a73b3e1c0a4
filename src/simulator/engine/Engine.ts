/**
 * The simulated exchange: a deterministic world (markets with price-time-priority books,
 * accounts, history) moved by a seeded order flow or by explicit orders, publishing every
 * change to its stream hub, and answering every REST operation in-process.
 *
 * Same seed and same calls give the same published events (timestamps aside). Every
 * engine event ends by publishing what it changed, and queries run between events, so a
 * snapshot's `sequence` always names exactly the updates it includes.
 */
import { CHANNELS, OPERATIONS, parseQueryParams, type ChannelName, type Fill, type Market, type OperationName, type Order, type ParamValues, type Scope } from '../../protocol';
import { systemClock, type Clock } from '../../clock/Clock';
import { messageOf } from '../../errors/messageOf';
import type { ScopeChecker } from '../ScopeChecker';
import type { StreamHub } from '../StreamHub';
import { SimStreamHub } from '../SimStreamHub';
import { buildWorld } from './buildWorld';
import { QueryError } from './QueryError';
import type { Matcher } from './Matcher';
import type { OrderFlow } from './OrderFlow';
import { requireSubaccount, toSubmitRequest, type CancelOrderRequest, type PlaceOrderRequest } from './orderRequest';
import { publishChanges } from './publishChanges';
import { OrderListings, QUERY_HANDLERS } from './queries';
import type { World } from './World';

export type { CancelOrderRequest, PlaceOrderRequest } from './orderRequest';

export interface EngineOptions {
  /** Seed of the world and the order flow. @default 1 */
  seed?: number;
  /** Time source of event timestamps (its `nowNs()`: wall-clock Unix nanoseconds). @default systemClock */
  clock?: Clock;
  /** Where updates are published. @default new SimStreamHub() */
  hub?: StreamHub;
  /** Order-flow events of one perp market between two funding settlements. @default 200 */
  fundingIntervalEvents?: number;
  /** Order-flow events run (unpublished) while building the world, so history exists at start. @default 1000 */
  warmupEvents?: number;
}

/** Result of `Engine.query`: the HTTP status and the JSON body the REST server sends. */
export interface QueryResult {
  status: number;
  body: unknown;
}

export class Engine implements ScopeChecker {
  readonly hub: StreamHub;
  /** Every listed market (spot and perp; ids are unique across types). */
  readonly markets: readonly Market[];
  /** Every account and its subaccount ids. */
  readonly accounts: readonly { address: string; subaccount_ids: readonly number[] }[];
  /** Whether `/v1/status` reports the feed as served. @default true */
  feedAvailable = true;
  private readonly w: World;
  private readonly flow: OrderFlow;
  private readonly matcher: Matcher;
  private readonly listings = new OrderListings();

  /**
   * @example
   * const engine = new Engine({ seed: 7 });
   * engine.step(100);
   * engine.query('bbo', { market_type: 'perp', market_id: 0 });
   */
  constructor(options: EngineOptions = {}) {
    const opts = { seed: 1, fundingIntervalEvents: 200, warmupEvents: 1_000, ...options };
    this.hub = options.hub ?? new SimStreamHub();
    const clock = options.clock ?? systemClock;
    const built = buildWorld({ seed: opts.seed, now: () => clock.nowNs(), hub: this.hub, fundingIntervalEvents: opts.fundingIntervalEvents, warmupEvents: opts.warmupEvents });
    this.w = built.world;
    this.flow = built.flow;
    this.matcher = built.matcher;
    this.markets = this.w.markets.map((m) => m.record);
    this.accounts = [...this.w.accounts.values()].map((a) => ({ address: a.address, subaccount_ids: [...a.subaccounts.keys()] }));
  }

  /** A transaction hash rejected at admission: `GET /transactions/{hash}` answers 404. */
  get rejectedTransactionHash(): string {
    return this.w.explorer.rejectedHash;
  }

  /** A transaction that was sequenced and reverted (`status` `failed`, with `error`). */
  get failedTransactionHash(): string {
    return this.w.explorer.failedHash;
  }

  /** Advances the seeded order flow by `n` events, publishing every stream update they cause. */
  step(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.w.eventNs = this.w.now();
      this.flow.event();
      publishChanges(this.w, true);
    }
  }

  /**
   * Places an order for a simulated account; it matches at once (price-time priority,
   * self-trades cancel the resting order). Returns the order's record after matching and
   * the placing subaccount's fills.
   * @throws SimulatorRequestError for an unknown market or account, a paused market, a
   * restricted subaccount, bad arguments or (spot) insufficient balance.
   */
  placeOrder(req: PlaceOrderRequest): { order: Order; fills: Fill[] } {
    const submit = toSubmitRequest(this.w, req);
    this.w.eventNs = this.w.now();
    const res = this.matcher.submit(submit);
    publishChanges(this.w, true);
    return { order: res.record, fills: res.fills };
  }

  /**
   * Cancels an open order of a simulated account. Returns its final record, or undefined
   * when the subaccount has no open order with that id.
   * @throws SimulatorRequestError for an unknown account or subaccount.
   */
  cancelOrder(req: CancelOrderRequest): Order | undefined {
    const sub = requireSubaccount(this.w, req.address, req.subaccount_id);
    const order = sub.openOrders.get(req.order_id);
    if (!order) return undefined;
    this.w.eventNs = this.w.now();
    const record = this.matcher.cancel(order);
    publishChanges(this.w, true);
    return record;
  }

  /**
   * Serves one operation exactly as the REST server does: parameters checked first (400
   * INVALID_PARAMETER naming the parameter), then existence (404 NOT_FOUND), then the
   * envelope (`data`, `next_cursor` on paged operations, `sequence` on snapshot
   * operations, `timestamp_ns`) or the bare record of an unversioned operation.
   */
  query(name: OperationName, params: ParamValues = {}): QueryResult {
    const op = OPERATIONS[name];
    if (!op) return { status: 404, body: { code: 'NOT_FOUND', error: `unknown operation ${String(name)}` } };
    const query = new URLSearchParams();
    const path: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined) continue;
      if ((op.params as Record<string, { in?: string }>)[k]?.in === 'path') path[k] = String(v);
      else query.set(k, String(v));
    }
    const parsed = parseQueryParams(op.params, op.rules, query, path);
    if (!parsed.ok) return { status: 400, body: { code: 'INVALID_PARAMETER', error: parsed.issue.message } };
    try {
      const answer = QUERY_HANDLERS[name]({ w: this.w, listings: this.listings, feedAvailable: this.feedAvailable }, parsed.value);
      if (!op.versioned) return { status: 200, body: answer.data };
      const body: Record<string, unknown> = { data: answer.data };
      if (op.pages) body.next_cursor = answer.nextCursor ?? null;
      if (op.snapshotOf) body.sequence = (answer.sequence ?? 0n).toString();
      body.timestamp_ns = this.w.now().toString();
      return { status: 200, body };
    } catch (e) {
      if (e instanceof QueryError) return { status: e.status, body: { code: e.code, error: e.message } };
      return { status: 500, body: { code: 'INTERNAL_ERROR', error: `internal error: ${messageOf(e)}` } };
    }
  }

  /** Error message when a (well-formed) scope names an unknown market or account, else undefined. */
  checkScopeExists(channel: ChannelName, scope: Scope): string | undefined {
    const def = CHANNELS[channel];
    if (def.scopeKeys.includes('market_id')) {
      const type = def.perpOnly || scope.is_perps ? 'perp' : 'spot';
      if (!this.w.market(type, scope.market_id!)) return `unknown ${type} market ${scope.market_id} for channel ${channel}`;
    }
    if (def.scopeKeys.includes('address')) {
      const account = this.w.accounts.get(scope.address!);
      if (!account) return `unknown account ${scope.address} for channel ${channel}`;
      if (!account.subaccounts.has(scope.subaccount_id!)) return `unknown subaccount ${scope.subaccount_id} of account ${scope.address} for channel ${channel}`;
    }
    return undefined;
  }
}
