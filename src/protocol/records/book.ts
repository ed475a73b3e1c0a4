/** Price levels, BBO, aggregated book and resting orders (exchange-api-v1.md section 2.3). */
import * as z from 'zod/mini';
import { Side } from '../enums';
import { hasRepeatedPrice, repeatedPriceAt, repeatedPriceMessage } from '../repeatedPrice';
import { Address, NonNegInt32, OrderId, Uint64 } from '../scalars';

export const PriceLevel = z.strictObject({
  price_ticks: Uint64,
  size_base_lots: Uint64,
});
export type PriceLevel = z.infer<typeof PriceLevel>;

export const Bbo = z.strictObject({
  bid: z.nullable(PriceLevel),
  ask: z.nullable(PriceLevel),
});
export type Bbo = z.infer<typeof Bbo>;

const BookSides = z.strictObject({
  bids: z.array(PriceLevel),
  asks: z.array(PriceLevel),
});

/**
 * Rejects a side that lists a price twice (see repeatedPrice.ts). Runs only on an otherwise
 * valid value: its prices are then digit strings, and a value already rejected gains no
 * second, misleading issue (two bad prices alike are not "a repeated price").
 */
function noRepeatedPrice(payload: z.core.ParsePayload<z.infer<typeof BookSides>>): void {
  if (payload.issues.length > 0) return;
  const { bids, asks } = payload.value;
  if (hasRepeatedPrice(bids)) reportRepeat(payload, 'bids', bids);
  if (hasRepeatedPrice(asks)) reportRepeat(payload, 'asks', asks);
}

function reportRepeat(payload: z.core.ParsePayload, side: 'bids' | 'asks', levels: readonly PriceLevel[]): void {
  const at = repeatedPriceAt(levels);
  payload.issues.push({ code: 'custom', input: levels[at], path: [side, at, 'price_ticks'], message: repeatedPriceMessage(side, levels, at) });
}

/** The `data` of a `book` update and of an `orderBook` answer: no price twice on a side. */
export const OrderBook = BookSides.check(z.check(noRepeatedPrice));
export type OrderBook = z.infer<typeof OrderBook>;

export const BookOrder = z.strictObject({
  order_id: OrderId,
  client_order_id: Uint64,
  address: Address,
  subaccount_id: NonNegInt32,
  side: Side,
  price_ticks: Uint64,
  remaining_size_base_lots: Uint64,
  original_size_base_lots: Uint64,
});
export type BookOrder = z.infer<typeof BookOrder>;
