/**
 * The text of the server frames (streaming-protocol.md section 3), the one writer of them:
 * the simulator's feed sends what it returns, and the client's fast decoder (fastDecode.ts)
 * reads the update frames exactly as written here, because both follow the key orders and
 * tokens of hotFrameLayout.ts (`book`, `bbo`, `trades`) and the field lists of
 * feedRecordLayout.ts (every other channel). A test checks that the fast path takes every
 * frame this writes.
 *
 * Updates are written in two parts so a stream event is serialized once whatever the number
 * of subscribers: its `data` ({@link writeUpdateData}) and, per subscription, a constant head
 * ({@link updateFramePrefix}) joined to them with the frame's `seq` and `timestamp_ns`
 * ({@link writeUpdateFrame}). {@link writeServerFrame} writes any one frame whole.
 *
 * What is written is what it is given: a frame valid for the protocol (Uint64 values as
 * decimal digit strings, an update's `data` valid for its channel's schema) is written in the
 * compact form; the writer does not check it.
 */
import { CHANNEL_DATA_LAYOUTS, isLayoutChannel } from './feedRecordLayout';
import type { ServerFrame } from './frames';
import {
  BBO_KEYS,
  BBO_TOKENS,
  BOOK_KEYS,
  BOOK_TOKENS,
  channelToken,
  DATA_TOKEN,
  LEVEL_FIELDS,
  recordTokens,
  TIMESTAMP_TOKEN,
  TRADE_FIELDS,
  TRADES_KEYS,
  TRADES_TOKENS,
  UPDATE_CLOSE,
  UPDATE_HEAD,
  type HotChannel,
} from './hotFrameLayout';
import { writeLayoutValue } from './layoutWriter';
import type { Bbo, OrderBook, PriceLevel } from './records/book';
import type { Trade } from './records/trade';

/** The `data` of an update of each hot channel. */
export interface HotUpdateData {
  book: OrderBook;
  bbo: Bbo;
  trades: { trades: Trade[] };
}

// Keys and tokens, in the layout's order: slot i of a record holds the value of field i.
const [[LEVEL_0], [LEVEL_1]] = LEVEL_FIELDS;
const [LEVEL_OPEN, LEVEL_MID, LEVEL_CLOSE] = recordTokens(LEVEL_FIELDS) as [string, string, string];
const [[TRADE_0], [TRADE_1], [TRADE_2], [TRADE_3], [TRADE_4], [TRADE_5]] = TRADE_FIELDS;
const [TRADE_T0, TRADE_T1, TRADE_T2, TRADE_T3, TRADE_T4, TRADE_T5, TRADE_CLOSE] = recordTokens(TRADE_FIELDS) as [string, string, string, string, string, string, string];
const [BOOK_0, BOOK_1] = BOOK_KEYS;
const [BOOK_OPEN, BOOK_MID, BOOK_CLOSE] = BOOK_TOKENS;
const [BBO_0, BBO_1] = BBO_KEYS;
const [BBO_OPEN, BBO_MID, BBO_CLOSE] = BBO_TOKENS;
const [TRADES_0] = TRADES_KEYS;
const [TRADES_OPEN, TRADES_CLOSE] = TRADES_TOKENS;

/** The content of a JSON string (without its quotes). */
const stringBody = (s: string): string => JSON.stringify(s).slice(1, -1);

/**
 * The constant head of a subscription's update frames, up to the first digit of `seq`.
 * Computed once per subscription.
 *
 * @example
 * updateFramePrefix('7', 'bbo') // => '{"type":"update","subscription_id":"7","channel":"bbo","seq":"'
 */
export function updateFramePrefix(subscriptionId: string, channel: string): string {
  return UPDATE_HEAD + stringBody(subscriptionId) + channelToken(stringBody(channel));
}

/**
 * One update frame: `prefix` from {@link updateFramePrefix}, `dataJson` from
 * {@link writeUpdateData} (of the same channel).
 */
export function writeUpdateFrame(prefix: string, seq: bigint | string, timestampNs: bigint | string, dataJson: string): string {
  return prefix + seq + TIMESTAMP_TOKEN + timestampNs + DATA_TOKEN + dataJson + UPDATE_CLOSE;
}

/**
 * The text of an update's `data`: the compact form of hotFrameLayout.ts for a hot channel,
 * of feedRecordLayout.ts for the other channels of the protocol (record keys in schema
 * order), `JSON.stringify` for an unknown channel. `data` must be valid for the channel's schema.
 */
export function writeUpdateData(channel: string, data: unknown): string {
  switch (channel) {
    case 'book':
      return writeBookData(data as OrderBook);
    case 'bbo':
      return writeBboData(data as Bbo);
    case 'trades':
      return writeTradesData(data as HotUpdateData['trades']);
    default:
      return isLayoutChannel(channel) ? writeLayoutValue(CHANNEL_DATA_LAYOUTS[channel], data) : JSON.stringify(data);
  }
}

/** {@link writeUpdateData} of a hot channel, typed. */
export function writeHotData<C extends HotChannel>(channel: C, data: HotUpdateData[C]): string {
  return writeUpdateData(channel, data);
}

/** Any one server frame, keys in the documented order. */
export function writeServerFrame(frame: ServerFrame): string {
  switch (frame.type) {
    case 'update':
      return writeUpdateFrame(updateFramePrefix(frame.subscription_id, frame.channel), frame.seq, frame.timestamp_ns, writeUpdateData(frame.channel, frame.data));
    case 'subscribed':
      return JSON.stringify({ type: frame.type, request_id: frame.request_id, subscription_id: frame.subscription_id, channel: frame.channel });
    case 'unsubscribed':
      return JSON.stringify({ type: frame.type, request_id: frame.request_id, subscription_id: frame.subscription_id });
    case 'pong':
      return JSON.stringify({ type: frame.type, request_id: frame.request_id, timestamp_ns: frame.timestamp_ns });
    case 'resync_required':
      return JSON.stringify({ type: frame.type, subscription_id: frame.subscription_id, channel: frame.channel, reason: frame.reason });
    case 'error':
      return JSON.stringify({ type: frame.type, request_id: frame.request_id, subscription_id: frame.subscription_id, code: frame.code, error: frame.error });
  }
}

// ---- the hot `data` writers --------------------------------------------------------

function writeLevel(level: PriceLevel): string {
  return LEVEL_OPEN + level[LEVEL_0] + LEVEL_MID + level[LEVEL_1] + LEVEL_CLOSE;
}

function writeLevels(levels: readonly PriceLevel[]): string {
  const n = levels.length;
  if (n === 0) return '';
  let s = writeLevel(levels[0]!);
  for (let i = 1; i < n; i++) s += ',' + writeLevel(levels[i]!);
  return s;
}

function writeBookData(data: OrderBook): string {
  return BOOK_OPEN + writeLevels(data[BOOK_0]) + BOOK_MID + writeLevels(data[BOOK_1]) + BOOK_CLOSE;
}

function writeBboSide(level: PriceLevel | null): string {
  return level === null ? 'null' : writeLevel(level);
}

function writeBboData(data: Bbo): string {
  return BBO_OPEN + writeBboSide(data[BBO_0]) + BBO_MID + writeBboSide(data[BBO_1]) + BBO_CLOSE;
}

function writeTrade(t: Trade): string {
  return TRADE_T0 + t[TRADE_0] + TRADE_T1 + t[TRADE_1] + TRADE_T2 + t[TRADE_2] + TRADE_T3 + t[TRADE_3] + TRADE_T4 + t[TRADE_4] + TRADE_T5 + t[TRADE_5] + TRADE_CLOSE;
}

function writeTradesData(data: HotUpdateData['trades']): string {
  const trades = data[TRADES_0];
  const n = trades.length;
  let s = TRADES_OPEN;
  if (n > 0) {
    s += writeTrade(trades[0]!);
    for (let i = 1; i < n; i++) s += ',' + writeTrade(trades[i]!);
  }
  return s + TRADES_CLOSE;
}
