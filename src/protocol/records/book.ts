/** Price levels, BBO, aggregated book and resting orders (exchange-api-v1.md section 2.3). */
import * as z from 'zod/mini';
import { Side } from '../enums';
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

export const OrderBook = z.strictObject({
  bids: z.array(PriceLevel),
  asks: z.array(PriceLevel),
});
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
