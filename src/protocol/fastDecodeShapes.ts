/**
 * The exact text shapes the fast decoder accepts: the server's compact update frames of the
 * hot channels (and the `orderBook` answer), built from the field lists below in two forms:
 *
 * - regular expressions that check a whole text in one native pass (the envelope keys in the
 *   documented order, the record keys in their schema order, exactly those, each once; Uint64
 *   values as 1 to 20 digits, booleans, `null` BBO sides, no whitespace, no escapes, nothing
 *   after the closing brace). The cheapest check there is, but a pattern's backtracking stack
 *   grows with every level or trade it repeats over, and V8 throws a `RangeError` from about
 *   855k levels: so they only ever see texts up to {@link PATTERN_TEXT_LIMIT};
 * - the constant tokens between the values, which the readers (fastDecodeRecords.ts) check
 *   one by one on longer texts (linear time, constant stack, any size).
 *
 * Both describe the same texts (the tests run the fast path both ways). The one check a
 * pattern cannot make (20-digit values above 2^64 - 1) is the readers'. @internal
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

/**
 * The longest text the patterns are tried on; longer ones are checked token by token. At
 * least 41 characters per repetition (a level with one-digit values and its comma), so at
 * most ~25k repetitions: over 30 times below where V8's backtracking stack overflows, and
 * far above any feed frame or 500-level snapshot (~46 KB). Below it, one native pattern test
 * is cheaper than the token checks; above it the difference is lost in the size.
 */
export const PATTERN_TEXT_LIMIT = 1 << 20;

// ---- the patterns ------------------------------------------------------------

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

// An `OrderBook`: a `book` update's `data`, also the `data` of an `orderBook` answer.
const BOOK_DATA = `\\{"${BOOK_KEYS[0]}":${arrayOf(LEVEL)},"${BOOK_KEYS[1]}":${arrayOf(LEVEL)}\\}`;

/** Whole-frame patterns of the hot channels, for texts up to {@link PATTERN_TEXT_LIMIT}. Linear: every alternative starts differently. */
export const HOT_FRAME_PATTERNS = {
  book: new RegExp(`${envelope('book')}${BOOK_DATA}\\}$`),
  bbo: new RegExp(`${envelope('bbo')}\\{"${BBO_KEYS[0]}":(?:null|${LEVEL}),"${BBO_KEYS[1]}":(?:null|${LEVEL})\\}\\}$`),
  trades: new RegExp(`${envelope('trades')}\\{"${TRADES_KEYS[0]}":${arrayOf(TRADE)}\\}\\}$`),
} as const;

/** The whole `orderBook` answer, either order of the two envelope scalars, for texts up to {@link PATTERN_TEXT_LIMIT}. Linear: the alternatives start differently. */
export const ORDER_BOOK_RESPONSE_PATTERN = new RegExp(
  `^\\{"data":${BOOK_DATA}(?:,"sequence":${UINT64},"timestamp_ns":${UINT64}|,"timestamp_ns":${UINT64},"sequence":${UINT64})\\}$`,
);

// ---- the tokens ----------------------------------------------------------------

/**
 * The constant text around the values of a record in the compact form, one entry per value
 * plus the closing one: `tokens[i]` runs from the end of value i - 1 (or the record's start)
 * to the first character of value i, the quotes of Uint64 values included (their reader
 * takes digits only); the last one closes the record.
 *
 * @example
 * recordTokens(LEVEL_FIELDS) // => ['{"price_ticks":"', '","size_base_lots":"', '"}']
 */
export function recordTokens(fields: FieldList): string[] {
  const quote = (i: number) => (fields[i]?.[1] === 'uint64' ? '"' : '');
  return [...fields.map(([key], i) => `${quote(i - 1)}${i === 0 ? '{' : ','}"${key}":${quote(i)}`), `${quote(fields.length - 1)}}`];
}

/** The text between a `data` object's values (arrays: their brackets included), per data kind. */
export const BOOK_TOKENS = [`{"${BOOK_KEYS[0]}":[`, `],"${BOOK_KEYS[1]}":[`, ']}'] as const;
export const BBO_TOKENS = [`{"${BBO_KEYS[0]}":`, `,"${BBO_KEYS[1]}":`, '}'] as const;
export const TRADES_TOKENS = [`{"${TRADES_KEYS[0]}":[`, ']}'] as const;

/**
 * An update's envelope after the subscription id, per hot channel: from the id's closing
 * quote to the first digit of `seq`; then from `seq`'s last digit to `timestamp_ns`'s first,
 * and from there to `data`.
 */
export const CHANNEL_TOKENS = { book: '","channel":"book","seq":"', bbo: '","channel":"bbo","seq":"', trades: '","channel":"trades","seq":"' } as const;
export const TIMESTAMP_TOKEN = '","timestamp_ns":"';
export const DATA_TOKEN = '","data":';

/**
 * The `orderBook` answer around its values: `{"data":` before the book; after it, the tokens
 * up to the first scalar's first digit, to the second's, and the end, with `sequence` first
 * or with `timestamp_ns` first.
 */
export const ORDER_BOOK_RESPONSE_TOKENS = {
  open: '{"data":',
  sequenceFirst: [',"sequence":"', '","timestamp_ns":"', '"}'],
  timestampFirst: [',"timestamp_ns":"', '","sequence":"', '"}'],
} as const;
