/**
 * One client holding many replicas at once (books, BBO, stats, candles, mark candles,
 * funding, trades, accounts and their parts), tracked so that a test or the soak can, with
 * the simulator paused, wait until every one is live at the truth's sequence and then
 * compare each with the truth field by field. Event streams go through ledgers that check
 * exactly-once delivery (or an explicit gap marker) against the truth's history.
 */
import { Subject, type Observable, type Subscription } from 'rxjs';
import type { AccountReplicaState, EventItem, ExchangeClient, MarketParams, ReplicaState, Resolution } from '../../src';
import type { AccountParams } from '../../src/client/replicaParams';
import { scopeOf } from '../../src/client/replicaParams';
import { streamKey, type ChannelName, type Scope } from '../../src/protocol';
import type { Simulator } from '../../src/simulator';
import { accountTruth, addFindings, diffAccount, diffState, EventLedger, truthOf, type AccountTruth, type LedgerFindings, type StateChannelName, type Truth } from '../helpers/truth';

/** What the fleet subscribes to. */
export interface FleetSpec {
  /** Markets whose book, BBO, stats, trades and candles are replicated. */
  readonly markets: readonly MarketParams[];
  /** Candle resolutions replicated for every market. */
  readonly resolutions: readonly Resolution[];
  /** Mark-candle resolutions replicated for every perp market (whose funding rates are replicated too). */
  readonly markResolutions: readonly Resolution[];
  /** Combined account replicas. */
  readonly accounts: readonly AccountParams[];
  /** Also replicate each account's parts on their own (subaccount, balances, positions, openOrders, fills). @default true */
  readonly accountParts?: boolean;
}

interface StateTracker {
  readonly label: string;
  readonly channel: StateChannelName;
  readonly scope: Scope;
  latest?: ReplicaState<unknown>;
  truth?: Truth;
}

interface EventTracker {
  readonly label: string;
  readonly channel: 'trades' | 'fills' | 'fundingRates';
  readonly scope: Scope;
  readonly ledger: EventLedger;
  newest?: bigint;
}

interface AccountTracker {
  readonly label: string;
  readonly scope: { address: string; subaccount_id: number };
  readonly fills: EventLedger;
  latest?: AccountReplicaState;
  truth?: AccountTruth;
}

/** The outcome of one checkpoint. */
export interface CheckpointResult {
  /** Replicas that were live at the truth's sequence and differed from it (must be empty). */
  readonly divergences: string[];
  /** Replicas that did not become live at the truth's sequence within the bound (must be empty). */
  readonly notConverged: string[];
  /** Event ledgers' findings, summed over every stream (cumulative). */
  readonly events: LedgerFindings;
  /** Milliseconds from the start of the checkpoint until every replica was ready. */
  readonly waitedMs: number;
  /** Replicas compared. */
  readonly compared: number;
}

const STATE_METHOD: Record<StateChannelName, keyof ExchangeClient> = {
  book: 'orderBook',
  bbo: 'bbo',
  marketStats: 'marketStats',
  candles: 'candles',
  markCandles: 'markCandles',
  account: 'subaccount',
  balances: 'balances',
  positions: 'positions',
  orders: 'openOrders',
};

const short = (a: AccountParams) => `${a.address.slice(0, 6)}…/${a.subaccount_id}`;

export class ReplicaFleet {
  readonly states: StateTracker[] = [];
  readonly eventStreams: EventTracker[] = [];
  readonly accounts: AccountTracker[] = [];
  /** Any emission of any replica. */
  readonly changed$ = new Subject<void>();
  /** Errors of replica observables (a replica observable should never error while faults heal). */
  readonly observableErrors: string[] = [];
  private readonly subs: Subscription[] = [];

  constructor(
    private readonly client: ExchangeClient,
    readonly spec: FleetSpec,
  ) {}

  /** Subscribes to everything in the spec. */
  start(): this {
    const s = this.spec;
    for (const m of s.markets) {
      this.state('book', m);
      this.state('bbo', m);
      this.state('marketStats', m);
      for (const resolution of s.resolutions) this.state('candles', { ...m, resolution });
      this.events('trades', m);
      if (m.market_type === 'perp') {
        for (const resolution of s.markResolutions) this.state('markCandles', { market_id: m.market_id, resolution });
        this.events('fundingRates', { market_id: m.market_id });
      }
    }
    for (const a of s.accounts) {
      this.account(a);
      if (s.accountParts ?? true) {
        for (const ch of ['account', 'balances', 'positions', 'orders'] as const) this.state(ch, a);
        this.events('fills', a);
      }
    }
    return this;
  }

  /** Number of replicas held (state, event and combined account). */
  get size(): number {
    return this.states.length + this.eventStreams.length + this.accounts.length;
  }

  /** True when every state replica and every combined account replica is `live`. */
  allLive(): boolean {
    return this.states.every((t) => t.latest?.status === 'live') && this.accounts.every((t) => t.latest?.status === 'live');
  }

  /** Labels of the replicas that are not live, with their status. */
  notLive(): string[] {
    return [...this.states.map((t) => [t.label, t.latest?.status ?? 'no state'] as const), ...this.accounts.map((t) => [t.label, t.latest?.status ?? 'no state'] as const)].filter(([, s]) => s !== 'live').map(([l, s]) => `${l}: ${s}`);
  }

  /**
   * With the simulator paused: waits until every replica is live at the truth's sequence
   * (event streams: caught up with the truth's newest record; combined accounts: live and
   * equal to the truth, as they carry no sequence), then compares each with the truth.
   */
  async checkpoint(sim: Simulator, timeoutMs: number): Promise<CheckpointResult> {
    const started = performance.now();
    for (const t of this.states) t.truth = truthOf(sim, t.channel, t.scope);
    for (const t of this.eventStreams) t.newest = newestOf(truthOf(sim, t.channel, t.scope).data as { sequence: string }[]);
    for (const t of this.accounts) t.truth = accountTruth(sim, t.scope);
    const fillsNewest = new Map(this.accounts.map((t) => [t, newestOf(truthOf(sim, 'fills', t.scope).data as { sequence: string }[])]));
    const ready = {
      state: (t: StateTracker) => t.latest?.status === 'live' && t.latest.seq === t.truth!.sequence,
      events: (t: EventTracker) => t.newest === undefined || (t.ledger.lastSequence !== undefined && t.ledger.lastSequence >= t.newest),
      account: (t: AccountTracker) => {
        const n = fillsNewest.get(t);
        const fillsCaughtUp = n === undefined || (t.fills.lastSequence !== undefined && t.fills.lastSequence >= n);
        return t.latest?.status === 'live' && fillsCaughtUp && diffAccount(t.scope, t.latest, t.truth!).length === 0;
      },
    };
    const allReady = () => this.states.every(ready.state) && this.eventStreams.every(ready.events) && this.accounts.every(ready.account);
    await new Promise<void>((resolve) => {
      if (allReady()) return resolve();
      const timer = setTimeout(() => done(), timeoutMs);
      const sub = this.changed$.subscribe(() => allReady() && done());
      function done() {
        clearTimeout(timer);
        sub.unsubscribe();
        resolve();
      }
    });
    const waitedMs = performance.now() - started;
    const divergences: string[] = [];
    const notConverged: string[] = [];
    for (const t of this.states) {
      if (!ready.state(t)) {
        const ahead = t.latest !== undefined && t.latest.seq > t.truth!.sequence;
        notConverged.push(`${t.label}: ${t.latest ? `${t.latest.status} at seq ${t.latest.seq}` : 'no state'}, truth at ${t.truth!.sequence}${ahead ? ' (AHEAD of the truth)' : ''}`);
        continue;
      }
      divergences.push(...diffState(t.channel, t.scope, t.latest!.state, t.truth!.data));
    }
    for (const t of this.eventStreams) {
      if (!ready.events(t)) notConverged.push(`${t.label}: delivered up to ${t.ledger.lastSequence}, truth newest ${t.newest}`);
    }
    for (const t of this.accounts) {
      if (ready.account(t)) continue;
      const diffs = t.latest ? diffAccount(t.scope, t.latest, t.truth!) : ['no state'];
      const line = `${t.label}: ${t.latest?.status ?? 'no state'}; ${diffs.slice(0, 4).join('; ')}`;
      if (t.latest?.status === 'live' && diffs.length > 0) divergences.push(line);
      else notConverged.push(line);
    }
    let events: LedgerFindings = { duplicates: 0, missing: 0, mismatched: 0, unknown: 0, checked: 0, gapped: 0, examples: [] };
    for (const t of this.eventStreams) events = addFindings(events, t.ledger.check(sim, t.channel, t.scope));
    for (const t of this.accounts) events = addFindings(events, t.fills.check(sim, 'fills', t.scope));
    return { divergences, notConverged, events, waitedMs, compared: this.size };
  }

  /** Unsubscribes from everything and lets go of the states held. */
  stop(): void {
    for (const s of this.subs) s.unsubscribe();
    this.subs.length = 0;
    this.changed$.complete();
    for (const t of this.states) t.latest = t.truth = undefined;
    for (const t of this.accounts) t.latest = t.truth = undefined;
  }

  private state(channel: StateChannelName, params: object): void {
    const scope = scopeOf(channel as ChannelName, params);
    const t: StateTracker = { label: streamKey(channel, scope), channel, scope };
    this.states.push(t);
    const method = this.client[STATE_METHOD[channel]] as (p: object) => Observable<ReplicaState<unknown>>;
    this.subs.push(
      method.call(this.client, params).subscribe({
        next: (e) => {
          t.latest = e;
          this.changed$.next();
        },
        error: (e: Error) => this.observableErrors.push(`${t.label}: ${e.message}`),
      }),
    );
  }

  private events(channel: 'trades' | 'fills' | 'fundingRates', params: object): void {
    const scope = scopeOf(channel, params);
    const label = streamKey(channel, scope);
    const t: EventTracker = { label, channel, scope, ledger: new EventLedger(label) };
    this.eventStreams.push(t);
    const obs: Observable<EventItem<unknown>> = channel === 'trades' ? this.client.trades(params as MarketParams) : channel === 'fills' ? this.client.fills(params as AccountParams) : this.client.fundingRates(params as { market_id: number });
    this.subs.push(
      obs.subscribe({
        next: (item) => {
          t.ledger.onItem(item as never);
          this.changed$.next();
        },
        error: (e: Error) => this.observableErrors.push(`${label}: ${e.message}`),
      }),
    );
  }

  private account(a: AccountParams): void {
    const label = `accountReplica|${short(a)}`;
    const t: AccountTracker = { label, scope: { address: a.address, subaccount_id: a.subaccount_id }, fills: new EventLedger(`${label} fills`) };
    this.accounts.push(t);
    this.subs.push(
      this.client.account(a).subscribe({
        next: (e) => {
          // The first emission is the baseline: its recent fills are what was delivered so far.
          // A replica already running (the client's pooled one) replays its latest emission
          // first, changes and all: they are in its recent fills, so not counted again.
          const first = t.latest === undefined;
          if (first) for (const f of e.state.recentFills) t.fills.onItem({ kind: 'record', sequence: BigInt(f.sequence), record: f });
          t.latest = e;
          if (!first) for (const c of e.changes) {
            if (c.kind === 'fill') t.fills.onItem({ kind: 'record', sequence: BigInt(c.fill.sequence), record: c.fill });
            else if (c.kind === 'fillGap') t.fills.onItem({ kind: 'gap', fromSequence: c.fromSequence, toSequence: c.toSequence, reason: c.reason });
          }
          this.changed$.next();
        },
        error: (e: Error) => this.observableErrors.push(`${label}: ${e.message}`),
      }),
    );
  }
}

function newestOf(rows: readonly { sequence: string }[]): bigint | undefined {
  let n: bigint | undefined;
  for (const r of rows) {
    const s = BigInt(r.sequence);
    if (n === undefined || s > n) n = s;
  }
  return n;
}
