/**
 * Readers that build the values of a hot update frame from its text, once the frame's
 * pattern (fastDecodeShapes.ts) has matched: the structure is then known, so they jump
 * from value to value over the constant tokens and only look for each value's end. They
 * check the one thing the pattern cannot (20-digit Uint64 values above 2^64 - 1) and give
 * up on it (`undefined`), leaving the fallback to reject the frame. @internal
 */
import type { Bbo, OrderBook, PriceLevel } from './records/book';
import type { Trade } from './records/trade';
import { BBO_KEYS, BOOK_KEYS, fieldSkips, LEVEL_FIELDS, TRADE_FIELDS, TRADES_KEYS } from './fastDecodeShapes';

const DIGIT_0 = 48;
const DIGIT_9 = 57;
const COMMA = 44; // ,
const RBRACKET = 93; // ]
const LOWER_N = 110; // n (null)
const LOWER_T = 116; // t (true)
/** 2^64 - 1; equal-length digit strings compare like the numbers they spell. */
const UINT64_MAX_TEXT = '18446744073709551615';

const [LEVEL_PRICE, LEVEL_SIZE] = fieldSkips(LEVEL_FIELDS) as [number, number];
const TRADE_SKIPS = fieldSkips(TRADE_FIELDS) as [number, number, number, number, number, number];
// From `{` or `,` before a data key to the first character of its value.
const dataKeySkip = (key: string) => 1 + key.length + 3;

/**
 * A cursor over one matched frame. Module-level state keeps the hot path free of
 * allocations; decoding is synchronous, so calls never interleave.
 */
let text = '';
let pos = 0;

/** Starts reading `frameText` at `start`. */
export function beginRead(frameText: string, start: number): void {
  text = frameText;
  pos = start;
}

/** Skips `skip` characters then reads a Uint64 value; undefined when above 2^64 - 1. */
export function readUint64(skip: number): string | undefined {
  const start = pos + skip;
  let end = start;
  // Digits only (the pattern saw them); also stops at the end of the text (NaN), come what may.
  for (let c = text.charCodeAt(end); c >= DIGIT_0 && c <= DIGIT_9; c = text.charCodeAt(++end));
  const s = text.slice(start, end);
  pos = end + 1;
  return end - start === 20 && s > UINT64_MAX_TEXT ? undefined : s;
}

/** Skips `skip` characters (constant tokens). */
export function skip(n: number): void {
  pos += n;
}

function readLevel(): PriceLevel | undefined {
  const price = readUint64(LEVEL_PRICE);
  const size = readUint64(LEVEL_SIZE);
  pos++; // }
  return price === undefined || size === undefined ? undefined : { price_ticks: price, size_base_lots: size };
}

function readLevels(): PriceLevel[] | undefined {
  const out: PriceLevel[] = [];
  if (text.charCodeAt(++pos) === RBRACKET) {
    pos++;
    return out;
  }
  for (;;) {
    const level = readLevel();
    if (level === undefined) return undefined;
    out.push(level);
    // Cursor on `,` (the next level starts after it) or on `]`.
    if (text.charCodeAt(pos++) !== COMMA) return out;
  }
}

const BOOK_BIDS = dataKeySkip(BOOK_KEYS[0]);
const BOOK_ASKS = dataKeySkip(BOOK_KEYS[1]);

/** Reads the `data` of a `book` update (cursor on its `{`). */
export function readBookData(): OrderBook | undefined {
  pos += BOOK_BIDS; // onto the `[`
  const bids = readLevels();
  if (bids === undefined) return undefined;
  pos += BOOK_ASKS; // from the `,` after `]` onto the next `[`
  const asks = readLevels();
  if (asks === undefined) return undefined;
  pos++; // }
  return { bids, asks };
}

const BBO_BID = dataKeySkip(BBO_KEYS[0]);
const BBO_ASK = dataKeySkip(BBO_KEYS[1]);

function readBboSide(): PriceLevel | null | undefined {
  if (text.charCodeAt(pos) === LOWER_N) {
    pos += 4;
    return null;
  }
  return readLevel(); // cursor on the level's `{`
}

/** Reads the `data` of a `bbo` update (cursor on its `{`). */
export function readBboData(): Bbo | undefined {
  pos += BBO_BID;
  const bid = readBboSide();
  if (bid === undefined) return undefined;
  pos += BBO_ASK;
  const ask = readBboSide();
  if (ask === undefined) return undefined;
  pos++; // }
  return { bid, ask };
}

function readTrade(): Trade | undefined {
  const ts = readUint64(TRADE_SKIPS[0]);
  const sequence = readUint64(TRADE_SKIPS[1]);
  const price = readUint64(TRADE_SKIPS[2]);
  const size = readUint64(TRADE_SKIPS[3]);
  const notional = readUint64(TRADE_SKIPS[4]);
  pos += TRADE_SKIPS[5];
  const takerIsBid = text.charCodeAt(pos) === LOWER_T;
  pos += takerIsBid ? 5 : 6; // `true}` or `false}`
  if (ts === undefined || sequence === undefined || price === undefined || size === undefined || notional === undefined) return undefined;
  return { timestamp_ns: ts, sequence, price_ticks: price, size_base_lots: size, quote_notional_lots: notional, taker_is_bid: takerIsBid };
}

/** Reads the `data` of a `trades` update (cursor on its `{`). */
export function readTradesData(): { trades: Trade[] } | undefined {
  pos += dataKeySkip(TRADES_KEYS[0]); // onto the `[`
  const trades: Trade[] = [];
  if (text.charCodeAt(++pos) === RBRACKET) {
    pos += 2; // ]}
    return { trades };
  }
  for (;;) {
    const trade = readTrade();
    if (trade === undefined) return undefined;
    trades.push(trade);
    if (text.charCodeAt(pos++) !== COMMA) break;
  }
  pos++; // }
  return { trades };
}
