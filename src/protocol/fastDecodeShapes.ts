/**
 * The exact text shapes the fast decoder accepts: the server's compact update frames of the
 * hot channels (and the `orderBook` answer), built in two forms from the key orders and
 * tokens of hotFrameLayout.ts, the ones the server-frame writer writes with:
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
 * Both describe the same texts (the tests run the fast path both ways). The checks a
 * pattern cannot make (20-digit values above 2^64 - 1, a book side listing a price twice)
 * are the readers'. @internal
 */
import {
  BBO_KEYS,
  BOOK_KEYS,
  CHANNEL_TOKENS,
  DATA_TOKEN,
  LEVEL_FIELDS,
  TIMESTAMP_TOKEN,
  TRADE_FIELDS,
  TRADES_KEYS,
  UPDATE_CLOSE,
  UPDATE_HEAD,
  type FieldList,
  type HotChannel,
} from './hotFrameLayout';
import { arrayOf, BOOLEAN, envelopePattern, literal, UINT64 } from './patternParts';

// The lists and tokens are the writer's (hotFrameLayout.ts); the readers take them from here.
export {
  BBO_KEYS,
  BBO_TOKENS,
  BOOK_KEYS,
  BOOK_TOKENS,
  CHANNEL_TOKENS,
  DATA_TOKEN,
  LEVEL_FIELDS,
  MIRRORED_SCHEMAS,
  recordTokens,
  TIMESTAMP_TOKEN,
  TRADE_FIELDS,
  TRADES_KEYS,
  TRADES_TOKENS,
  UPDATE_HEAD,
  type FieldKind,
  type FieldList,
} from './hotFrameLayout';

/**
 * The longest text the patterns are tried on; longer ones are checked token by token. At
 * least 41 characters per repetition (a level with one-digit values and its comma), so at
 * most ~25k repetitions: over 30 times below where V8's backtracking stack overflows, and
 * far above any feed frame or 500-level snapshot (~46 KB). Below it, one native pattern test
 * is cheaper than the token checks; above it the difference is lost in the size.
 */
export const PATTERN_TEXT_LIMIT = 1 << 20;

// ---- the patterns ------------------------------------------------------------


function recordPattern(fields: FieldList): string {
  return '\\{' + fields.map(([key, kind]) => `"${key}":${kind === 'uint64' ? UINT64 : BOOLEAN}`).join(',') + '\\}';
}
const envelope = (channel: HotChannel) => envelopePattern(CHANNEL_TOKENS[channel]);

const LEVEL = recordPattern(LEVEL_FIELDS);
const TRADE = recordPattern(TRADE_FIELDS);

// An `OrderBook`: a `book` update's `data`, also the `data` of an `orderBook` answer.
const BOOK_DATA = `\\{"${BOOK_KEYS[0]}":${arrayOf(LEVEL)},"${BOOK_KEYS[1]}":${arrayOf(LEVEL)}\\}`;

/** Whole-frame patterns of the hot channels, for texts up to {@link PATTERN_TEXT_LIMIT}. Linear: every alternative starts differently. */
export const HOT_FRAME_PATTERNS = {
  book: new RegExp(`${envelope('book')}${BOOK_DATA}${literal(UPDATE_CLOSE)}$`),
  bbo: new RegExp(`${envelope('bbo')}\\{"${BBO_KEYS[0]}":(?:null|${LEVEL}),"${BBO_KEYS[1]}":(?:null|${LEVEL})\\}${literal(UPDATE_CLOSE)}$`),
  trades: new RegExp(`${envelope('trades')}\\{"${TRADES_KEYS[0]}":${arrayOf(TRADE)}\\}${literal(UPDATE_CLOSE)}$`),
} as const;

/** The whole `orderBook` answer, either order of the two envelope scalars, for texts up to {@link PATTERN_TEXT_LIMIT}. Linear: the alternatives start differently. */
export const ORDER_BOOK_RESPONSE_PATTERN = new RegExp(
  `^\\{"data":${BOOK_DATA}(?:,"sequence":${UINT64},"timestamp_ns":${UINT64}|,"timestamp_ns":${UINT64},"sequence":${UINT64})\\}$`,
);

// ---- the tokens (the `orderBook` answer; the feed's are hotFrameLayout.ts') ---------

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
