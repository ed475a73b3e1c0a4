/**
 * Fast decoding of the REST answers on the resync path: the `orderBook` snapshot (a 500-level
 * book is ~46 KB, where `JSON.parse` + zod cost several hundred microseconds).
 *
 * Same approach as the feed's fast decoder (fastDecode.ts): one native pattern test checks
 * the whole text in the server's compact form (`{"data":{"bids":[...],"asks":[...]},...}`
 * with `sequence` and `timestamp_ns` after `data`, in either order; no whitespace, no
 * escapes, exactly the schema's keys, Uint64 values as digit strings), then the feed's
 * level reader (fastDecodeRecords.ts) slices the values out and checks the 2^64 - 1 bound.
 * Anything else (an extra key, another order, a value the schema would reject) is left to
 * the schema path, which alone decides accept, reject and drift reports. So an answer the
 * fast path takes is one `JSON.parse` + `responseSchema(...)` accepts, strict or not, with
 * no drift, and the same (deep-equal) value.
 */
import { beginRead, readBookData, readUint64 } from './fastDecodeRecords';
import { BOOK_DATA_SOURCE, UINT64_SOURCE } from './fastDecodeShapes';
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

const DATA_AT = '{"data":'.length;
const SEQUENCE_KEY = ',"sequence":"';
const TIMESTAMP_KEY = ',"timestamp_ns":"';
// From the comma before a key to the first digit of its value.
const SEQUENCE_SKIP = SEQUENCE_KEY.length;
const TIMESTAMP_SKIP = TIMESTAMP_KEY.length;

/** The whole answer, either order of the two envelope scalars. Linear: the alternatives start differently. */
const ORDER_BOOK_RESPONSE_PATTERN = new RegExp(
  `^\\{"data":${BOOK_DATA_SOURCE}(?:,"sequence":${UINT64_SOURCE},"timestamp_ns":${UINT64_SOURCE}|,"timestamp_ns":${UINT64_SOURCE},"sequence":${UINT64_SOURCE})\\}$`,
);

/**
 * Reads an `orderBook` answer in the server's compact form, valid in every respect; returns
 * undefined otherwise (the caller falls back to `JSON.parse` + the response schema).
 *
 * @example
 * scanOrderBookResponse('{"data":{"bids":[],"asks":[{"price_ticks":"5","size_base_lots":"1"}]},"sequence":"9","timestamp_ns":"7"}')
 * // => { data: { bids: [], asks: [{ price_ticks: '5', size_base_lots: '1' }] }, timestamp_ns: '7', sequence: '9' }
 */
export function scanOrderBookResponse(text: string): OrderBookResponse | undefined {
  if (!ORDER_BOOK_RESPONSE_PATTERN.test(text)) return undefined;
  beginRead(text, DATA_AT);
  const data = readBookData();
  let result: OrderBookResponse | undefined;
  if (data !== undefined) {
    // The cursor is on the comma after `data`. The keys occur once each in a matched text
    // (levels hold other keys), and searching from the end finds them in the short tail.
    const sequenceFirst = text.lastIndexOf(SEQUENCE_KEY) < text.lastIndexOf(TIMESTAMP_KEY);
    const first = readUint64(sequenceFirst ? SEQUENCE_SKIP : TIMESTAMP_SKIP);
    const second = readUint64(sequenceFirst ? TIMESTAMP_SKIP : SEQUENCE_SKIP);
    if (first !== undefined && second !== undefined) {
      // Keys in the schema's order, as zod builds them.
      result = sequenceFirst ? { data, timestamp_ns: second, sequence: first } : { data, timestamp_ns: first, sequence: second };
    }
  }
  // Let go of the text (the values sliced from it may still share its memory, as long as they live).
  beginRead('', 0);
  return result;
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
