/**
 * The fast path for the update frames of the layout channels (feedRecordLayout.ts: market
 * stats, candles, mark candles, funding rates and the account channels), in the compact form
 * the server writes them (serverFrameWriter.ts through layoutWriter.ts). One pass over the
 * text: each constant token compared where it must be, each value read and checked as its
 * schema checks it (Uint64 / Int64 bounds, integer ranges, enum members, base58 lengths),
 * objects built with the schema's key order. Anything else (another key order, whitespace,
 * escapes, a number not in its shortest integer form, an unknown or duplicated key, a value
 * the schema rejects) gives `undefined`: the schema path (`JSON.parse` + zod) then decides,
 * so both accept and reject the same texts with deep-equal values. Linear time; the stack
 * depth is the layout's, whatever the text. @internal
 */
import { isBase58OfByteLength } from './base58Length';
import { flatString } from './flatString';
import { ownSlice } from './ownSlice';
import { CHANNEL_DATA_LAYOUTS, LAYOUT_CHANNELS, type FieldLayout, type LayoutChannel, type ValueKind } from './feedRecordLayout';
import type { UpdateFrame } from './frames';
import { PATTERN_TEXT_LIMIT } from './fastDecodeShapes';
import * as layout from './hotFrameLayout';
import { LAYOUT_FRAME_PATTERNS } from './layoutPatterns';

/** An update of a layout channel, envelope and `data` both validated. */
export type LayoutUpdateFrame = UpdateFrame & { channel: LayoutChannel };

type Reader = () => unknown;

const DIGIT_0 = 48;
const DIGIT_9 = 57;
const MINUS = 45;
const QUOTE = 34;
const BACKSLASH = 92;
const SPACE = 32; // the first character that is not a control
const COMMA = 44;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const UINT64_MAX_TEXT = '18446744073709551615';
const INT64_MAX_TEXT = '9223372036854775807';
const INT64_MIN_DIGITS = '9223372036854775808';
/** Integer digits read as a number: 16 covers every safe integer (the bounds check the rest). */
const MAX_INT_DIGITS = 16;

// The envelope's tokens, flat (see flatString).
const UPDATE_HEAD = flatString(layout.UPDATE_HEAD);
const CHANNEL_OPEN = flatString(layout.channelToken('').slice(0, layout.CHANNEL_NAME_AT));
const SEQ_OPEN = flatString(layout.channelToken('').slice(layout.CHANNEL_NAME_AT));
const TIMESTAMP_TOKEN = flatString(layout.TIMESTAMP_TOKEN);
const DATA_TOKEN = flatString(layout.DATA_TOKEN);
const UPDATE_CLOSE = layout.UPDATE_CLOSE;

/** A cursor over one text (decoding is synchronous: calls never interleave). */
let text = '';
let pos = 0;
/**
 * The text matched its channel's whole-frame pattern (layoutPatterns.ts): the structure is
 * known, so the tokens of the envelope and of required keys are skipped by their length and
 * strings end at the next quote; values are still read and bounds-checked.
 */
let checked = false;

/**
 * Reads `frameText` when it is an update of a layout channel in the compact form and valid
 * in every respect; undefined otherwise (the caller falls back). Never throws.
 * `usePattern`: test the channel's whole-frame pattern first and, on a match, skip the
 * known tokens (texts up to PATTERN_TEXT_LIMIT); false reads token by token (the tests
 * check both ways agree).
 *
 * @example
 * scanLayoutUpdate('{"type":"update","subscription_id":"3","channel":"balances","seq":"1","timestamp_ns":"5","data":{"balances":[]}}')
 * // => { type: 'update', subscription_id: '3', channel: 'balances', seq: '1', timestamp_ns: '5', data: { balances: [] } }
 */
export function scanLayoutUpdate(frameText: string, usePattern = true): LayoutUpdateFrame | undefined {
  text = frameText;
  pos = 0;
  checked = false;
  let frame: LayoutUpdateFrame | undefined;
  try {
    frame = readUpdate(usePattern);
  } catch {
    // Nothing here throws; should anything ever, the schema path decides.
    frame = undefined;
  }
  text = '';
  checked = false;
  return frame;
}

function readUpdate(usePattern: boolean): LayoutUpdateFrame | undefined {
  if (!lit(UPDATE_HEAD)) return undefined;
  const subscriptionId = readStringBody();
  if (subscriptionId === undefined || !lit(CHANNEL_OPEN)) return undefined;
  const channel = readStringBody();
  const readData = channel === undefined ? undefined : DATA_READERS.get(channel);
  if (readData === undefined) return undefined;
  if (usePattern && text.length <= PATTERN_TEXT_LIMIT) checked = LAYOUT_FRAME_PATTERNS.get(channel!)?.test(text) === true;
  if (!lit(SEQ_OPEN)) return undefined;
  // The envelope's numbers are read once by the router and not kept: views into the text.
  const seq = readUint64Digits(false);
  if (seq === undefined || !lit(TIMESTAMP_TOKEN)) return undefined;
  const timestampNs = readUint64Digits(false);
  if (timestampNs === undefined || !lit(DATA_TOKEN)) return undefined;
  const data = readData();
  if (data === undefined || !lit(UPDATE_CLOSE) || pos !== text.length) return undefined;
  return { type: 'update', subscription_id: subscriptionId, channel: channel as LayoutChannel, seq, timestamp_ns: timestampNs, data };
}

/** Steps over `token` when it is at the cursor (in checked mode: over its length, unread). */
function lit(token: string): boolean {
  if (!checked && !startsAt(token, pos)) return false;
  pos += token.length;
  return true;
}

/**
 * `text.startsWith(token, at)`, as a loop: the builtin is a call V8 does not inline (with
 * its argument checks), and key tokens are compared a dozen times a record.
 */
function startsAt(token: string, at: number): boolean {
  const t = text;
  const n = token.length;
  if (at + n > t.length) return false;
  for (let i = 0; i < n; i++) if (t.charCodeAt(at + i) !== token.charCodeAt(i)) return false;
  return true;
}

/** Steps over the character `c` when it is at the cursor. */
function char(c: number): boolean {
  if (text.charCodeAt(pos) !== c) return false;
  pos++;
  return true;
}

/**
 * The content of a JSON string from the cursor (after its opening quote) to its closing
 * quote, which stays under the cursor; undefined when it holds an escape or a control
 * character (the fallback decides those) or is not closed.
 */
function readStringBody(): string | undefined {
  const t = text;
  const start = pos;
  let end = start;
  if (checked) {
    pos = end = t.indexOf('"', start);
    return ownSlice(t, start, end);
  }
  for (let c = t.charCodeAt(end); c !== QUOTE; c = t.charCodeAt(++end)) {
    // `!(c >= SPACE)` is also true at the end of the text (NaN).
    if (c === BACKSLASH || !(c >= SPACE)) return undefined;
  }
  pos = end;
  return ownSlice(t, start, end);
}

/** Digits from the cursor; returns where they end. */
function digitsEnd(from: number): number {
  const t = text;
  let end = from;
  for (let c = t.charCodeAt(end); c >= DIGIT_0 && c <= DIGIT_9; c = t.charCodeAt(++end));
  return end;
}

/** The digits of a Uint64 (1 to 20, at most 2^64 - 1), its quotes left to the caller. */
function readUint64Digits(own = true): string | undefined {
  const start = pos;
  // In checked mode the digits are known to run up to the closing quote.
  const end = checked ? text.indexOf('"', start) : digitsEnd(start);
  pos = end;
  const n = end - start;
  if (n === 0 || n > 20) return undefined;
  const s = own ? ownSlice(text, start, end) : text.slice(start, end);
  return n === 20 && s > UINT64_MAX_TEXT ? undefined : s;
}

function readUint64(): string | undefined {
  if (!char(QUOTE)) return undefined;
  const s = readUint64Digits();
  return s !== undefined && char(QUOTE) ? s : undefined;
}

/** An Int64 string: an optional minus, 1 to 19 digits, within [-2^63, 2^63 - 1]. */
function readInt64(): string | undefined {
  if (!char(QUOTE)) return undefined;
  const start = pos;
  const negative = text.charCodeAt(start) === MINUS;
  const digitsStart = negative ? start + 1 : start;
  const end = checked ? text.indexOf('"', digitsStart) : digitsEnd(digitsStart);
  const n = end - digitsStart;
  pos = end;
  if (n === 0 || n > 19 || !char(QUOTE)) return undefined;
  if (n === 19 && text.slice(digitsStart, end) > (negative ? INT64_MIN_DIGITS : INT64_MAX_TEXT)) return undefined;
  return ownSlice(text, start, end);
}

/**
 * A JSON number in its shortest integer form (no `-0`, no leading zero, fraction or
 * exponent: those go to the fallback), within `[min, max]`.
 */
function intReader(min: number, max: number): Reader {
  return () => {
    const start = pos;
    const negative = text.charCodeAt(start) === MINUS;
    const digitsStart = negative ? start + 1 : start;
    const end = digitsEnd(digitsStart);
    const n = end - digitsStart;
    if (n === 0 || n > MAX_INT_DIGITS) return undefined;
    if (text.charCodeAt(digitsStart) === DIGIT_0 && (n > 1 || negative)) return undefined;
    pos = end;
    const v = Number(text.slice(start, end));
    return v >= min && v <= max ? v : undefined;
  };
}

function readBoolean(): boolean | undefined {
  if (lit('true')) return true;
  return lit('false') ? false : undefined;
}

function stringReader(minLength: number): Reader {
  return () => {
    if (!char(QUOTE)) return undefined;
    const s = readStringBody();
    return s !== undefined && s.length >= minLength && char(QUOTE) ? s : undefined;
  };
}

function enumReader(values: readonly string[]): Reader {
  const members: ReadonlySet<string> = new Set(values);
  return () => {
    if (!char(QUOTE)) return undefined;
    const s = readStringBody();
    // In checked mode the pattern allowed members only.
    return s !== undefined && (checked || members.has(s)) && char(QUOTE) ? s : undefined;
  };
}

function base58Reader(bytes: number): Reader {
  return () => {
    if (!char(QUOTE)) return undefined;
    const s = readStringBody();
    return s !== undefined && char(QUOTE) && isBase58OfByteLength(s, bytes) ? s : undefined;
  };
}

function arrayReader(readItem: Reader): Reader {
  return () => {
    if (!char(LBRACKET)) return undefined;
    const out: unknown[] = [];
    if (char(RBRACKET)) return out;
    for (;;) {
      const item = readItem();
      if (item === undefined) return undefined;
      out.push(item);
      if (char(RBRACKET)) return out;
      if (!char(COMMA)) return undefined;
    }
  };
}

/**
 * A record: its keys in the layout's order, each once, optional ones possibly absent, no
 * other key. The object is built in that order, as zod builds it.
 */
function recordReader(fields: FieldLayout): Reader {
  const keys = fields.map((f) => f.key);
  const keyTokens = fields.map((f) => flatString(`"${f.key}":`));
  const optional = fields.map((f) => f.optional);
  const readers = fields.map((f) => compile(f.kind));
  const n = fields.length;
  return () => {
    if (!char(LBRACE)) return undefined;
    const out: Record<string, unknown> = {};
    let first = true;
    for (let i = 0; i < n; i++) {
      let at = pos;
      if (!first) {
        if (text.charCodeAt(at) !== COMMA) {
          if (optional[i]) continue;
          return undefined;
        }
        at++;
      }
      const token = keyTokens[i]!;
      // A required key's token is known to be there in checked mode; an optional one's presence is read.
      if ((!checked || optional[i]) && !startsAt(token, at)) {
        if (optional[i]) continue;
        return undefined;
      }
      pos = at + token.length;
      const v = readers[i]!();
      if (v === undefined) return undefined;
      out[keys[i]!] = v;
      first = false;
    }
    return char(RBRACE) ? out : undefined;
  };
}

/** The reader of a value of `kind` (cursor on its first character, left after its last). */
function compile(kind: ValueKind): Reader {
  switch (kind.t) {
    case 'uint64':
      return readUint64;
    case 'int64':
      return readInt64;
    case 'int':
      return intReader(kind.min, kind.max);
    case 'boolean':
      return readBoolean;
    case 'enum':
      return enumReader(kind.values);
    case 'string':
      return stringReader(kind.minLength);
    case 'base58':
      return base58Reader(kind.bytes);
    case 'array':
      return arrayReader(compile(kind.of));
    case 'object':
      return recordReader(kind.fields);
  }
}

/** The `data` reader of each layout channel, compiled once. */
const DATA_READERS: ReadonlyMap<string, Reader> = new Map(LAYOUT_CHANNELS.map((c) => [c, compile(CHANNEL_DATA_LAYOUTS[c])]));
