/**
 * Checks of the engine's own order API (`placeOrder`, `cancelOrder`): every argument, the
 * market's status, the subaccount's status and, for spot, the balance the order spends.
 * @internal
 */
import type { MarketType, Side } from '../../protocol';
import { QUOTE_TOKEN } from './catalog';
import { SimulatorRequestError } from './SimulatorRequestError';
import type { SubmitRequest } from './Matcher';
import type { MarketState } from './MarketState';
import { feeOf } from './settlement';
import type { SubaccountState } from './SubaccountState';
import type { World } from './World';

/** Arguments of `Engine.placeOrder`. */
export interface PlaceOrderRequest {
  readonly address: string;
  readonly subaccount_id: number;
  readonly market_type: MarketType;
  readonly market_id: number;
  readonly side: Side;
  /** Limit price in ticks (required for limit orders; for market orders an optional worst price). */
  readonly price_ticks?: string | bigint;
  readonly size_base_lots: string | bigint;
  /** @default 'limit' */
  readonly kind?: 'limit' | 'market';
  /** @default the subaccount's next client order id */
  readonly client_order_id?: string | bigint;
}

/** Arguments of `Engine.cancelOrder`. */
export interface CancelOrderRequest {
  readonly address: string;
  readonly subaccount_id: number;
  readonly order_id: string;
}

/** Largest price or size the engine accepts (keeps every book sum a safe integer). */
const MAX_QUANTITY = 1_000_000_000_000n;

function quantity(name: string, v: unknown): number {
  let big: bigint;
  try {
    if (typeof v !== 'bigint' && !(typeof v === 'string' && /^[0-9]+$/.test(v))) throw new Error();
    big = BigInt(v);
  } catch {
    throw new SimulatorRequestError(`${name} must be a decimal string or bigint of a positive integer, got ${String(v)}`);
  }
  if (big <= 0n || big > MAX_QUANTITY) throw new SimulatorRequestError(`${name} must be from 1 to ${MAX_QUANTITY}, got ${big}`);
  return Number(big);
}

/** The subaccount an engine call names. @throws SimulatorRequestError */
export function requireSubaccount(w: World, address: string, id: number): SubaccountState {
  const a = w.accounts.get(address);
  if (!a) throw new SimulatorRequestError(`unknown account ${address}`);
  const s = a.subaccounts.get(id);
  if (!s) throw new SimulatorRequestError(`unknown subaccount ${id} of account ${address}`);
  return s;
}

/** Quote an order would spend at most (walking the book for market orders). */
function spotCost(m: MarketState, size: number, limit: number | undefined): bigint {
  if (limit !== undefined) return m.notional(limit, size);
  let left = size;
  let cost = 0n;
  for (const level of m.book.asks.top(m.book.asks.prices.length)) {
    const take = Math.min(left, level.total);
    cost += m.notional(level.price, take);
    left -= take;
    if (left === 0) break;
  }
  return cost;
}

/** Validates a `placeOrder` call into a matcher request. @throws SimulatorRequestError */
export function toSubmitRequest(w: World, req: PlaceOrderRequest): SubmitRequest {
  if (req.market_type !== 'spot' && req.market_type !== 'perp') throw new SimulatorRequestError(`market_type must be 'spot' or 'perp', got ${String(req.market_type)}`);
  const m = w.market(req.market_type, req.market_id);
  if (!m) throw new SimulatorRequestError(`unknown ${req.market_type} market ${req.market_id}`);
  if (!m.active) throw new SimulatorRequestError(`market ${m.spec.symbol} is ${m.spec.status}: it accepts no orders`);
  const owner = requireSubaccount(w, req.address, req.subaccount_id);
  if (!owner.canTrade) throw new SimulatorRequestError(`subaccount ${owner.id} of ${owner.address} is ${owner.status}: it cannot trade`);
  if (req.side !== 'bid' && req.side !== 'ask') throw new SimulatorRequestError(`side must be 'bid' or 'ask', got ${String(req.side)}`);
  const kind = req.kind ?? 'limit';
  if (kind !== 'limit' && kind !== 'market') throw new SimulatorRequestError(`kind must be 'limit' or 'market', got ${String(kind)}`);
  const size = quantity('size_base_lots', req.size_base_lots);
  if (size < m.spec.minSizeLots) throw new SimulatorRequestError(`size_base_lots must be at least ${m.spec.minSizeLots} on ${m.spec.symbol}, got ${size}`);
  if (kind === 'limit' && req.price_ticks === undefined) throw new SimulatorRequestError('price_ticks is required for a limit order');
  const price = req.price_ticks === undefined ? undefined : quantity('price_ticks', req.price_ticks);
  if (kind === 'limit' && m.notional(price!, size) < BigInt(m.record.min_order_notional_quote_lots)) {
    throw new SimulatorRequestError(`order notional is below the market minimum of ${m.record.min_order_notional_quote_lots} quote lots`);
  }
  let clientOrderId: bigint;
  if (req.client_order_id === undefined) clientOrderId = owner.nextClientOrderId++;
  else {
    if (!(typeof req.client_order_id === 'bigint' || /^[0-9]+$/.test(String(req.client_order_id)))) throw new SimulatorRequestError(`client_order_id must be an unsigned 64-bit integer, got ${String(req.client_order_id)}`);
    clientOrderId = BigInt(req.client_order_id);
    if (clientOrderId < 0n || clientOrderId >= 1n << 64n) throw new SimulatorRequestError(`client_order_id must be an unsigned 64-bit integer, got ${clientOrderId}`);
  }
  if (!m.isPerp) {
    if (req.side === 'ask') {
      const need = BigInt(size) * m.spec.baseAtomsPerLot;
      if (owner.available(m.spec.base) < need) throw new SimulatorRequestError(`insufficient ${m.spec.base} balance: need ${need} atoms available`);
    } else {
      const cost = spotCost(m, size, price);
      const need = cost + feeOf(cost, m.spec.takerFee100thBps);
      if (owner.available(QUOTE_TOKEN) < need) throw new SimulatorRequestError(`insufficient ${QUOTE_TOKEN} balance: need ${need} atoms available`);
    }
  }
  return { market: m, owner, side: req.side, price, size, kind, clientOrderId };
}
