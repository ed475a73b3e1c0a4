/**
 * One object state for one `{address, subaccount_id}`, combining the `account`, `balances`,
 * `positions`, `orders` and `fills` replicas. Each part keeps its own sync; whenever a part
 * changes, the replica emits the new combined state with the list of what changed. After a
 * reconnect (or any resync) each part is rebuilt from REST and the differences with what
 * was shown before are reported as changes (`reconciled: true`).
 */
import { Subject, type Observable, type Subscription } from 'rxjs';
import { Multicast } from '../../util/Multicast';
import type { Balance, Fill, Order, Position, Subaccount } from '../../protocol';
import { createEventReplica, createStateReplica, type EventReplicaFullOptions, type ReplicaDeps } from '../createReplica';
import type { EventItem } from '../EventItem';
import type { EventReplica } from '../EventReplica';
import type { StateChannelStates } from '../channelReducers';
import type { ReplicaLease } from '../SharedReplicas';
import type { EmissionCause, ReplicaState } from '../ReplicaState';
import type { ReplicaStatus, StatusChange } from '../ReplicaStatus';
import { RESYNC_TRIGGERS, type ResyncTrigger, type StreamSync } from '../StreamSync';
import { emptyResyncCounts } from '../streamSyncOptions';
import { recordOf } from '../../util/recordOf';
import { ACCOUNT_PARTS, type AccountChange, type AccountPart, type AccountReplicaState, type AccountState } from './AccountState';
import type { KeyedSet } from '../reducers/KeyedSet';
import { combineStatuses, diffKeyedSet, diffSubaccount } from './diffAccount';

/** Options applied to every part (see StreamSyncOptions, EventReducerOptions, EventReplicaOptions). */
export type AccountReplicaOptions = EventReplicaFullOptions;

export interface AccountScope {
  readonly address: string;
  readonly subaccount_id: number;
}

/** What the replica does with a part it runs itself. */
interface OwnedPart {
  readonly resyncCounts: Readonly<Record<ResyncTrigger, number>>;
  close(): void;
}

interface Parts {
  readonly account: StreamSync<Subaccount>;
  readonly balances: StreamSync<KeyedSet<string, Balance>>;
  readonly positions: StreamSync<KeyedSet<number, Position>>;
  readonly orders: StreamSync<KeyedSet<string, Order>>;
  readonly fills: EventReplica<Fill>;
}

type Views = {
  subaccount?: Subaccount;
  balances?: ReadonlyMap<string, Balance>;
  positions?: ReadonlyMap<number, Position>;
  openOrders?: ReadonlyMap<string, Order>;
  recentFills?: readonly Fill[];
};

/**
 * @example
 * const acct = new AccountReplica({ address, subaccount_id: 0 }, deps).start();
 * acct.states$.subscribe(({ state, changes }) => changes.forEach(log));
 * @throws InvalidParameterError for an invalid address or subaccount id.
 */
export class AccountReplica {
  /** The latest combined state (conflated), from the moment every part has its first snapshot. */
  readonly states$: Observable<AccountReplicaState>;
  /** Transitions of the combined status; `reason` names the part. */
  readonly status$: Observable<StatusChange>;
  /** The fills, exactly once, in sequence order (with gap markers). */
  readonly fills$: Observable<EventItem<Fill>>;
  readonly parts: Parts;

  private readonly scope: AccountScope;
  private readonly emissions = new Multicast<AccountReplicaState>(true);
  private readonly statusSubject = new Subject<StatusChange>();
  private readonly subscriptions: Subscription[] = [];
  private readonly partStatus: Record<AccountPart, ReplicaStatus>;
  private readonly snapshotIds: Record<AccountPart, number>;
  private readonly views: Views = {};
  /**
   * Parts whose status turned `live` and whose state has not come yet: a sync shows a new
   * state by moving to `live` (status$) and only then emitting it (states$), so until that
   * emission the account still holds the part's previous state (from before its resync) and
   * counts the part as what it was. Taken into the combined status with the state it brings.
   */
  private readonly turningLive = new Map<AccountPart, StatusChange>();
  /** Parts run by this replica (closed with it), and parts leased from `ReplicaDeps.shared` (released). */
  private readonly owned: OwnedPart[] = [];
  private readonly leases: ReplicaLease<unknown>[] = [];
  private combined: ReplicaStatus = 'syncing';
  private state?: AccountState;
  private pendingFillChanges: AccountChange[] = [];
  private lastTiming = { timestampNs: 0n, receivedAtNs: 0n };
  private failed = false;

  constructor(scope: AccountScope, timedDeps: ReplicaDeps, options: AccountReplicaOptions = {}) {
    // Parts it runs itself are not timed: a direct replica of the same stream, when there is
    // one, times it; timing both would count each update twice. Leased state parts are those
    // direct replicas (applied once, timed once).
    const deps: ReplicaDeps = { source: timedDeps.source, scheduler: timedDeps.scheduler };
    const shared = timedDeps.shared;
    this.scope = { address: scope.address, subaccount_id: scope.subaccount_id };
    const s = { address: scope.address, subaccount_id: scope.subaccount_id };
    const state = <C extends 'account' | 'balances' | 'positions' | 'orders'>(channel: C): StreamSync<StateChannelStates[C]> => {
      const lease = shared?.state(channel, s);
      if (lease === undefined) return this.own(createStateReplica(channel, s, deps, options));
      this.leases.push(lease);
      return lease.replica;
    };
    // Fills stay its own: a running event replica hands a newcomer only the items after it joined,
    // where a new one starts from the snapshot's history (what `client.fills()` promises).
    this.parts = { account: state('account'), balances: state('balances'), positions: state('positions'), orders: state('orders'), fills: this.own(createEventReplica('fills', s, deps, options)) };
    // A leased part may be running already: its status is where the combined one starts.
    this.partStatus = recordOf(ACCOUNT_PARTS, (p): ReplicaStatus => (this.owned.includes(this.parts[p]) ? 'syncing' : this.parts[p].status));
    this.combined = combineStatuses(Object.values(this.partStatus));
    this.snapshotIds = recordOf(ACCOUNT_PARTS, () => 0);
    this.states$ = this.emissions.observable;
    this.status$ = this.statusSubject.asObservable();
    this.fills$ = this.parts.fills.events$;
    this.wire();
  }

  get status(): ReplicaStatus {
    return this.combined;
  }

  /** The latest emission, undefined until every part has its first snapshot. */
  get latest(): AccountReplicaState | undefined {
    return this.emissions.latest;
  }

  /** Resyncs started, by trigger, summed over the parts. */
  get resyncCounts(): Readonly<Record<ResyncTrigger, number>> {
    return sumResyncCounts(ACCOUNT_PARTS.map((p) => this.parts[p]));
  }

  /** Resyncs of the parts this replica runs itself (its leased parts count where they are held). */
  get ownResyncCounts(): Readonly<Record<ResyncTrigger, number>> {
    return sumResyncCounts(this.owned);
  }

  start(): this {
    for (const p of ACCOUNT_PARTS) this.parts[p].start();
    return this;
  }

  close(): void {
    for (const s of this.subscriptions) s.unsubscribe();
    for (const p of this.owned) p.close();
    for (const l of this.leases.splice(0)) l.release();
    this.statusSubject.complete();
    this.emissions.complete();
  }

  private wire(): void {
    const { account, balances, positions, orders, fills } = this.parts;
    for (const p of ACCOUNT_PARTS) this.subscriptions.push(this.parts[p].status$.subscribe((c) => this.onPartStatus(p, c)));
    // The fills part's items reach us before the fills log that follows them (EventReplica emits
    // its log only after handing on that state's items), so each log takes the fills before it.
    // A part that fails for good (its observable errors) fails the whole replica with the same error.
    const error = (e: unknown) => this.fail(e);
    this.subscriptions.push(
      fills.events$.subscribe({
        next: (item) => {
          this.pendingFillChanges.push(item.kind === 'record' ? { kind: 'fill', fill: item.record } : { kind: 'fillGap', fromSequence: item.fromSequence, toSequence: item.toSequence, reason: item.reason });
        },
        error,
      }),
      account.states$.subscribe({ next: (e) => this.onPart('account', e, () => this.swap('subaccount', e.state, diffSubaccount)), error }),
      // The sets are live views: an update reports its own changed keys, a snapshot is diffed whole.
      balances.states$.subscribe({ next: (e) => this.onPart('balances', e, () => this.swap('balances', e.state, (b) => diffKeyedSet(b, e.state, e.cause, (token_id, before, after): AccountChange => ({ kind: 'balance', token_id, before, after })))), error }),
      positions.states$.subscribe({ next: (e) => this.onPart('positions', e, () => this.swap('positions', e.state, (b) => diffKeyedSet(b, e.state, e.cause, (market_id, before, after): AccountChange => ({ kind: 'position', market_id, before, after })))), error }),
      orders.states$.subscribe({ next: (e) => this.onPart('orders', e, () => this.swap('openOrders', e.state, (b) => diffKeyedSet(b, e.state, e.cause, (order_id, before, after): AccountChange => ({ kind: 'order', order_id, before, after })))), error }),
      fills.states$.subscribe({
        next: (e) =>
          this.onPart('fills', e, () => {
            this.views.recentFills = e.state.recent;
            return this.pendingFillChanges.splice(0);
          }),
        error,
      }),
    );
  }

  /** Registers a part this replica runs itself (closed with it). */
  private own<R extends OwnedPart>(part: R): R {
    this.owned.push(part);
    return part;
  }

  /** Stores a part's new value and returns what changed. */
  private swap<K extends keyof Views>(key: K, value: NonNullable<Views[K]>, diff: (before: Views[K], after: NonNullable<Views[K]>) => AccountChange[]): AccountChange[] {
    const before = this.views[key];
    this.views[key] = value;
    return diff(before, value);
  }

  private onPart(part: AccountPart, emission: ReplicaState<unknown>, update: () => AccountChange[]): void {
    const changes = update();
    this.snapshotIds[part] = emission.snapshotId;
    this.lastTiming = { timestampNs: emission.timestampNs, receivedAtNs: emission.receivedAtNs };
    // The state of a part that turned live is here: only now may the account count it as live.
    const turned = this.turningLive.get(part);
    this.turningLive.delete(part);
    const statusChanged = turned !== undefined && this.setPartStatus(part, turned);
    const wasReady = this.state !== undefined;
    const v = this.views;
    if (!v.subaccount || !v.balances || !v.positions || !v.openOrders || !v.recentFills) return;
    this.state = { address: this.scope.address, subaccountId: this.scope.subaccount_id, subaccount: v.subaccount, balances: v.balances, positions: v.positions, openOrders: v.openOrders, recentFills: v.recentFills };
    const reconciled = emission.cause === 'snapshot' && emission.snapshotId > 1;
    // The first combined state is the baseline: what the parts brought before it is in it, not in `changes`.
    if (!wasReady) this.emit([], part, emission.cause, false);
    else if (changes.length > 0 || reconciled || statusChanged) this.emit(changes, part, emission.cause, reconciled);
  }

  private onPartStatus(part: AccountPart, change: StatusChange): void {
    if (change.to === 'live') {
      // Counted with the state it brings (the part's next emission, see `turningLive`).
      this.turningLive.set(part, change);
      return;
    }
    this.turningLive.delete(part);
    if (this.setPartStatus(part, change) && this.state) this.emit([], part, 'status', false);
  }

  /** Takes a part's status into the combined one; tells `status$` and returns true when that changed. */
  private setPartStatus(part: AccountPart, change: StatusChange): boolean {
    this.partStatus[part] = change.to;
    const next = combineStatuses(Object.values(this.partStatus));
    if (next === this.combined) return false;
    const from = this.combined;
    this.combined = next;
    this.statusSubject.next({ from, to: next, code: change.code, reason: `${part}: ${change.reason}` });
    return true;
  }

  /** Terminal: `states$` errors with the first part's failure (its status is already `failed`). */
  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.emissions.error(error);
  }

  private emit(changes: AccountChange[], source: AccountPart, cause: EmissionCause, reconciled: boolean): void {
    const emission: AccountReplicaState = { status: this.combined, state: this.state!, changes, source, cause, reconciled, ...this.lastTiming, snapshotIds: { ...this.snapshotIds } };
    this.emissions.next(emission);
  }
}

function sumResyncCounts(parts: readonly { readonly resyncCounts: Readonly<Record<ResyncTrigger, number>> }[]): Record<ResyncTrigger, number> {
  const total = emptyResyncCounts();
  for (const part of parts) {
    const counts = part.resyncCounts;
    for (const t of RESYNC_TRIGGERS) total[t] += counts[t];
  }
  return total;
}
