/** The combined state of one subaccount and the changes an AccountReplica reports. */
import type { Balance, Fill, Order, Position, Subaccount } from '../../protocol';
import type { EmissionCause } from '../ReplicaState';
import type { ReplicaStatus } from '../ReplicaStatus';

/** The streams an account replica combines. */
export const ACCOUNT_PARTS = ['account', 'balances', 'positions', 'orders', 'fills'] as const;
export type AccountPart = (typeof ACCOUNT_PARTS)[number];

/**
 * Everything known about one `{address, subaccount_id}`. Each emission carries a new object,
 * but `balances`, `positions` and `openOrders` are live views (see KeyedSet): updated in
 * place by each update of their part and replaced by a new map when that part resyncs, so
 * an older emission's maps show the latest content of that snapshot. `changes` tell exactly
 * what each emission changed; copy a map (`new Map(state.openOrders)`) to keep a point-in-time value.
 */
export interface AccountState {
  readonly address: string;
  readonly subaccountId: number;
  readonly subaccount: Subaccount;
  /** By `token_id` (a live view). */
  readonly balances: ReadonlyMap<string, Balance>;
  /** Open positions by `market_id` (a live view). */
  readonly positions: ReadonlyMap<number, Position>;
  /** Open orders by `order_id` (a live view). */
  readonly openOrders: ReadonlyMap<string, Order>;
  /** The newest fills, oldest first. */
  readonly recentFills: readonly Fill[];
}

/** One difference between two states; `before`/`after` absent means "not in the set". */
export type AccountChange =
  | { readonly kind: 'subaccount'; readonly before: Subaccount | undefined; readonly after: Subaccount }
  | { readonly kind: 'balance'; readonly token_id: string; readonly before: Balance | undefined; readonly after: Balance | undefined }
  | { readonly kind: 'position'; readonly market_id: number; readonly before: Position | undefined; readonly after: Position | undefined }
  | { readonly kind: 'order'; readonly order_id: string; readonly before: Order | undefined; readonly after: Order | undefined }
  | { readonly kind: 'fill'; readonly fill: Fill }
  | { readonly kind: 'fillGap'; readonly fromSequence: bigint; readonly toSequence: bigint; readonly reason: 'history' | 'overflow' };

/** One emission of an AccountReplica. */
export interface AccountReplicaState {
  /** The combined status: the worst of the parts (failed, stale, syncing, resyncing, live). */
  readonly status: ReplicaStatus;
  readonly state: AccountState;
  /** What changed with this emission (empty on the first one, which is the baseline). */
  readonly changes: readonly AccountChange[];
  /** The part whose emission caused this one. */
  readonly source: AccountPart;
  readonly cause: EmissionCause;
  /** True when `changes` come from a fresh REST snapshot of `source` after a resync or reconnect. */
  readonly reconciled: boolean;
  /** Server time (ns) of what `source` last applied. */
  readonly timestampNs: bigint;
  /** Local time (ns) at which it was received. */
  readonly receivedAtNs: bigint;
  /** Snapshot counter of each part. */
  readonly snapshotIds: Readonly<Record<AccountPart, number>>;
}
