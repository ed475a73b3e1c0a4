/**
 * The simulator's truth and field-by-field comparators for every replica the client offers,
 * shared by the end-to-end tests and the soak. A comparator returns the list of differences
 * (empty = equal) instead of throwing, so a soak can count divergences and a test can
 * `expect(diffs).toEqual([])` and see every differing field at once.
 */
import { CHANNELS, streamKey, type ChannelName, type ParamValues, type Scope } from '../../src/protocol';
import type { AccountReplicaState, Balance, Bbo, EventItem, Fill, LastCandle, MarkCandle, MarketStats, Order, OrderBook, Position, Subaccount } from '../../src';
import type { Simulator } from '../../src/simulator';

/** Levels a side compared for books: well inside the 500-level snapshot, so truncation never matters. */
export const BOOK_COMPARE_DEPTH = 200;
/** Differences listed at most per comparison (the count is still exact). */
const MAX_LISTED = 12;
/** Fills an account replica keeps in `recentFills` (DEFAULT_RECENT_LIMIT). */
const RECENT_FILLS = 100;

/** A snapshot operation's answer from the paused simulator (every page for `orders`). */
export interface Truth<T = unknown> {
  readonly sequence: bigint;
  readonly data: T;
}

function query(sim: Simulator, op: Parameters<Simulator['truth']>[0], params: ParamValues): { data: unknown; sequence?: string; next_cursor?: string | null } {
  const r = sim.truth(op, params);
  if (r.status !== 200) throw new Error(`truth ${op} ${JSON.stringify(params)} answered ${r.status}: ${JSON.stringify(r.body)}`);
  // As the wire carries it (in process, a computed -0 is still -0; JSON has no negative zero).
  return JSON.parse(JSON.stringify(r.body)) as { data: unknown; sequence?: string; next_cursor?: string | null };
}

/** The truth of a channel's snapshot for `scope`, with the same parameters the replicas use. */
export function truthOf(sim: Simulator, channel: ChannelName, scope: Scope): Truth {
  const def = CHANNELS[channel];
  const params = def.snapshotParams(scope);
  const first = query(sim, def.snapshot, params);
  if (channel !== 'orders') return { sequence: BigInt(first.sequence ?? '0'), data: first.data };
  const rows = [...(first.data as Order[])];
  for (let cursor = first.next_cursor; cursor; ) {
    const page = query(sim, 'orders', { ...params, cursor });
    rows.push(...(page.data as Order[]));
    cursor = page.next_cursor;
  }
  return { sequence: BigInt(first.sequence ?? '0'), data: rows };
}

/**
 * Every retained record of an event stream newer than `afterSequence`, oldest first, paging
 * the truth back (keyset cursors) as far as needed. Also the stream's newest record sequence.
 */
export function truthHistory<T extends { sequence: string }>(
  sim: Simulator,
  channel: 'trades' | 'fills' | 'fundingRates',
  scope: Scope,
  afterSequence = -1n,
): { records: T[]; newest: bigint | undefined; reached: boolean } {
  const def = CHANNELS[channel];
  const params = def.snapshotParams(scope);
  const out: T[] = [];
  let newest: bigint | undefined;
  let reached = false;
  let page = query(sim, def.snapshot, params);
  for (;;) {
    for (const r of page.data as T[]) {
      const s = BigInt(r.sequence);
      if (newest === undefined || s > newest) newest = s;
      if (s <= afterSequence) reached = true;
      else out.push(r);
    }
    if (reached || !page.next_cursor) break;
    page = query(sim, def.snapshot, { ...params, cursor: page.next_cursor });
  }
  out.sort((a, b) => (BigInt(a.sequence) < BigInt(b.sequence) ? -1 : 1));
  return { records: out, newest, reached };
}

// ---- generic field-by-field difference ------------------------------------------------

/** Every path at which `actual` differs from `expected` (plain JSON-like values, Maps as objects). */
export function diffValues(expected: unknown, actual: unknown, path = '', out: string[] = []): string[] {
  if (Object.is(expected, actual)) return out;
  const te = kindOf(expected);
  const ta = kindOf(actual);
  if (te !== ta) {
    out.push(`${path || '(root)'}: expected ${show(expected)}, got ${show(actual)}`);
    return out;
  }
  if (te === 'array') {
    const e = expected as unknown[];
    const a = actual as unknown[];
    if (e.length !== a.length) out.push(`${path || '(root)'}.length: expected ${e.length}, got ${a.length}`);
    for (let i = 0; i < Math.min(e.length, a.length); i++) diffValues(e[i], a[i], `${path}[${i}]`, out);
    return out;
  }
  if (te === 'object') {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    for (const k of new Set([...Object.keys(e), ...Object.keys(a)])) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in a)) out.push(`${p}: missing (expected ${show(e[k])})`);
      else if (!(k in e)) out.push(`${p}: unexpected ${show(a[k])}`);
      else diffValues(e[k], a[k], p, out);
    }
    return out;
  }
  out.push(`${path || '(root)'}: expected ${show(expected)}, got ${show(actual)}`);
  return out;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function show(v: unknown): string {
  const s = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
  return s === undefined ? String(v) : s.length > 80 ? `${s.slice(0, 80)}…` : s;
}

/** At most MAX_LISTED differences, plus a count of the rest, each prefixed by `label`. */
function labelled(label: string, diffs: string[]): string[] {
  const shown = diffs.slice(0, MAX_LISTED).map((d) => `${label}: ${d}`);
  if (diffs.length > MAX_LISTED) shown.push(`${label}: … and ${diffs.length - MAX_LISTED} more differences`);
  return shown;
}

const byKey = <T>(key: (r: T) => string | number) => (a: T, b: T) => {
  const x = key(a);
  const y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
};
const sorted = <T>(rows: Iterable<T>, key: (r: T) => string | number): T[] => [...rows].sort(byKey(key));

// ---- per-channel normal forms -----------------------------------------------------------

/** State replicas the client offers (the `channel` of each). */
export type StateChannelName = 'book' | 'bbo' | 'marketStats' | 'candles' | 'markCandles' | 'account' | 'balances' | 'positions' | 'orders';

/** The comparable form of the truth's snapshot `data` for `channel` and `scope`. */
export function normalizeTruth(channel: StateChannelName, scope: Scope, data: unknown): unknown {
  switch (channel) {
    case 'book': {
      const d = data as { bids: unknown[]; asks: unknown[] };
      return { bids: d.bids.slice(0, BOOK_COMPARE_DEPTH), asks: d.asks.slice(0, BOOK_COMPARE_DEPTH) };
    }
    case 'bbo':
      return data as Bbo;
    case 'marketStats': {
      const type = scope.is_perps ? 'perp' : 'spot';
      return (data as MarketStats[]).find((s) => s.market_id === scope.market_id && s.market_type === type) ?? null;
    }
    case 'candles':
    case 'markCandles':
      return sorted(data as (LastCandle | MarkCandle)[], (c) => c.open_time_ms);
    case 'account':
      return (data as { subaccounts: Subaccount[] }).subaccounts.find((s) => s.subaccount_id === scope.subaccount_id) ?? null;
    case 'balances':
      return sorted(data as Balance[], (b) => b.token_id);
    case 'positions':
      return sorted(data as Position[], (p) => p.market_id);
    case 'orders':
      return sorted(data as Order[], (o) => o.order_id);
  }
}

/** The comparable form of a replica's state for `channel`. */
export function normalizeReplica(channel: StateChannelName, state: unknown): unknown {
  switch (channel) {
    case 'book':
      return (state as OrderBook).toSnapshot(BOOK_COMPARE_DEPTH);
    case 'bbo':
    case 'marketStats':
    case 'account':
      return state;
    case 'candles':
    case 'markCandles':
      return [...(state as readonly (LastCandle | MarkCandle)[])];
    case 'balances':
      return sorted((state as ReadonlyMap<string, Balance>).values(), (b) => b.token_id);
    case 'positions':
      return sorted((state as ReadonlyMap<number, Position>).values(), (p) => p.market_id);
    case 'orders':
      return sorted((state as ReadonlyMap<string, Order>).values(), (o) => o.order_id);
  }
}

/** Differences between a state replica and the truth's snapshot data (empty = equal). */
export function diffState(channel: StateChannelName, scope: Scope, state: unknown, truthData: unknown): string[] {
  const diffs = diffValues(normalizeTruth(channel, scope, truthData), normalizeReplica(channel, state));
  if (channel === 'book' && (state as OrderBook).isCrossed()) diffs.push('the book is crossed');
  return labelled(streamKey(channel, scope), diffs);
}

/** The truth of everything a combined account replica shows. */
export interface AccountTruth {
  readonly account: Truth;
  readonly balances: Truth;
  readonly positions: Truth;
  readonly orders: Truth;
  /** The newest fills (as many as the replica keeps), oldest first. */
  readonly recentFills: readonly Fill[];
}

/** Fetches the truth of a combined account replica (the simulator must be paused). */
export function accountTruth(sim: Simulator, scope: { address: string; subaccount_id: number }): AccountTruth {
  return {
    account: truthOf(sim, 'account', scope),
    balances: truthOf(sim, 'balances', scope),
    positions: truthOf(sim, 'positions', scope),
    orders: truthOf(sim, 'orders', scope),
    recentFills: truthHistory<Fill>(sim, 'fills', scope).records.slice(-RECENT_FILLS),
  };
}

/** Differences between a combined account state and its truth (record, balances, positions, open orders, recent fills). */
export function diffAccount(scope: { address: string; subaccount_id: number }, s: AccountReplicaState, truth: AccountTruth): string[] {
  const st = s.state;
  return [
    ...diffState('account', scope, st.subaccount, truth.account.data),
    ...diffState('balances', scope, st.balances, truth.balances.data),
    ...diffState('positions', scope, st.positions, truth.positions.data),
    ...diffState('orders', scope, st.openOrders, truth.orders.data),
    ...labelled(`accountReplica|${scope.address.slice(0, 6)}|${scope.subaccount_id} recentFills`, diffValues(truth.recentFills, [...st.recentFills])),
  ];
}

// ---- event streams: exactly once or covered by a gap marker -----------------------------

/** What an event ledger found wrong (every count must be 0). */
export interface LedgerFindings {
  /** Records delivered twice, or at or below what was already delivered (out of order). */
  duplicates: number;
  /** Truth records neither delivered nor covered by a gap marker. */
  missing: number;
  /** Delivered records that differ from the truth's record of the same sequence. */
  mismatched: number;
  /** Delivered records the truth does not have. */
  unknown: number;
  /** Records checked against the truth. */
  checked: number;
  /** Records covered by gap markers. */
  gapped: number;
  /** First few problems, for the report. */
  examples: string[];
}

type Seqd = { sequence: string };

/**
 * Records every item of one event stream as delivered, and checks them against the truth's
 * history incrementally: each record delivered exactly once, in order, equal to the truth,
 * and every truth record since the first delivery either delivered or inside a gap marker.
 */
export class EventLedger<T extends Seqd = Seqd> {
  private readonly delivered = new Map<bigint, T>();
  private readonly gaps: Array<[bigint, bigint]> = [];
  /** Highest sequence covered (record or gap end). */
  private last: bigint | undefined;
  /** Lowest sequence covered; the check starts there. */
  private first: bigint | undefined;
  /** Everything at or below this was checked already. */
  private checkedUpTo: bigint | undefined;
  readonly findings: LedgerFindings = { duplicates: 0, missing: 0, mismatched: 0, unknown: 0, checked: 0, gapped: 0, examples: [] };
  /** Items seen (records and gaps). */
  items = 0;

  constructor(readonly label: string) {}

  /** The highest sequence delivered or covered by a gap, undefined before any item. */
  get lastSequence(): bigint | undefined {
    return this.last;
  }

  /** Feed of the stream: call for each item, in the order received. */
  onItem(item: EventItem<T>): void {
    this.items++;
    const from = item.kind === 'gap' ? item.fromSequence : item.sequence;
    const to = item.kind === 'gap' ? item.toSequence : item.sequence;
    if (this.last !== undefined && from <= this.last) {
      this.findings.duplicates++;
      this.example(`${item.kind} ${from}..${to} delivered after ${this.last} (duplicate or out of order)`);
      return;
    }
    if (this.first === undefined) this.first = from;
    this.last = to;
    if (item.kind === 'gap') this.gaps.push([from, to]);
    else this.delivered.set(item.sequence, item.record);
  }

  /**
   * Checks everything delivered up to the truth's newest record against the truth (the
   * simulator must be paused and the ledger caught up: `lastSequence >= newest`).
   */
  check(sim: Simulator, channel: 'trades' | 'fills' | 'fundingRates', scope: Scope): LedgerFindings {
    if (this.first === undefined || this.last === undefined) return this.findings;
    const after = this.checkedUpTo ?? this.first - 1n;
    const { records, newest, reached } = truthHistory<T>(sim, channel, scope, after);
    const inTruth = new Set<bigint>();
    for (const r of records) {
      const s = BigInt(r.sequence);
      inTruth.add(s);
      const mine = this.delivered.get(s);
      if (mine !== undefined) {
        this.findings.checked++;
        const d = diffValues(r, mine);
        if (d.length > 0) {
          this.findings.mismatched++;
          this.example(`record ${s} differs: ${d.slice(0, 3).join('; ')}`);
        }
      } else if (this.inGap(s)) {
        this.findings.gapped++;
      } else {
        this.findings.missing++;
        this.example(`record ${s} was neither delivered nor covered by a gap marker`);
      }
    }
    const upTo = newest !== undefined && newest > this.last ? newest : this.last;
    // Below the oldest record the truth still retains (when its walk did not reach back), nothing can be judged.
    const judgeableFrom = reached || records.length === 0 ? after + 1n : BigInt(records[0]!.sequence);
    for (const s of this.delivered.keys()) {
      if (s <= after || s < judgeableFrom || s > upTo || inTruth.has(s)) continue;
      this.findings.unknown++;
      this.example(`record ${s} was delivered but the truth has no such record`);
    }
    this.checkedUpTo = upTo;
    for (const s of [...this.delivered.keys()]) if (s <= upTo) this.delivered.delete(s);
    while (this.gaps.length > 0 && this.gaps[0]![1] <= upTo) this.gaps.shift();
    return this.findings;
  }

  private inGap(s: bigint): boolean {
    return this.gaps.some(([a, b]) => s >= a && s <= b);
  }

  private example(text: string): void {
    if (this.findings.examples.length < 5) this.findings.examples.push(`${this.label}: ${text}`);
  }
}

/** Sum of ledger findings. */
export function addFindings(a: LedgerFindings, b: LedgerFindings): LedgerFindings {
  const sum = (k: Exclude<keyof LedgerFindings, 'examples'>) => a[k] + b[k];
  return { duplicates: sum('duplicates'), missing: sum('missing'), mismatched: sum('mismatched'), unknown: sum('unknown'), checked: sum('checked'), gapped: sum('gapped'), examples: [...a.examples, ...b.examples].slice(0, 10) };
}
