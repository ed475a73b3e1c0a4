/**
 * Price-time-priority matching: an incoming order trades against the best opposite levels
 * (oldest order first) while it crosses, then rests (limit) or is cancelled (market
 * remainder). Self-trades are prevented by cancelling the resting order. Every change goes
 * to the market's and the owners' change sets for publishing. @internal
 */
import type { Fill, Order, Side, Trade } from '../../protocol';
import type { EngineOrder } from './Book';
import type { MarketState } from './MarketState';
import { lockFor, settleFill } from './settlement';
import type { SubaccountState } from './SubaccountState';
import type { World } from './World';

export interface SubmitRequest {
  readonly market: MarketState;
  readonly owner: SubaccountState;
  readonly side: Side;
  /** Limit price; for a market order an optional worst acceptable price. */
  readonly price?: number;
  readonly size: number;
  readonly kind: 'limit' | 'market';
  readonly clientOrderId: bigint;
}

export interface SubmitResult {
  readonly order: EngineOrder;
  readonly record: Order;
  /** The submitting subaccount's (taker) fills. */
  readonly fills: Fill[];
}

/** The protocol record of an order's current state. */
export function orderRecord(o: EngineOrder, m: MarketState): Order {
  return {
    order_id: o.id,
    client_order_id: o.clientOrderId.toString(),
    market_type: m.spec.type,
    market_id: m.spec.id,
    side: o.side,
    price_ticks: String(o.price),
    original_size_base_lots: String(o.original),
    remaining_size_base_lots: String(o.remaining),
    filled_size_base_lots: String(o.original - o.remaining),
    status: o.status,
    created_at_ns: o.createdNs.toString(),
    updated_at_ns: o.updatedNs.toString(),
  };
}

export class Matcher {
  constructor(private readonly w: World) {}

  submit(req: SubmitRequest): SubmitResult {
    const { w } = this;
    const m = req.market;
    const seq = ++w.orderSeq;
    const order: EngineOrder = {
      id: w.orderIds.make(seq),
      seq,
      owner: req.owner,
      marketKey: m.key,
      side: req.side,
      // A market order without a bound is recorded at the last price it could reach.
      price: req.price ?? 0,
      original: req.size,
      remaining: req.size,
      clientOrderId: req.clientOrderId,
      createdNs: w.eventNs,
      updatedNs: w.eventNs,
      status: 'open',
    };
    w.touchMarket(m);
    w.touchSub(req.owner);
    const fills = this.match(m, order, req.kind === 'market' && req.price === undefined);
    if (order.remaining > 0 && req.kind === 'limit') {
      this.rest(m, order);
    } else {
      order.status = order.remaining === 0 ? 'filled' : 'cancelled';
    }
    const record = orderRecord(order, m);
    req.owner.putOrder(record);
    return { order, record, fills };
  }

  /** Cancels a resting order; returns its final record. */
  cancel(order: EngineOrder): Order {
    const { w } = this;
    const m = w.markets.find((x) => x.key === order.marketKey)!;
    m.book.unrest(order, m.onLevel);
    this.release(m, order);
    order.status = 'cancelled';
    order.updatedNs = w.eventNs;
    order.owner.openOrders.delete(order.id);
    const record = orderRecord(order, m);
    order.owner.putOrder(record);
    w.touchMarket(m);
    w.touchSub(order.owner);
    return record;
  }

  private rest(m: MarketState, order: EngineOrder): void {
    m.book.rest(order, m.onLevel);
    order.owner.openOrders.set(order.id, order);
    if (!m.isPerp) {
      const lock = lockFor(m, order.side, order.price, order.remaining);
      order.owner.adjust(lock.token, 0n, lock.amount);
    }
  }

  /** Unlocks what a resting spot order still holds. */
  private release(m: MarketState, order: EngineOrder): void {
    if (m.isPerp) return;
    const lock = lockFor(m, order.side, order.price, order.remaining);
    order.owner.adjust(lock.token, 0n, -lock.amount);
  }

  private match(m: MarketState, taker: EngineOrder, unbounded: boolean): Fill[] {
    const { w } = this;
    const fills: Fill[] = [];
    const opposite = m.book.side(taker.side === 'bid' ? 'ask' : 'bid');
    while (taker.remaining > 0) {
      const level = opposite.best();
      if (!level) break;
      if (!unbounded && !(taker.side === 'bid' ? level.price <= taker.price : level.price >= taker.price)) break;
      const maker = level.orders[0]!;
      if (maker.owner === taker.owner) {
        this.cancel(maker);
        continue;
      }
      const size = Math.min(taker.remaining, maker.remaining);
      const price = maker.price;
      const notional = m.notional(price, size);
      m.tradeSeq += 1;
      const trade: Trade = {
        timestamp_ns: w.eventNs.toString(),
        sequence: String(m.tradeSeq),
        price_ticks: String(price),
        size_base_lots: String(size),
        quote_notional_lots: notional.toString(),
        taker_is_bid: taker.side === 'bid',
      };
      m.addTrade(trade, w.eventMs, price, size, notional);
      m.book.fillMaker(maker, size, m.onLevel);
      settleFill(w, { market: m, order: maker, role: 'maker', price, size, notional });
      maker.updatedNs = w.eventNs;
      if (maker.remaining === 0) {
        maker.status = 'filled';
        maker.owner.openOrders.delete(maker.id);
      }
      maker.owner.putOrder(orderRecord(maker, m));
      taker.remaining -= size;
      if (unbounded) (taker as { price: number }).price = price;
      fills.push(settleFill(w, { market: m, order: taker, role: 'taker', price, size, notional }));
    }
    return fills;
  }
}
