/**
 * What one fill does to one subaccount: spot fills move base and quote balances (and
 * release what a resting order had locked), perp fills move the position (average entry,
 * realized PnL), every fill pays its fee in quote and becomes a Fill record. @internal
 */
import type { Fill, Role, Side } from '../../protocol';
import type { EngineOrder } from './Book';
import { QUOTE_TOKEN } from './catalog';
import type { MarketState } from './MarketState';
import type { PositionState, SubaccountState } from './SubaccountState';
import type { World } from './World';

/** Fee of a notional at a rate in hundredths of a basis point (1e-6), truncated toward zero. */
export function feeOf(notional: bigint, rate100thBps: number): bigint {
  return (notional * BigInt(rate100thBps)) / 1_000_000n;
}

/** Quote lots a resting spot order locks: the notional of its remaining size (bids) or base atoms (asks). */
export function lockFor(m: MarketState, side: Side, price: number, size: number): { token: string; amount: bigint } {
  return side === 'bid' ? { token: QUOTE_TOKEN, amount: m.notional(price, size) } : { token: m.spec.base, amount: BigInt(size) * m.spec.baseAtomsPerLot };
}

export interface FillArgs {
  readonly market: MarketState;
  readonly order: EngineOrder;
  readonly role: Role;
  readonly price: number;
  readonly size: number;
  readonly notional: bigint;
}

/** Applies one fill to the order's owner and records the Fill. */
export function settleFill(w: World, a: FillArgs): Fill {
  const { market: m, order, role, price, size, notional } = a;
  const sub = order.owner;
  const fee = feeOf(notional, role === 'maker' ? m.spec.makerFee100thBps : m.spec.takerFee100thBps);
  if (m.isPerp) {
    applyPerpFill(w, m, sub, order.side, price, size);
    const pos = sub.positions.get(m.spec.id)!;
    pos.fees += fee;
    sub.adjust(QUOTE_TOKEN, -fee);
  } else {
    const baseAtoms = BigInt(size) * m.spec.baseAtomsPerLot;
    // A resting maker had locked exactly what this fill spends.
    const unlock = role === 'maker';
    if (order.side === 'bid') {
      sub.adjust(QUOTE_TOKEN, -notional - fee, unlock ? -notional : 0n);
      sub.adjust(m.spec.base, baseAtoms);
    } else {
      sub.adjust(m.spec.base, -baseAtoms, unlock ? -baseAtoms : 0n);
      sub.adjust(QUOTE_TOKEN, notional - fee);
    }
  }
  sub.realizedTotal -= fee;
  sub.fillSeq += 1;
  const fill: Fill = {
    sequence: String(sub.fillSeq),
    timestamp_ns: w.eventNs.toString(),
    market_type: m.spec.type,
    market_id: m.spec.id,
    order_id: order.id,
    client_order_id: order.clientOrderId.toString(),
    side: order.side,
    role,
    price_ticks: String(price),
    size_base_lots: String(size),
    quote_notional_lots: notional.toString(),
    fee_quote_lots: fee.toString(),
  };
  sub.addFill(fill);
  w.touchSub(sub);
  return fill;
}

function applyPerpFill(w: World, m: MarketState, sub: SubaccountState, side: Side, price: number, size: number): void {
  let pos = sub.positions.get(m.spec.id);
  if (!pos) {
    pos = { marketId: m.spec.id, size: 0, costBasis: 0n, entryTicks: price, realized: 0n, fees: 0n, funding: 0n };
    sub.positions.set(m.spec.id, pos);
  }
  const before = pos.size;
  const signed = side === 'bid' ? size : -size;
  if (before === 0 || Math.sign(before) === Math.sign(signed)) {
    pos.costBasis += m.notional(price, size);
    pos.size += signed;
  } else {
    const close = Math.min(size, Math.abs(before));
    const closedCost = (pos.costBasis * BigInt(close)) / BigInt(Math.abs(before));
    const proceeds = m.notional(price, close);
    const pnl = before > 0 ? proceeds - closedCost : closedCost - proceeds;
    pos.costBasis -= closedCost;
    pos.size += Math.sign(signed) * close;
    pos.realized += pnl;
    sub.realizedTotal += pnl;
    sub.adjust(QUOTE_TOKEN, pnl);
    const rest = size - close;
    if (rest > 0) {
      pos.costBasis = m.notional(price, rest);
      pos.size = Math.sign(signed) * rest;
    }
  }
  if (pos.size !== 0) pos.entryTicks = entryOf(m, pos);
  m.openInterest += Math.max(pos.size, 0) - Math.max(before, 0);
  const holders = w.holders.get(m.spec.id)!;
  if (pos.size !== 0) holders.add(sub);
  else holders.delete(sub);
  m.statsDirty = true;
}

/** Average entry price in ticks (rounded to nearest) of an open position. */
export function entryOf(m: MarketState, pos: PositionState): number {
  const denom = BigInt(Math.abs(pos.size)) * m.k;
  return Number((pos.costBasis * 2n + denom) / (denom * 2n));
}
