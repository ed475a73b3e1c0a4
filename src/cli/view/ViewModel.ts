/**
 * Everything the live view shows, kept current by subscriptions to the client: per market
 * the book, stats, last trades and funding; one subaccount; the connection; errors. The
 * drawing reads it at its own pace (the book is a live view, read at draw time). @internal
 */
import type { Subscription } from 'rxjs';
import type { ExchangeClient } from '../../client';
import type { ConnectionStateName } from '../../connection';
import type { FundingRate, Market, MarketStats, Trade } from '../../protocol';
import type { AccountReplicaState, OrderBook, ReplicaState, ReplicaStatus } from '../../replicas';
import { MarketFormats, type MarketFormat } from './MarketFormat';
import { ViewMetrics } from './ViewMetrics';

/** Trades kept per market (newest first). */
export const TRADES_KEPT = 8;

/** One market's part of the view. */
export interface MarketView {
  readonly market: Market;
  readonly fmt: MarketFormat;
  book: ReplicaState<OrderBook> | undefined;
  stats: ReplicaState<MarketStats> | undefined;
  /** Newest first. */
  readonly trades: Trade[];
  tradeCount: number;
  tradeGaps: number;
  funding: FundingRate | undefined;
  fundingCount: number;
  /** Statuses of the event streams (from their recent logs). */
  tradeStatus: ReplicaStatus | undefined;
  fundingStatus: ReplicaStatus | undefined;
}

/** The subaccount shown. */
export interface AccountTarget {
  readonly address: string;
  readonly subaccount_id: number;
}

/** A subscription and its status, for the status panel. */
export interface SubscriptionStatus {
  readonly name: string;
  /** A replica status, or `waiting` before the first emission. */
  readonly status: ReplicaStatus | 'waiting';
  /** Counts or resyncs, short. */
  readonly detail: string;
}

export class ViewModel {
  readonly markets: MarketView[];
  readonly metrics = new ViewMetrics();
  account: AccountReplicaState | undefined;
  connection: { state: ConnectionStateName; reason: string } = { state: 'idle', reason: 'created' };
  lastError: { message: string; atMs: number } | undefined;
  errorCount = 0;
  private readonly subs: Subscription[] = [];
  private readonly onFrame = (): void => this.metrics.noteFrame();

  /** Formats of every listed market (positions and orders may be in markets not shown). */
  readonly formats: MarketFormats;
  readonly accountTarget: AccountTarget | undefined;
  /** Decimals by token id (for balances). */
  readonly tokenDecimals: ReadonlyMap<string, number>;

  constructor(
    private readonly client: ExchangeClient,
    targets: { readonly markets: readonly Market[]; readonly allMarkets: readonly Market[]; readonly account: AccountTarget | undefined; readonly tokenDecimals: ReadonlyMap<string, number> },
  ) {
    this.formats = new MarketFormats([...targets.allMarkets, ...targets.markets]);
    this.accountTarget = targets.account;
    this.tokenDecimals = targets.tokenDecimals;
    this.markets = targets.markets.map((market) => ({ market, fmt: this.formats.of(market.market_type, market.market_id)!, book: undefined, stats: undefined, trades: [], tradeCount: 0, tradeGaps: 0, funding: undefined, fundingCount: 0, tradeStatus: undefined, fundingStatus: undefined }));
  }

  /** Subscribes to everything shown. */
  start(): this {
    const c = this.client;
    this.subs.push(c.connection.state$.subscribe(({ to, reason }) => (this.connection = { state: to, reason })));
    c.connection.on('message', this.onFrame);
    this.subs.push(
      c.errors$.subscribe((e) => {
        this.errorCount++;
        this.lastError = { message: `${e.code}: ${e.message}`, atMs: Date.now() };
      }),
    );
    for (const mv of this.markets) {
      const params = { market_type: mv.market.market_type, market_id: mv.market.market_id };
      this.subs.push(
        c.orderBook(params).subscribe((e) => {
          mv.book = e;
          if (e.cause === 'update') this.metrics.noteUpdate(e.timestampNs);
        }),
        c.marketStats(params).subscribe((e) => {
          mv.stats = e;
          if (e.cause === 'update') this.metrics.noteUpdate(e.timestampNs);
        }),
        c.trades(params).subscribe((item) => {
          if (item.kind === 'gap') {
            mv.tradeGaps++;
            return;
          }
          mv.tradeCount++;
          mv.trades.unshift(item.record);
          if (mv.trades.length > TRADES_KEPT) mv.trades.pop();
        }),
        // Same replica as the items above: only its status is read here.
        c.recentTrades(params).subscribe((e) => (mv.tradeStatus = e.status)),
      );
      if (mv.market.market_type === 'perp') {
        this.subs.push(
          c.fundingRates({ market_id: mv.market.market_id }).subscribe((item) => {
            if (item.kind === 'record') {
              mv.funding = item.record;
              mv.fundingCount++;
            }
          }),
          c.recentFundingRates({ market_id: mv.market.market_id }).subscribe((e) => (mv.fundingStatus = e.status)),
        );
      }
    }
    if (this.accountTarget) {
      this.subs.push(
        c.account(this.accountTarget).subscribe((e) => {
          this.account = e;
          if (e.cause === 'update') this.metrics.noteUpdate(e.timestampNs);
        }),
      );
    }
    return this;
  }

  /** Every subscription with its status, in display order. */
  subscriptions(): SubscriptionStatus[] {
    const out: SubscriptionStatus[] = [];
    for (const mv of this.markets) {
      const s = mv.fmt.symbol;
      out.push(stateStatus(`book ${s}`, mv.book));
      out.push(stateStatus(`stats ${s}`, mv.stats));
      out.push({ name: `trades ${s}`, status: mv.tradeStatus ?? 'waiting', detail: `${mv.tradeCount}${mv.tradeGaps ? `, ${mv.tradeGaps} gaps` : ''}` });
      if (mv.market.market_type === 'perp') out.push({ name: `funding ${s}`, status: mv.fundingStatus ?? 'waiting', detail: `${mv.fundingCount}` });
    }
    if (this.accountTarget) {
      const a = this.account;
      out.push({ name: 'account', status: a ? a.status : 'waiting', detail: a ? resynced(Object.values(a.snapshotIds).reduce((x, y) => Math.max(x, y), 0)) : '' });
    }
    return out;
  }

  /** Unsubscribes everything (the client closes the replicas when the last subscriber leaves). */
  stop(): void {
    this.client.connection.off('message', this.onFrame);
    for (const s of this.subs.splice(0)) s.unsubscribe();
  }
}

function stateStatus(name: string, e: ReplicaState<unknown> | undefined): SubscriptionStatus {
  if (!e) return { name, status: 'waiting', detail: '' };
  return { name, status: e.status, detail: resynced(e.snapshotId) };
}

/** Resyncs behind a snapshot id (the first snapshot is 1), or nothing. */
function resynced(snapshotId: number): string {
  return snapshotId > 1 ? `resynced ${snapshotId - 1}x` : '';
}
