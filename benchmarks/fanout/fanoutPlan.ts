/**
 * The subscriptions of the fan-out benchmark: every stream the simulator serves, through the
 * client's replica methods, in an order that spreads a small count over markets and
 * accounts; then the combined account replicas; then raw `updates()` taps on the same
 * streams (a second consumer of a stream, sharing its server subscription) up to the count.
 */
import type { Observable } from 'rxjs';
import type { ExchangeClient } from '../../src/client';
import { RESOLUTIONS, streamKey, type ChannelName, type MarketType, type Scope } from '../../src/protocol';

export interface MarketRef {
  readonly market_type: MarketType;
  readonly market_id: number;
}

export interface SubaccountRef {
  readonly address: string;
  readonly subaccount_id: number;
}

/** How a planned subscription reaches the client. */
export type SubscriptionKind = 'replica' | 'account' | 'raw';

export interface PlannedSubscription {
  readonly kind: SubscriptionKind;
  readonly channel: ChannelName;
  /** The feed scope (`is_perps`, `interval`, ...). */
  readonly scope: Scope;
  readonly key: string;
  /** The client observable this subscription reads. */
  observe(client: ExchangeClient): Observable<unknown>;
}

/** The channels whose replica state carries `status` and `seq` (ReplicaState). */
export const STATE_CHANNELS = new Set<ChannelName>(['book', 'bbo', 'marketStats', 'candles', 'markCandles', 'account', 'balances', 'positions', 'orders']);

function replica(channel: ChannelName, scope: Scope, observe: (c: ExchangeClient) => Observable<unknown>): PlannedSubscription {
  return { kind: 'replica', channel, scope, key: streamKey(channel, scope), observe };
}

/** Every stream, one replica subscription each, spread order first (see the module comment). */
export function replicaSubscriptions(markets: readonly MarketRef[], subaccounts: readonly SubaccountRef[]): PlannedSubscription[] {
  const core: PlannedSubscription[] = [];
  const accounts: PlannedSubscription[] = [];
  const funding: PlannedSubscription[] = [];
  const candles: PlannedSubscription[] = [];
  for (const m of markets) {
    const scope = { market_id: m.market_id, is_perps: m.market_type === 'perp' };
    core.push(
      replica('book', scope, (c) => c.orderBook(m)),
      replica('bbo', scope, (c) => c.bbo(m)),
      replica('trades', scope, (c) => c.trades(m)),
      replica('marketStats', scope, (c) => c.marketStats(m)),
    );
    for (const resolution of RESOLUTIONS) candles.push(replica('candles', { ...scope, interval: resolution }, (c) => c.candles({ ...m, resolution })));
    if (m.market_type === 'perp') {
      funding.push(replica('fundingRates', { market_id: m.market_id }, (c) => c.fundingRates({ market_id: m.market_id })));
      for (const resolution of RESOLUTIONS) candles.push(replica('markCandles', { market_id: m.market_id, interval: resolution }, (c) => c.markCandles({ market_id: m.market_id, resolution })));
    }
  }
  for (const a of subaccounts) {
    const scope = { address: a.address, subaccount_id: a.subaccount_id };
    accounts.push(
      replica('account', scope, (c) => c.subaccount(a)),
      replica('balances', scope, (c) => c.balances(a)),
      replica('positions', scope, (c) => c.positions(a)),
      replica('orders', scope, (c) => c.openOrders(a)),
      replica('fills', scope, (c) => c.fills(a)),
    );
  }
  return [...core, ...accounts, ...funding, ...candles];
}

/**
 * `count` subscriptions: the replicas first, then combined account replicas, then raw taps.
 * A count too small for all of them (e.g. a smoke run) keeps one of each kind: `count - 2`
 * replicas, one combined account replica, one raw tap.
 */
export function planSubscriptions(markets: readonly MarketRef[], subaccounts: readonly SubaccountRef[], count: number): PlannedSubscription[] {
  const replicas = replicaSubscriptions(markets, subaccounts);
  const combined: PlannedSubscription[] = subaccounts.map((a) => {
    const scope = { address: a.address, subaccount_id: a.subaccount_id };
    return { kind: 'account', channel: 'account', scope, key: `accountReplica|${streamKey('account', scope)}`, observe: (c) => c.account(a) };
  });
  const small = count < replicas.length + combined.length + 1 && count >= 3;
  const plan = small ? [...replicas.slice(0, count - 2), ...combined.slice(0, 1)] : [...replicas, ...combined].slice(0, count);
  for (let i = 0; plan.length < count && replicas.length > 0; i++) {
    const r = replicas[i % replicas.length]!;
    plan.push({ kind: 'raw', channel: r.channel, scope: r.scope, key: r.key, observe: (c) => c.updates(r.channel, r.scope) });
  }
  return plan;
}
