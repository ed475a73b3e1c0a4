/**
 * One subaccount's state in the engine: token balances, perp positions, orders, fills and
 * history logs, plus the records last published for it (what REST serves) and what changed
 * in the current engine event (what gets published next). @internal
 */
import type { Balance, Delegation, Fill, FundingPayment, Order, Position, Resolution, Subaccount, SubaccountStatus, Transfer } from '../../protocol';
import type { EngineOrder } from './Book';
import { seriesPerResolution, type Bucket, type BucketSeries } from './BucketSeries';
import { SeqLog } from './SeqLog';

export interface TokenBalance {
  total: bigint;
  locked: bigint;
  deposited: bigint;
  withdrawn: bigint;
}

/** An open (or just closed) perp position; sizes in lots, signed (long > 0). */
export interface PositionState {
  readonly marketId: number;
  size: number;
  /** Quote lots paid for the open size (always >= 0); the entry price derives from it. */
  costBasis: bigint;
  /** Entry price of the last non-zero position (kept for the closing record). */
  entryTicks: number;
  realized: bigint;
  fees: bigint;
  funding: bigint;
}

export interface PnlBucket extends Bucket {
  equity: bigint;
  realized: bigint;
  unrealized: bigint;
}

/** Retention bounds per subaccount (older history is dropped). */
export const SUBACCOUNT_RETENTION = { closedOrders: 2_000, fills: 5_000, history: 2_000, pnlBuckets: 1_500 } as const;

export class SubaccountState {
  readonly balances = new Map<string, TokenBalance>();
  readonly positions = new Map<number, PositionState>();
  /** Every retained order record, in creation order (Map insertion order). */
  readonly orderRecords = new Map<string, Order>();
  /** Resting orders of this subaccount. */
  readonly openOrders = new Map<string, EngineOrder>();
  private closedIds: string[] = [];
  private closedHead = 0;
  readonly fills = new SeqLog<Fill>((f) => Number(f.sequence), SUBACCOUNT_RETENTION.fills);
  readonly fundingPayments = new SeqLog<FundingPayment>((f) => Number(f.sequence), SUBACCOUNT_RETENTION.history);
  readonly transfers = new SeqLog<Transfer>((t) => Number(t.sequence), SUBACCOUNT_RETENTION.history);
  readonly pnl: Record<Resolution, BucketSeries<PnlBucket>> = seriesPerResolution<PnlBucket>(SUBACCOUNT_RETENTION.pnlBuckets);
  fillSeq = 0;
  fundingSeq = 0;
  transferSeq = 0;
  nextClientOrderId = 1_000n;
  /** Lifetime totals for PnL history. */
  realizedTotal = 0n;

  // ---- what REST serves: the records as last published ----
  record!: Subaccount;
  readonly positionRecords = new Map<number, Position>();
  readonly balanceRecords = new Map<string, Balance>();

  // ---- changes of the current engine event ----
  readonly changedOrders = new Map<string, Order>();
  readonly newFills: Fill[] = [];
  readonly changedBalances = new Set<string>();

  constructor(
    readonly address: string,
    readonly id: number,
    readonly status: SubaccountStatus,
    readonly createdNs: bigint,
    readonly delegations: readonly Delegation[],
    /** Leverage applied to this subaccount's cross positions. */
    readonly leverage: number,
  ) {}

  /** True when the subaccount may place orders. */
  get canTrade(): boolean {
    return this.status === 'active';
  }

  balance(token: string): TokenBalance {
    let b = this.balances.get(token);
    if (!b) {
      b = { total: 0n, locked: 0n, deposited: 0n, withdrawn: 0n };
      this.balances.set(token, b);
    }
    return b;
  }

  available(token: string): bigint {
    const b = this.balances.get(token);
    return b ? b.total - b.locked : 0n;
  }

  /** Changes a balance's total (and locked) and marks it for publishing (the caller touches the subaccount). */
  adjust(token: string, totalDelta: bigint, lockedDelta = 0n): void {
    const b = this.balance(token);
    b.total += totalDelta;
    b.locked += lockedDelta;
    this.changedBalances.add(token);
  }

  /** Stores a new version of an order record and marks it for publishing. */
  putOrder(record: Order): void {
    const closed = record.status !== 'open';
    this.orderRecords.set(record.order_id, record);
    this.changedOrders.set(record.order_id, record);
    if (closed) {
      // An order closes once; the oldest closed records are dropped first.
      this.closedIds.push(record.order_id);
      if (this.closedIds.length - this.closedHead > SUBACCOUNT_RETENTION.closedOrders) this.orderRecords.delete(this.closedIds[this.closedHead++]!);
      if (this.closedHead > 4_096) {
        this.closedIds = this.closedIds.slice(this.closedHead);
        this.closedHead = 0;
      }
    }
  }

  addFill(fill: Fill): void {
    this.fills.push(fill);
    this.newFills.push(fill);
  }

  /** Clears the per-event change sets after publishing. */
  clearChanges(): void {
    this.changedOrders.clear();
    this.newFills.length = 0;
    this.changedBalances.clear();
  }
}
