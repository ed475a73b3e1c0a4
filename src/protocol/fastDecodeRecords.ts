/**
 * Readers of the hot texts (update frames of `book`, `bbo`, `trades`; the `orderBook`
 * answer): one pass over the text that steps over each constant token of the compact form
 * (fastDecodeShapes.ts) and reads each value as it comes. Two modes:
 *
 * - `checked` (the text matched its whole-text pattern): the structure is known, tokens are
 *   skipped by length, only each value's end is looked for;
 * - unchecked (texts too long for a pattern): each token is compared where it must be.
 *
 * Either way, any difference from that form, any Uint64 value the schema would reject
 * (no digit, more than 20, above 2^64 - 1), and a book side listing a price twice give
 * `undefined`, leaving the fallback (`JSON.parse` + zod) to decide. Plain loops: linear
 * time, constant stack, any size.
 * Choices (`null` or a level, `true` or `false`, which key comes first) look at the next
 * character, never at whether a token matched (in checked mode every token "matches"). @internal
 */
import type { HotChannel, HotUpdateFrame } from './fastDecode';
import type { OrderBookResponse } from './fastDecodeSnapshot';
import {
  BBO_TOKENS,
  BOOK_TOKENS,
  CHANNEL_TOKENS,
  DATA_TOKEN,
  LEVEL_FIELDS,
  ORDER_BOOK_RESPONSE_TOKENS,
  recordTokens,
  TIMESTAMP_TOKEN,
  TRADE_FIELDS,
  TRADES_TOKENS,
  UPDATE_HEAD,
} from './fastDecodeShapes';
import { CHANNEL_NAME_AT } from './hotFrameLayout';
import { ownSlice } from './ownSlice';
import { hasRepeatedPrice } from './repeatedPrice';
import type { Bbo, OrderBook, PriceLevel } from './records/book';
import type { Trade } from './records/trade';

const DIGIT_0 = 48;
const DIGIT_9 = 57;
const COMMA = 44; // ,
const QUOTE = 34; // "
const BACKSLASH = 92; // \
const SPACE = 32; // the first character that is not a control
const RBRACKET = 93; // ]
const LOWER_B = 98; // b (book, bbo)
const LOWER_N = 110; // n (null)
const LOWER_O = 111; // o (book)
const LOWER_S = 115; // s (sequence)
const LOWER_T = 116; // t (true, trades)
/** 2^64 - 1; equal-length digit strings compare like the numbers they spell. */
const UINT64_MAX_TEXT = '18446744073709551615';

const [LEVEL_OPEN, LEVEL_MID, LEVEL_CLOSE] = recordTokens(LEVEL_FIELDS) as [string, string, string];
const [TRADE_OPEN, TRADE_SEQUENCE, TRADE_PRICE, TRADE_SIZE, TRADE_NOTIONAL, TRADE_TAKER, TRADE_CLOSE] = recordTokens(TRADE_FIELDS) as [string, string, string, string, string, string, string];
const [BOOK_OPEN, BOOK_ASKS, BOOK_CLOSE] = BOOK_TOKENS;
const [BBO_OPEN, BBO_ASK, BBO_CLOSE] = BBO_TOKENS;
const [TRADES_OPEN, TRADES_CLOSE] = TRADES_TOKENS;
const { open: ANSWER_OPEN, sequenceFirst: SEQUENCE_FIRST, timestampFirst: TIMESTAMP_FIRST } = ORDER_BOOK_RESPONSE_TOKENS;
// From the subscription id's closing quote to the first character of the channel name.
const CHANNEL_AT = CHANNEL_NAME_AT;

/**
 * A cursor over one text. Module-level state keeps the hot path free of allocations;
 * decoding is synchronous, so calls never interleave.
 */
let text = '';
let pos = 0;
let checked = false;
/**
 * The last price read ({@link readPrice}) as a double, accumulated digit by digit: one
 * spelling or another of a value (`"7"`, `"007"`) gives the same double, so two levels
 * whose doubles differ have different prices (above 2^53 different prices may round alike:
 * never a false "different").
 */
let priceValue = 0;
/**
 * Whether the side {@link readLevels} last read has strictly monotonic price doubles, hence
 * no price twice; false says nothing either way (the exact check in repeatedPrice.ts decides).
 */
let levelsDistinct = true;
/** Up to this many levels, a side out of order is checked on its price doubles, pairwise. */
const FEW = 8;
/** The price doubles of the first {@link FEW} levels of the side being read. */
const fewPrices = new Float64Array(FEW);

/**
 * Reads a whole update frame of a hot channel in the compact form; undefined when it is not
 * one (or holds a value the schemas reject). `patternChecked`: the text matched the pattern
 * of its channel (HOT_FRAME_PATTERNS), so only the values are looked at; otherwise every
 * token is compared. Never throws.
 */
export function readHotUpdate(frameText: string, patternChecked: boolean): HotUpdateFrame | undefined {
  return readWhole(frameText, patternChecked, hotUpdate);
}

/**
 * Reads a whole `orderBook` answer in the compact form; undefined when it is not one (or
 * holds a value the schema rejects). `patternChecked`: the text matched
 * ORDER_BOOK_RESPONSE_PATTERN. Never throws.
 */
export function readOrderBookResponse(answerText: string, patternChecked: boolean): OrderBookResponse | undefined {
  return readWhole(answerText, patternChecked, orderBookResponse);
}

/**
 * The hot channel whose name starts with these two characters, if any (the text then decides).
 *
 * @example
 * hotChannelAt(98, 111) // => 'book' ('b', 'o')
 */
export function hotChannelAt(c: number, next: number): HotChannel | undefined {
  return c === LOWER_B ? (next === LOWER_O ? 'book' : 'bbo') : c === LOWER_T ? 'trades' : undefined;
}

function readWhole<T>(t: string, patternChecked: boolean, read: () => T | undefined): T | undefined {
  text = t;
  pos = 0;
  checked = patternChecked;
  let value: T | undefined;
  try {
    value = read();
  } catch {
    // Nothing in the readers throws; should anything ever, the schema path decides.
    value = undefined;
  }
  // Let go of the text (the values sliced from it may still share its memory, as long as they live).
  text = '';
  pos = 0;
  return value;
}

function hotUpdate(): HotUpdateFrame | undefined {
  if (!lit(UPDATE_HEAD)) return undefined;
  const subscriptionId = readPlainString();
  if (subscriptionId === undefined) return undefined;
  const channel = hotChannelAt(text.charCodeAt(pos + CHANNEL_AT), text.charCodeAt(pos + CHANNEL_AT + 1));
  if (channel === undefined || !lit(CHANNEL_TOKENS[channel])) return undefined;
  const seq = readUint64();
  if (seq === undefined || !lit(TIMESTAMP_TOKEN)) return undefined;
  const timestampNs = readUint64();
  if (timestampNs === undefined || !lit(DATA_TOKEN)) return undefined;
  const data = channel === 'book' ? readBookData() : channel === 'bbo' ? readBboData() : readTradesData();
  if (data === undefined || !lit('}') || pos !== text.length) return undefined;
  return { type: 'update', subscription_id: subscriptionId, channel, seq, timestamp_ns: timestampNs, data } as HotUpdateFrame;
}

function orderBookResponse(): OrderBookResponse | undefined {
  if (!lit(ANSWER_OPEN)) return undefined;
  const data = readBookData();
  if (data === undefined) return undefined;
  // The cursor is on the comma after `data`, before `"sequence"` or `"timestamp_ns"`.
  const sequenceFirst = text.charCodeAt(pos + 2) === LOWER_S;
  const [toFirst, toSecond, close] = sequenceFirst ? SEQUENCE_FIRST : TIMESTAMP_FIRST;
  if (!lit(toFirst)) return undefined;
  const first = readUint64();
  if (first === undefined || !lit(toSecond)) return undefined;
  const second = readUint64();
  if (second === undefined || !lit(close) || pos !== text.length) return undefined;
  // Keys in the schema's order, as zod builds them.
  return sequenceFirst ? { data, timestamp_ns: second, sequence: first } : { data, timestamp_ns: first, sequence: second };
}

/**
 * Steps over `token`, which must be at the cursor: false (cursor unmoved) when it is not.
 * In checked mode, skips its length without looking.
 */
function lit(token: string): boolean {
  if (!checked && !text.startsWith(token, pos)) return false;
  pos += token.length;
  return true;
}

/**
 * Reads the digits of a Uint64 value at the cursor (its quotes are the tokens' business):
 * 1 to 20 digits, at most 2^64 - 1, as the schema takes them; undefined otherwise. `own`
 * for a value a replica keeps (a trade in `recent`): see {@link ownSlice}. The book's levels
 * become numbers and the envelope's BigInts, so theirs stay views.
 */
function readUint64(own = false): string | undefined {
  const t = text;
  const start = pos;
  let end = start;
  // Stops at the end of the text too (NaN).
  for (let c = t.charCodeAt(end); c >= DIGIT_0 && c <= DIGIT_9; c = t.charCodeAt(++end));
  pos = end;
  return uint64Text(t, start, end, own);
}

/**
 * {@link readUint64} of a level's price, its value also kept in {@link priceValue} (the
 * multiply-add rides on the digit loop: cheaper than comparing the price strings).
 */
function readPrice(): string | undefined {
  const t = text;
  const start = pos;
  let end = start;
  let v = 0;
  for (let c = t.charCodeAt(end); c >= DIGIT_0 && c <= DIGIT_9; c = t.charCodeAt(++end)) v = v * 10 + (c - DIGIT_0);
  pos = end;
  priceValue = v;
  return uint64Text(t, start, end, false);
}

/** The digits `t[start..end)` as a Uint64 value the schema takes (1 to 20, at most 2^64 - 1), or undefined. */
function uint64Text(t: string, start: number, end: number, own: boolean): string | undefined {
  const n = end - start;
  if (n === 0 || n > 20) return undefined;
  const s = own ? ownSlice(t, start, end) : t.slice(start, end);
  return n === 20 && s > UINT64_MAX_TEXT ? undefined : s;
}

/**
 * Reads the content of a JSON string (cursor after its opening quote) up to its closing
 * quote, which stays under the cursor; undefined when it holds an escape or a control
 * character (the fallback decides those) or is not closed.
 */
function readPlainString(): string | undefined {
  const t = text;
  const start = pos;
  let end = start;
  if (checked) end = t.indexOf('"', start);
  else {
    for (let c = t.charCodeAt(end); c !== QUOTE; c = t.charCodeAt(++end)) {
      // `!(c >= SPACE)` is also true at the end of the text (NaN).
      if (c === BACKSLASH || !(c >= SPACE)) return undefined;
    }
  }
  pos = end;
  return t.slice(start, end);
}

function readLevel(): PriceLevel | undefined {
  if (!lit(LEVEL_OPEN)) return undefined;
  const price = readPrice();
  if (price === undefined || !lit(LEVEL_MID)) return undefined;
  const size = readUint64();
  if (size === undefined || !lit(LEVEL_CLOSE)) return undefined;
  return { price_ticks: price, size_base_lots: size };
}

/**
 * Reads the levels of an array (cursor after its `[`), leaving the cursor on what follows the
 * last one; sets {@link levelsDistinct}. A side comes best first, so its prices are strictly
 * monotonic and one compare of doubles per level shows that none repeats; a few levels out of
 * order are compared pairwise, as doubles too (comparing strings costs several times more).
 */
function readLevels(): PriceLevel[] | undefined {
  const out: PriceLevel[] = [];
  levelsDistinct = true;
  if (text.charCodeAt(pos) === RBRACKET) return out;
  let prev = 0;
  let order = 0;
  for (;;) {
    const level = readLevel();
    if (level === undefined) return undefined;
    const v = priceValue;
    const k = out.length;
    if (k < FEW) fewPrices[k] = v;
    if (k > 0) {
      const dir = v > prev ? 1 : v < prev ? -1 : 0;
      // A tie, or a turn (with order 0, -order is 0: a tie again).
      if (dir === 0 || dir === -order) levelsDistinct = false;
      order = dir;
    }
    prev = v;
    out.push(level);
    if (text.charCodeAt(pos) !== COMMA) break;
    pos++;
  }
  if (!levelsDistinct && out.length <= FEW) levelsDistinct = fewDistinct(out.length);
  return out;
}

/** True when the first `n` (at most {@link FEW}) price doubles of the side are all different. */
function fewDistinct(n: number): boolean {
  for (let i = 1; i < n; i++) {
    const v = fewPrices[i]!;
    for (let j = 0; j < i; j++) if (fewPrices[j] === v) return false;
  }
  return true;
}

/**
 * Reads an `OrderBook` (cursor on its `{`): the `data` of a `book` update or of an
 * `orderBook` answer. A side that lists a price twice is invalid (repeatedPrice.ts): no
 * pattern can see it, so it is checked here (exactly, unless {@link readLevels} found the
 * side ordered), and the schema path words the rejection.
 */
function readBookData(): OrderBook | undefined {
  if (!lit(BOOK_OPEN)) return undefined;
  const bids = readLevels();
  if (bids === undefined || (!levelsDistinct && hasRepeatedPrice(bids)) || !lit(BOOK_ASKS)) return undefined;
  const asks = readLevels();
  if (asks === undefined || (!levelsDistinct && hasRepeatedPrice(asks)) || !lit(BOOK_CLOSE)) return undefined;
  return { bids, asks };
}

function readBboSide(): PriceLevel | null | undefined {
  if (text.charCodeAt(pos) !== LOWER_N) return readLevel();
  return lit('null') ? null : undefined;
}

/** Reads the `data` of a `bbo` update (cursor on its `{`). */
function readBboData(): Bbo | undefined {
  if (!lit(BBO_OPEN)) return undefined;
  const bid = readBboSide();
  if (bid === undefined || !lit(BBO_ASK)) return undefined;
  const ask = readBboSide();
  if (ask === undefined || !lit(BBO_CLOSE)) return undefined;
  return { bid, ask };
}

function readTrade(): Trade | undefined {
  if (!lit(TRADE_OPEN)) return undefined;
  const ts = readUint64(true);
  if (ts === undefined || !lit(TRADE_SEQUENCE)) return undefined;
  const sequence = readUint64(true);
  if (sequence === undefined || !lit(TRADE_PRICE)) return undefined;
  const price = readUint64(true);
  if (price === undefined || !lit(TRADE_SIZE)) return undefined;
  const size = readUint64(true);
  if (size === undefined || !lit(TRADE_NOTIONAL)) return undefined;
  const notional = readUint64(true);
  if (notional === undefined || !lit(TRADE_TAKER)) return undefined;
  const takerIsBid = text.charCodeAt(pos) === LOWER_T;
  if (!lit(takerIsBid ? 'true' : 'false') || !lit(TRADE_CLOSE)) return undefined;
  return { timestamp_ns: ts, sequence, price_ticks: price, size_base_lots: size, quote_notional_lots: notional, taker_is_bid: takerIsBid };
}

/** Reads the `data` of a `trades` update (cursor on its `{`). */
function readTradesData(): { trades: Trade[] } | undefined {
  if (!lit(TRADES_OPEN)) return undefined;
  const trades: Trade[] = [];
  if (text.charCodeAt(pos) !== RBRACKET) {
    for (;;) {
      const trade = readTrade();
      if (trade === undefined) return undefined;
      trades.push(trade);
      if (text.charCodeAt(pos) !== COMMA) break;
      pos++;
    }
  }
  return lit(TRADES_CLOSE) ? { trades } : undefined;
}
