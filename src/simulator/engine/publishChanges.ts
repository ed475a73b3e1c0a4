/**
 * The end of every engine event: turns what the event changed into stream updates (the
 * data shapes of streaming-protocol.md section 4) and stores the records REST serves, so a
 * snapshot always equals the replay of its stream. Nothing unchanged is published; every
 * stream is published to even when nobody listens (seq must match snapshots). @internal
 */
import { RESOLUTIONS, type Balance, type Bbo, type ChannelName, type Position, type Scope } from '../../protocol';
import type { MarketState } from './MarketState';
import type { SubaccountState } from './SubaccountState';
import { valueSubaccount } from './valuation';
import type { World } from './World';

type Emit = (channel: ChannelName, scope: Scope, data: unknown) => void;

/** Equality of two flat records (string/number/boolean values; arrays compared by reference). */
function sameRecord(a: object, b: object): boolean {
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let n = 0;
  for (const k in ra) {
    if (ra[k] !== rb[k]) return false;
    n++;
  }
  for (const _ in rb) n--;
  return n === 0;
}

const sameBbo = (a: Bbo, b: Bbo): boolean =>
  a.bid?.price_ticks === b.bid?.price_ticks && a.bid?.size_base_lots === b.bid?.size_base_lots && a.ask?.price_ticks === b.ask?.price_ticks && a.ask?.size_base_lots === b.ask?.size_base_lots;

/**
 * Publishes (when `publish`) and materializes everything the current event changed, then
 * clears the change sets. With `publish` false (world construction) records are only stored.
 */
export function publishChanges(w: World, publish: boolean): void {
  const emit: Emit = publish ? (c, s, d) => void w.hub.publish(c, s, d) : () => undefined;
  for (const m of w.touchedMarkets) {
    flushMarket(w, m, emit);
    if (m.markSampled) for (const s of w.holders.get(m.spec.id) ?? []) w.touchSub(s);
    m.clearChanges();
  }
  w.touchedMarkets.clear();
  for (const s of w.touchedSubs) {
    flushSubaccount(w, s, emit);
    s.clearChanges();
  }
  w.touchedSubs.clear();
}

function flushMarket(w: World, m: MarketState, emit: Emit): void {
  const scope: Scope = { market_id: m.spec.id, is_perps: m.isPerp };
  if (m.bidChanges.size > 0 || m.askChanges.size > 0) {
    const bids = [];
    const asks = [];
    for (const [p, s] of m.bidChanges) bids.push({ price_ticks: String(p), size_base_lots: String(s) });
    for (const [p, s] of m.askChanges) asks.push({ price_ticks: String(p), size_base_lots: String(s) });
    emit('book', scope, { bids, asks });
    const bbo = m.currentBbo();
    if (!sameBbo(bbo, m.bbo)) {
      if (bbo.bid?.price_ticks !== m.bbo.bid?.price_ticks || bbo.ask?.price_ticks !== m.bbo.ask?.price_ticks) m.statsDirty = true;
      m.bbo = bbo;
      emit('bbo', scope, bbo);
    }
  }
  if (m.newTrades.length > 0) emit('trades', scope, { trades: m.newTrades.slice() });
  if (m.candlesChanged) {
    for (const r of RESOLUTIONS) emit('candles', { market_id: m.spec.id, is_perps: m.isPerp, interval: r }, m.candleRecord(r));
  }
  if (m.markSampled) {
    for (const r of RESOLUTIONS) emit('markCandles', { market_id: m.spec.id, interval: r }, m.markCandleRecord(r));
  }
  if (m.newFunding) emit('fundingRates', { market_id: m.spec.id }, m.newFunding);
  if (m.statsDirty || !m.stats) {
    m.stats = m.buildStats(w.eventNs);
    emit('marketStats', scope, m.stats);
  }
}

function flushSubaccount(w: World, s: SubaccountState, emit: Emit): void {
  const scope: Scope = { address: s.address, subaccount_id: s.id };
  if (s.changedOrders.size > 0) emit('orders', scope, { orders: [...s.changedOrders.values()] });
  if (s.newFills.length > 0) emit('fills', scope, { fills: s.newFills.slice() });
  if (s.changedBalances.size > 0) {
    const balances: Balance[] = [];
    for (const token of s.changedBalances) {
      const b = s.balance(token);
      const rec: Balance = { token_id: token, total_token_atoms: b.total.toString(), locked_token_atoms: b.locked.toString(), deposited_token_atoms: b.deposited.toString(), withdrawn_token_atoms: b.withdrawn.toString() };
      s.balanceRecords.set(token, rec);
      balances.push(rec);
    }
    emit('balances', scope, { balances });
  }
  const v = valueSubaccount(w, s);
  const changed: Position[] = [];
  for (const [id, rec] of v.positions) {
    const prev = s.positionRecords.get(id);
    if (!prev || !sameRecord(prev, rec)) changed.push(rec);
    if (rec.size_base_lots === '0') {
      // Closed: published once with size "0", then gone from state and snapshots.
      s.positions.delete(id);
      s.positionRecords.delete(id);
    } else {
      s.positionRecords.set(id, rec);
    }
  }
  if (changed.length > 0) emit('positions', scope, { positions: changed });
  // Delegations are fixed per subaccount, so the record shares its array with the last one.
  if (s.record) (v.record as { delegations: unknown }).delegations = s.record.delegations;
  if (!s.record || !sameRecord(s.record, v.record)) {
    s.record = v.record;
    emit('account', scope, v.record);
  }
  const realized = s.realizedTotal;
  for (const series of Object.values(s.pnl)) {
    const b = series.at(w.eventMs, (t) => ({ t, equity: 0n, realized: 0n, unrealized: 0n }));
    b.equity = v.equity;
    b.realized = realized;
    b.unrealized = v.unrealized;
  }
}
