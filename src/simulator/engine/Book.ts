/**
 * One market's order book: two price-sorted sides of FIFO price levels (price-time
 * priority). Prices and sizes are plain integers (ticks, base lots); the engine keeps them
 * far below 2^53. Only the changed levels are reported; nothing copies the book. @internal
 */
import type { Side } from '../../protocol';
import type { SubaccountState } from './SubaccountState';

/** A resting (or incoming) order inside the engine. Mutable; records are made from it. */
export interface EngineOrder {
  readonly id: string;
  /** Engine-wide placement number: time priority, and the keyset of book-order listings. */
  readonly seq: number;
  readonly owner: SubaccountState;
  readonly marketKey: string;
  readonly side: Side;
  readonly price: number;
  readonly original: number;
  remaining: number;
  readonly clientOrderId: bigint;
  readonly createdNs: bigint;
  updatedNs: bigint;
  status: 'open' | 'filled' | 'cancelled';
}

export interface Level {
  readonly price: number;
  total: number;
  /** FIFO queue; orders leave from the front (fills) or anywhere (cancels). */
  readonly orders: EngineOrder[];
}

/** Receives the new absolute size of every level that changed (0 = removed). */
export type LevelListener = (side: Side, price: number, size: number) => void;

export class BookSide {
  /** Level prices, best first (bids descending, asks ascending). */
  readonly prices: number[] = [];
  readonly levels = new Map<number, Level>();

  constructor(readonly side: Side) {}

  /** True when price `a` is better than price `b` on this side. */
  better(a: number, b: number): boolean {
    return this.side === 'bid' ? a > b : a < b;
  }

  best(): Level | undefined {
    const p = this.prices[0];
    return p === undefined ? undefined : this.levels.get(p);
  }

  /** Index where `price` is or would be inserted (binary search, best first). */
  indexOf(price: number): number {
    let lo = 0;
    let hi = this.prices.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.better(this.prices[mid]!, price)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  add(order: EngineOrder): Level {
    let level = this.levels.get(order.price);
    if (!level) {
      level = { price: order.price, total: 0, orders: [] };
      this.levels.set(order.price, level);
      this.prices.splice(this.indexOf(order.price), 0, order.price);
    }
    level.orders.push(order);
    level.total += order.remaining;
    return level;
  }

  /** Removes an order from its level (cancel or fully filled); drops the level when empty. */
  remove(order: EngineOrder): Level | undefined {
    const level = this.levels.get(order.price);
    if (!level) return undefined;
    const i = level.orders.indexOf(order);
    if (i < 0) return undefined;
    level.orders.splice(i, 1);
    level.total -= order.remaining;
    if (level.orders.length === 0) this.dropLevel(level.price);
    return level;
  }

  dropLevel(price: number): void {
    this.levels.delete(price);
    const i = this.indexOf(price);
    if (this.prices[i] === price) this.prices.splice(i, 1);
  }

  /** The top `depth` levels, best first. */
  top(depth: number): Level[] {
    const n = Math.min(depth, this.prices.length);
    const out: Level[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = this.levels.get(this.prices[i]!)!;
    return out;
  }
}

export class Book {
  readonly bids = new BookSide('bid');
  readonly asks = new BookSide('ask');
  /** Resting orders by id. */
  readonly orders = new Map<string, EngineOrder>();

  side(side: Side): BookSide {
    return side === 'bid' ? this.bids : this.asks;
  }

  /** Rests an order (the caller has matched it already, so it does not cross). */
  rest(order: EngineOrder, onLevel: LevelListener): void {
    const level = this.side(order.side).add(order);
    this.orders.set(order.id, order);
    onLevel(order.side, order.price, level.total);
  }

  /** Takes a resting order off the book (cancel). */
  unrest(order: EngineOrder, onLevel: LevelListener): void {
    const s = this.side(order.side);
    const level = s.remove(order);
    this.orders.delete(order.id);
    if (level) onLevel(order.side, order.price, s.levels.has(order.price) ? level.total : 0);
  }

  /** Reduces a resting maker by `size` after a fill; removes it when done. */
  fillMaker(order: EngineOrder, size: number, onLevel: LevelListener): void {
    const s = this.side(order.side);
    const level = s.levels.get(order.price)!;
    order.remaining -= size;
    level.total -= size;
    if (order.remaining === 0) {
      // Makers fill from the front of the queue.
      if (level.orders[0] === order) level.orders.shift();
      else level.orders.splice(level.orders.indexOf(order), 1);
      this.orders.delete(order.id);
      if (level.orders.length === 0) s.dropLevel(level.price);
    }
    onLevel(order.side, order.price, s.levels.has(order.price) ? level.total : 0);
  }
}
