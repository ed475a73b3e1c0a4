/**
 * The exact text shapes the fast decoder accepts: the server's compact update frames of the
 * hot channels, written as regular expressions built from the field lists below. The
 * expressions check the whole frame in one native pass: the envelope keys in the documented
 * order, the record keys in their schema order (exactly those, each once), Uint64 values as
 * 1 to 20 digits, booleans, `null` BBO sides, no whitespace, no escapes, nothing after the
 * closing brace. The one check a pattern cannot make (20-digit values above 2^64 - 1) is left
 * to the reader. @internal
 */
import { Bbo, OrderBook, PriceLevel } from './records/book';
import { Trade } from './records/trade';

export type FieldKind = 'uint64' | 'boolean';
export type FieldList = readonly (readonly [key: string, kind: FieldKind])[];

/** `PriceLevel` fields, in the order of the schema (and of the server's text). */
export const LEVEL_FIELDS = [
  ['price_ticks', 'uint64'],
  ['size_base_lots', 'uint64'],
] as const satisfies FieldList;

/** `Trade` fields, in the order of the schema. */
export const TRADE_FIELDS = [
  ['timestamp_ns', 'uint64'],
  ['sequence', 'uint64'],
  ['price_ticks', 'uint64'],
  ['size_base_lots', 'uint64'],
  ['quote_notional_lots', 'uint64'],
  ['taker_is_bid', 'boolean'],
] as const satisfies FieldList;

/** Keys of the `data` objects, in schema order. */
export const BOOK_KEYS = ['bids', 'asks'] as const;
export const BBO_KEYS = ['bid', 'ask'] as const;
export const TRADES_KEYS = ['trades'] as const;

/** The schemas the lists above mirror (a test checks they agree). */
export const MIRRORED_SCHEMAS = { PriceLevel, Trade, OrderBook, Bbo } as const;

/** The constant head of every update frame, up to the subscription id's first character. */
export const UPDATE_HEAD = '{"type":"update","subscription_id":"';

const UINT64 = '"\\d{1,20}"';
const BOOLEAN = '(?:true|false)';
// JSON strings may hold any character but `"`, `\` (escapes go to the fallback) and controls.
const PLAIN_STRING = '"[^"\\\\\\x00-\\x1f]*"';

function recordPattern(fields: FieldList): string {
  return '\\{' + fields.map(([key, kind]) => `"${key}":${kind === 'uint64' ? UINT64 : BOOLEAN}`).join(',') + '\\}';
}
const arrayOf = (item: string) => `\\[(?:${item}(?:,${item})*)?\\]`;
const envelope = (channel: string) => `^\\{"type":"update","subscription_id":${PLAIN_STRING},"channel":"${channel}","seq":${UINT64},"timestamp_ns":${UINT64},"data":`;

const LEVEL = recordPattern(LEVEL_FIELDS);
const TRADE = recordPattern(TRADE_FIELDS);

/** Pattern source of a Uint64 value (its quotes included), for patterns built elsewhere. */
export const UINT64_SOURCE = UINT64;
/** Pattern source of an `OrderBook` (a `book` update's `data`, also the `data` of an `orderBook` answer). */
export const BOOK_DATA_SOURCE = `\\{"${BOOK_KEYS[0]}":${arrayOf(LEVEL)},"${BOOK_KEYS[1]}":${arrayOf(LEVEL)}\\}`;

/** Whole-frame patterns of the hot channels. Linear: every alternative starts differently. */
export const HOT_FRAME_PATTERNS = {
  book: new RegExp(`${envelope('book')}${BOOK_DATA_SOURCE}\\}$`),
  bbo: new RegExp(`${envelope('bbo')}\\{"${BBO_KEYS[0]}":(?:null|${LEVEL}),"${BBO_KEYS[1]}":(?:null|${LEVEL})\\}\\}$`),
  trades: new RegExp(`${envelope('trades')}\\{"${TRADES_KEYS[0]}":${arrayOf(TRADE)}\\}\\}$`),
} as const;

/**
 * Text lengths the reader skips over: from the character that precedes a field (`{` or `,`)
 * to the first character of its value, the opening quote included for strings.
 */
export function fieldSkips(fields: FieldList): number[] {
  return fields.map(([key, kind]) => 1 + key.length + 3 + (kind === 'uint64' ? 1 : 0));
}
