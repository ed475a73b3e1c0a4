/**
 * The engine's whole state in one container: markets, accounts, explorer data, the clock,
 * the stream hub and the sets of things the current engine event changed. Matching,
 * order flow, publishing and queries all work on a World. @internal
 */
import type { MarketType } from '../../protocol';
import type { StreamHub } from '../StreamHub';
import type { ExplorerData } from './ExplorerData';
import type { OrderIdFactory } from './OrderIdFactory';
import type { MarketState } from './MarketState';
import type { SubaccountState } from './SubaccountState';

export interface AccountState {
  readonly address: string;
  readonly subaccounts: Map<number, SubaccountState>;
}

export class World {
  readonly markets: MarketState[] = [];
  readonly marketsById = new Map<number, MarketState>();
  readonly accounts = new Map<string, AccountState>();
  /** Subaccounts holding a position, per perp market id (for funding and revaluation). */
  readonly holders = new Map<number, Set<SubaccountState>>();
  orderSeq = 0;
  /** Wall-clock time of the current engine event: every record it makes carries it. */
  eventNs = 0n;
  readonly touchedMarkets = new Set<MarketState>();
  readonly touchedSubs = new Set<SubaccountState>();

  constructor(
    readonly hub: StreamHub,
    readonly now: () => bigint,
    readonly orderIds: OrderIdFactory,
    readonly explorer: ExplorerData,
  ) {}

  get eventMs(): number {
    return Number(this.eventNs / 1_000_000n);
  }

  addMarket(m: MarketState): void {
    this.markets.push(m);
    this.marketsById.set(m.spec.id, m);
    if (m.isPerp) this.holders.set(m.spec.id, new Set());
  }

  /** The market of that type and id, if listed. */
  market(type: MarketType, id: number): MarketState | undefined {
    const m = this.marketsById.get(id);
    return m && m.spec.type === type ? m : undefined;
  }

  perp(id: number): MarketState | undefined {
    return this.market('perp', id);
  }

  subaccount(address: string, id: number): SubaccountState | undefined {
    return this.accounts.get(address)?.subaccounts.get(id);
  }

  touchMarket(m: MarketState): void {
    this.touchedMarkets.add(m);
  }

  touchSub(s: SubaccountState): void {
    this.touchedSubs.add(s);
  }
}
