/**
 * The compact text of the hot update frames (`book`, `bbo`, `trades`), defined once: the
 * envelope's key order (streaming-protocol.md section 3), each record's field order (the
 * order of its schema), the keys of each `data` object, and the constant tokens between the
 * values that follow from them. The server-frame writer (serverFrameWriter.ts) writes texts
 * from these lists; the fast decoder (fastDecodeShapes.ts, fastDecodeRecords.ts) accepts
 * exactly the texts they describe. Change an order here and both sides follow. @internal
 */
import { Bbo, OrderBook, PriceLevel } from './records/book';
import { Trade } from './records/trade';

/** The channels whose updates are written and read in the compact form below. */
export const HOT_CHANNELS = ['book', 'bbo', 'trades'] as const;
export type HotChannel = (typeof HOT_CHANNELS)[number];

export type FieldKind = 'uint64' | 'boolean';
export type FieldList = readonly (readonly [key: string, kind: FieldKind])[];

/** Keys of an update frame, in the documented order. */
export const UPDATE_KEYS = ['type', 'subscription_id', 'channel', 'seq', 'timestamp_ns', 'data'] as const;

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

// ---- the tokens ----------------------------------------------------------------

const [TYPE_KEY, SUBSCRIPTION_ID_KEY, CHANNEL_KEY, SEQ_KEY, TIMESTAMP_KEY, DATA_KEY] = UPDATE_KEYS;

/** The constant head of every update frame, up to the subscription id's first character. */
export const UPDATE_HEAD = `{"${TYPE_KEY}":"update","${SUBSCRIPTION_ID_KEY}":"`;

/**
 * The envelope from the subscription id's closing quote to the first digit of `seq`, for a
 * channel whose name needs no escape (every channel of the protocol).
 *
 * @example
 * channelToken('bbo') // => '","channel":"bbo","seq":"'
 */
export function channelToken(channel: string): string {
  return `","${CHANNEL_KEY}":"${channel}","${SEQ_KEY}":"`;
}

/** Where a channel's name starts in its {@link channelToken} (from the subscription id's closing quote). */
export const CHANNEL_NAME_AT = channelToken('').length - `","${SEQ_KEY}":"`.length;

/** {@link channelToken} of each hot channel. */
export const CHANNEL_TOKENS = { book: channelToken('book'), bbo: channelToken('bbo'), trades: channelToken('trades') } as const satisfies Record<HotChannel, string>;
/** From `seq`'s last digit to `timestamp_ns`'s first. */
export const TIMESTAMP_TOKEN = `","${TIMESTAMP_KEY}":"`;
/** From `timestamp_ns`'s last digit to the first character of `data`. */
export const DATA_TOKEN = `","${DATA_KEY}":`;
/** After `data`: the end of the frame. */
export const UPDATE_CLOSE = '}';

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
