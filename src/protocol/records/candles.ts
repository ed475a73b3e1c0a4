/** Trade candles and mark-price candles (exchange-api-v1.md section 2.3). */
import * as z from 'zod/mini';
import { Int64Number, NonNegInteger, Uint64 } from '../scalars';

export const LastCandle = z.strictObject({
  open_time_ms: Int64Number,
  open: Uint64,
  high: Uint64,
  low: Uint64,
  close: Uint64,
  volume_base: Uint64,
  volume_quote: Uint64,
  trades: NonNegInteger,
});
export type LastCandle = z.infer<typeof LastCandle>;

export const MarkCandle = z.strictObject({
  open_time_ms: Int64Number,
  open: Uint64,
  high: Uint64,
  low: Uint64,
  close: Uint64,
  samples: NonNegInteger,
});
export type MarkCandle = z.infer<typeof MarkCandle>;
