/**
 * Fast decoding of the REST answers on the resync path: the `orderBook` snapshot (a 500-level
 * book is ~46 KB, where `JSON.parse` + zod cost several hundred microseconds).
 *
 * Same approach as the feed's fast decoder (fastDecode.ts): the whole text is checked in the
 * server's compact form (`{"data":{"bids":[...],"asks":[...]},...}` with `sequence` and
 * `timestamp_ns` after `data`, in either order; no whitespace, no escapes, exactly the
 * schema's keys, Uint64 values as digit strings), by one native pattern test up to
 * PATTERN_TEXT_LIMIT and token by token beyond (a pattern's backtracking stack overflows from
 * ~855k levels), and the feed's level reader (fastDecodeRecords.ts) slices the values out and
 * checks the 2^64 - 1 bound and that no side lists a price twice. Linear time and constant
 * stack: a book of any depth loads.
 * Anything else (an extra key, another order, a value the schema would reject) is left to
 * the schema path, which alone decides accept, reject and drift reports. So an answer the
 * fast path takes is one `JSON.parse` + `responseSchema(...)` accepts, strict or not, with
 * no drift, and the same (deep-equal) value.
 */
import { readOrderBookResponse } from './fastDecodeRecords';
import { ORDER_BOOK_RESPONSE_PATTERN, PATTERN_TEXT_LIMIT } from './fastDecodeShapes';
import type { OperationName } from './operations';
import type { OrderBook } from './records/book';

/** The `orderBook` answer, as the schema path returns it. */
export interface OrderBookResponse {
  data: OrderBook;
  timestamp_ns: string;
  sequence: string;
}

/** A fast decoder of a 2xx answer: the validated value, or undefined to fall back. Never throws. */
export type FastResponseDecoder = (text: string) => unknown;

/**
 * Reads an `orderBook` answer in the server's compact form, valid in every respect; returns
 * undefined otherwise (the caller falls back to `JSON.parse` + the response schema). Any
 * depth of book: up to PATTERN_TEXT_LIMIT one pattern test checks the text, then the values
 * are sliced out; beyond, one pass checks and reads. Never throws.
 *
 * @example
 * scanOrderBookResponse('{"data":{"bids":[],"asks":[{"price_ticks":"5","size_base_lots":"1"}]},"sequence":"9","timestamp_ns":"7"}')
 * // => { data: { bids: [], asks: [{ price_ticks: '5', size_base_lots: '1' }] }, timestamp_ns: '7', sequence: '9' }
 */
export function scanOrderBookResponse(text: string): OrderBookResponse | undefined {
  if (text.length > PATTERN_TEXT_LIMIT) return readOrderBookResponse(text, false);
  return ORDER_BOOK_RESPONSE_PATTERN.test(text) ? readOrderBookResponse(text, true) : undefined;
}

/**
 * Fast decoders of 2xx answers, per operation (the REST client stays generic: it looks the
 * operation up here and falls back to the schema path when the decoder returns undefined).
 */
export const FAST_RESPONSE_DECODERS: { readonly [N in OperationName]?: FastResponseDecoder } = Object.freeze({
  orderBook: scanOrderBookResponse,
});

/** The fast decoder of `operation`'s 2xx answers, if it has one. */
export function fastResponseDecoder(operation: OperationName): FastResponseDecoder | undefined {
  return Object.hasOwn(FAST_RESPONSE_DECODERS, operation) ? FAST_RESPONSE_DECODERS[operation] : undefined;
}
