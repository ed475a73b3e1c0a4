/**
 * A `book` update frame read where a recording keeps it: inside its entry's JSON string
 * (`["m",at,socket,"{\"type\":\"update\",...}"]`), without unescaping it first. Accepts
 * exactly the compact form the fast decoder accepts (the same tokens, fastDecodeShapes.ts,
 * each quote written `\"`; Uint64 values of 1 to 20 digits up to 2^64 - 1; no side listing a
 * price twice) and gives the same values; anything else is `undefined`, and the caller takes
 * the general path (the string unescaped, then the fast decoder or the schema). A full-speed
 * replay spends most of its decoding on unescaping and the whole-text pattern; this reads
 * each value once. @internal
 */
import { BOOK_TOKENS, CHANNEL_TOKENS, DATA_TOKEN, LEVEL_FIELDS, recordTokens, TIMESTAMP_TOKEN, UPDATE_HEAD } from '../protocol/fastDecodeShapes';
import { UPDATE_CLOSE } from '../protocol/hotFrameLayout';
import type { OrderBook, PriceLevel } from '../protocol/records/book';
import { literal, PLAIN_STRING_BODY, UINT64_DIGITS } from '../protocol/patternParts';
import { hasRepeatedPrice } from '../protocol/repeatedPrice';

/** A book update read from its recorded entry. */
export interface RecordedBookUpdate {
  readonly subscriptionId: string;
  /** Digits, as on the wire. */
  readonly seq: string;
  readonly timestampNs: string;
  readonly data: OrderBook;
  /** Length of the frame's text (unescaped). */
  readonly size: number;
}

const DIGIT_0 = 48;
const DIGIT_9 = 57;
const COMMA = 44;
const BACKSLASH = 92;
const RBRACKET = 93;
const UINT64_MAX_TEXT = '18446744073709551615';

/** A token as it is written inside a JSON string. */
const escaped = (token: string): string => JSON.stringify(token).slice(1, -1);

const HEAD = escaped(UPDATE_HEAD);
const CHANNEL = escaped(CHANNEL_TOKENS.book);
const TIMESTAMP = escaped(TIMESTAMP_TOKEN);
const [BOOK_OPEN, BOOK_ASKS, BOOK_CLOSE] = BOOK_TOKENS.map(escaped) as [string, string, string];
// Tokens that always follow each other, compared at once.
const DATA_BIDS = escaped(DATA_TOKEN) + BOOK_OPEN;
const [LEVEL_OPEN, LEVEL_MID, LEVEL_CLOSE] = recordTokens(LEVEL_FIELDS).map(escaped) as [string, string, string];
const CLOSE = BOOK_CLOSE + escaped(UPDATE_CLOSE);
const LEVEL = `${literal(LEVEL_OPEN)}${UINT64_DIGITS}${literal(LEVEL_MID)}${UINT64_DIGITS}${literal(LEVEL_CLOSE)}`;
/**
 * The whole escaped frame in one native pass (sticky: tried at the literal's start; its end
 * is checked after): then the readers skip each token by its length and look for values'
 * ends only (comparing a dozen tokens one by one costs more). The subscription id: no
 * backslash (so no escape), no quote, no control character.
 */
const LEVELS = `(?:${LEVEL}(?:,${LEVEL})*)?`;
const FRAME = new RegExp(`${literal(HEAD)}${PLAIN_STRING_BODY}${literal(CHANNEL)}${UINT64_DIGITS}${literal(TIMESTAMP)}${UINT64_DIGITS}${literal(DATA_BIDS)}${LEVELS}${literal(BOOK_ASKS)}${LEVELS}${literal(CLOSE)}`, 'y');
/** Backslashes of the tokens every frame has, and of each level's. */
const FIXED_ESCAPES = [HEAD, CHANNEL, TIMESTAMP, DATA_BIDS, BOOK_ASKS, CLOSE].reduce((n, t) => n + backslashes(t), 0);
const LEVEL_ESCAPES = backslashes(LEVEL_OPEN) + backslashes(LEVEL_MID) + backslashes(LEVEL_CLOSE);

function backslashes(token: string): number {
  let n = 0;
  for (let i = 0; i < token.length; i++) if (token.charCodeAt(i) === BACKSLASH) n++;
  return n;
}

// A cursor over one line (synchronous: calls never interleave).
let text = '';
let pos = 0;
let levels = 0;

/**
 * The book update whose escaped text is `line[start..end)` (the inside of the entry's string
 * literal); undefined when it is not exactly the compact form of one, or holds a value the
 * schema rejects. Never throws.
 */
export function readRecordedBookUpdate(line: string, start: number, end: number): RecordedBookUpdate | undefined {
  FRAME.lastIndex = start;
  if (!FRAME.test(line) || FRAME.lastIndex !== end) return undefined;
  text = line;
  pos = start;
  levels = 0;
  try {
    return read(start, end);
  } finally {
    text = '';
  }
}

/** Reads the values of a frame the pattern matched: each token skipped by its length. */
function read(start: number, end: number): RecordedBookUpdate | undefined {
  pos += HEAD.length;
  const subscriptionId = readPlainString();
  pos += CHANNEL.length;
  const seq = readUint64();
  pos += TIMESTAMP.length;
  const timestampNs = readUint64();
  if (seq === undefined || timestampNs === undefined) return undefined;
  pos += DATA_BIDS.length;
  const bids = readLevels();
  if (bids === undefined) return undefined;
  pos += BOOK_ASKS.length;
  const asks = readLevels();
  if (asks === undefined) return undefined;
  pos += CLOSE.length;
  if (pos !== end) return undefined;
  return { subscriptionId, seq, timestampNs, data: { bids, asks }, size: end - start - FIXED_ESCAPES - levels * LEVEL_ESCAPES };
}

/** The subscription id: up to the backslash of the quote that closes it (the pattern saw none in it). */
function readPlainString(): string {
  const start = pos;
  pos = text.indexOf('\\', start);
  return text.slice(start, pos);
}

/** The digits at the cursor (1 to 20: the pattern saw them), at most 2^64 - 1; `priceValue` gets their value as a double. */
let priceValue = 0;
function readUint64(): string | undefined {
  const t = text;
  const start = pos;
  let end = start;
  let v = 0;
  for (let c = t.charCodeAt(end); c >= DIGIT_0 && c <= DIGIT_9; c = t.charCodeAt(++end)) v = v * 10 + (c - DIGIT_0);
  const n = end - start;
  pos = end;
  priceValue = v;
  const s = t.slice(start, end);
  return n === 20 && s > UINT64_MAX_TEXT ? undefined : s;
}

/** The levels of a side (cursor after its `[`); undefined when one is not a level or a price is listed twice. */
function readLevels(): PriceLevel[] | undefined {
  const out: PriceLevel[] = [];
  if (text.charCodeAt(pos) === RBRACKET) return out;
  let prev = 0;
  let order = 0;
  let distinct = true;
  for (;;) {
    pos += LEVEL_OPEN.length;
    const price = readUint64();
    const v = priceValue;
    pos += LEVEL_MID.length;
    const size = readUint64();
    pos += LEVEL_CLOSE.length;
    if (price === undefined || size === undefined) return undefined;
    if (out.length > 0) {
      // Strictly monotonic doubles: no price twice; otherwise the exact check decides.
      const dir = v > prev ? 1 : v < prev ? -1 : 0;
      if (dir === 0 || dir === -order) distinct = false;
      order = dir;
    }
    prev = v;
    out.push({ price_ticks: price, size_base_lots: size });
    levels++;
    if (text.charCodeAt(pos) !== COMMA) break;
    pos++;
  }
  return distinct || !hasRepeatedPrice(out) ? out : undefined;
}
