/** Test doubles and record builders for the replica tests: a hand-driven router stream and a fake fetcher. */
import { Subject, firstValueFrom, filter, timeout, type Observable } from 'rxjs';
import { encodeBase58, type Balance, type Fill, type LastCandle, type Order, type Position, type Subaccount, type Trade, type FundingRate, type OperationName, type ParamValues } from '../../src/protocol';
import { loadExchangeSnapshot } from '../../src/client/exchangeSnapshot';
import type { RouterEvent } from '../../src/router/RouterEvent';
import type { ChannelName } from '../../src/protocol';
import type { ReplicaSource } from '../../src/replicas/ReplicaSource';
import type { SnapshotPage } from '../../src/replicas/SnapshotFetcher';
import type { ReplicaStatus } from '../../src/replicas/ReplicaStatus';
import { WAIT_MS } from '../helpers/deadlines';

/** The legal public status changes (the README's status table): what every `StatusChange` must be one of. */
export const STATUS_TRANSITIONS: Readonly<Record<ReplicaStatus, readonly ReplicaStatus[]>> = {
  syncing: ['live', 'stale', 'failed'],
  live: ['resyncing', 'stale', 'failed'],
  resyncing: ['live', 'stale', 'failed'],
  stale: ['syncing', 'resyncing', 'failed'],
  failed: [],
};

/** A router stream driven by the test. */
export class FakeStream {
  readonly subject = new Subject<RouterEvent>();
  readonly events: Observable<RouterEvent> = this.subject.asObservable();
  private generation = 0;

  subscribed(): void {
    this.generation++;
    this.subject.next({ kind: 'subscribed', subscriptionId: `s${this.generation}`, generation: this.generation });
  }
  update(seq: bigint | number, data: unknown, timestampNs = 1_000n, receivedAtNs = 1_500n): void {
    this.subject.next({ kind: 'update', seq: BigInt(seq), timestampNs, receivedAtNs, data });
  }
  resyncRequired(reason: 'gap' | 'lag' | 'invalid_update' = 'gap'): void {
    this.subject.next({ kind: 'resync_required', reason });
  }
  disconnected(reason = 'socket closed'): void {
    this.subject.next({ kind: 'disconnected', reason });
  }
  get observed(): boolean {
    return this.subject.observed;
  }
}

/** One call of the fake fetcher, answered by the test. */
export interface FetchCall {
  readonly operation: OperationName;
  readonly params: ParamValues;
  readonly signal: AbortSignal;
  resolve(page: SnapshotPage): void;
  reject(error: unknown): void;
}

/** A fetcher whose calls are answered by hand, in order. */
export class FakeFetcher {
  readonly calls: FetchCall[] = [];
  private readonly arrivals = new Subject<number>();
  private served = 0;
  /** When set, calls are answered at once by this function instead of waiting for the test. */
  auto?: (operation: OperationName, params: ParamValues) => SnapshotPage | Promise<SnapshotPage>;

  readonly fetch = (operation: OperationName, params: ParamValues, signal: AbortSignal): Promise<SnapshotPage> => {
    if (this.auto) {
      this.calls.push({ operation, params, signal, resolve: () => undefined, reject: () => undefined });
      this.served++;
      return Promise.resolve(this.auto(operation, params));
    }
    return new Promise<SnapshotPage>((resolve, reject) => {
      const call: FetchCall = { operation, params, signal, resolve, reject };
      signal.addEventListener('abort', () => reject(signal.reason ?? new Error('aborted')), { once: true });
      this.calls.push(call);
      this.arrivals.next(this.calls.length - 1);
    });
  };

  /** Call number `index` (0-based), waiting for it to arrive (bounded). */
  callAt(index: number, ms = WAIT_MS): Promise<FetchCall> {
    const existing = this.calls[index];
    if (existing) return Promise.resolve(existing);
    return waitFor(this.arrivals, (i) => i === index, ms).then(() => this.calls[index]!);
  }

  /** The next call not yet taken by `nextCall` (waits for it, bounded). */
  nextCall(ms = WAIT_MS): Promise<FetchCall> {
    return this.callAt(this.served++, ms);
  }
}

/** A replica source on hand-driven streams (one, or one per channel) and a fake fetcher answered page by page (the exchange's REST paging runs on it). */
export function fakeSource(streams: FakeStream | ((channel: ChannelName) => FakeStream), fetcher: FakeFetcher): ReplicaSource {
  return {
    subscribe: (channel, _scope, sink) => {
      const subscription = (typeof streams === 'function' ? streams(channel) : streams).events.subscribe(sink);
      return () => subscription.unsubscribe();
    },
    snapshot: (query) => loadExchangeSnapshot(query, fetcher.fetch),
  };
}

/** The first value of `source` matching `predicate`, bounded in time. */
export function waitFor<T>(source: Observable<T>, predicate: (v: T) => boolean, ms = WAIT_MS): Promise<T> {
  return firstValueFrom(source.pipe(filter(predicate), timeout(ms)));
}

/** Node's own setImmediate, kept before any test installs fake timers (they replace the global one). */
const realSetImmediate = globalThis.setImmediate;

/**
 * Lets every pending promise callback run: resolves on the next turn of the event loop, which
 * Node starts only once the microtask queue is empty, however long the chains in it (no count
 * of microtask turns that a longer chain could outrun). No timer of the test's clock is
 * involved, and fake timers do not hold it. `_rounds` is what older callers pass: ignored.
 */
export function settle(_rounds?: number): Promise<void> {
  return new Promise((resolve) => realSetImmediate(resolve));
}

export const address = (n: number) => encodeBase58(new Uint8Array(32).fill(n + 1));
export const orderId = (n: number) => {
  const b = new Uint8Array(28);
  b[0] = 1 + (n % 200);
  b[1] = Math.floor(n / 200) % 256;
  b[2] = 7;
  return encodeBase58(b);
};

export const trade = (sequence: number | bigint): Trade => ({
  timestamp_ns: String(1_700_000_000_000_000_000n + BigInt(sequence)),
  sequence: String(sequence),
  price_ticks: '100',
  size_base_lots: '1',
  quote_notional_lots: '100',
  taker_is_bid: true,
});

export const fundingRate = (sequence: number): FundingRate => ({
  timestamp_ns: String(1_700_000_000_000_000_000n + BigInt(sequence)),
  sequence: String(sequence),
  market_id: 0,
  funding_rate_100th_bps: 3,
  long_cumulative_funding_quote_lots: '10',
  short_cumulative_funding_quote_lots: '-10',
});

export const fill = (sequence: number, market_id = 0): Fill => ({
  sequence: String(sequence),
  timestamp_ns: String(1_700_000_000_000_000_000n + BigInt(sequence)),
  market_type: 'perp',
  market_id,
  order_id: orderId(sequence),
  client_order_id: String(sequence),
  side: 'bid',
  role: 'taker',
  price_ticks: '100',
  size_base_lots: '2',
  quote_notional_lots: '200',
  fee_quote_lots: '1',
});

export const balance = (token_id: string, total: number): Balance => ({
  token_id,
  total_token_atoms: String(total),
  locked_token_atoms: '0',
  deposited_token_atoms: String(total),
  withdrawn_token_atoms: '0',
});

export const position = (market_id: number, size: number | string): Position => ({
  market_id,
  side: 'long',
  size_base_lots: String(size),
  entry_price_ticks: '100',
  margin_mode: 'cross',
  leverage: 5,
  position_value_quote_lots: '1000',
  unrealized_pnl_quote_lots: '0',
  realized_pnl_quote_lots: '0',
  roe_bps: '0',
  margin_used_token_atoms: '200',
  isolated_margin_quote_lots: '0',
  fees_quote_lots: '0',
  funding_quote_lots: '0',
});

export const order = (n: number, status: Order['status'] = 'open', remaining = 5): Order => ({
  order_id: orderId(n),
  client_order_id: String(n),
  market_type: 'perp',
  market_id: 0,
  side: 'bid',
  price_ticks: '100',
  original_size_base_lots: '5',
  remaining_size_base_lots: String(remaining),
  filled_size_base_lots: String(5 - remaining),
  status,
  created_at_ns: '1',
  updated_at_ns: '2',
});

export const subaccount = (id: number, equity = 1000): Subaccount => ({
  subaccount_id: id,
  status: 'active',
  created_at_ns: '1',
  cross_margin_balance_quote_lots: String(equity),
  total_isolated_margin_quote_lots: '0',
  equity_quote_lots: String(equity),
  available_margin_quote_lots: String(equity),
  transferable_margin_quote_lots: String(equity),
  initial_margin_requirement_quote_lots: '0',
  maintenance_margin_requirement_quote_lots: '0',
  delegations: [],
});

export const candle = (open_time_ms: number, close: number | string = 100): LastCandle => ({
  open_time_ms,
  open: '100',
  high: String(Math.max(100, Number(close))),
  low: String(Math.min(100, Number(close))),
  close: String(close),
  volume_base: '1',
  volume_quote: '100',
  trades: 1,
});
