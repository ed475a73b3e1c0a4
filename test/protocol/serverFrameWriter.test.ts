/**
 * The server-frame writer and the client's decoders agree: every hot update frame the writer
 * writes is read back, whole and equal, by the fast path (one pattern test, and token by token
 * as for texts beyond PATTERN_TEXT_LIMIT), and every other frame by the schema path, keys in
 * the order of the schemas. Both sides take the key order from hotFrameLayout.ts.
 */
import fc from 'fast-check';
import {
  ErrorFrame,
  PongFrame,
  ResyncRequiredFrame,
  SubscribedFrame,
  UnsubscribedFrame,
  UpdateFrame,
  UINT64_MAX,
  type Bbo,
  type OrderBook,
  type PriceLevel,
  type ServerFrame,
  type Trade,
} from '../../src/protocol';
import { decodeServerFrame } from '../../src/protocol/decode';
import { decodeAndValidate, decodeAndValidateWithSchemas, fastDecodeServerFrame, scanHotUpdate, type HotUpdateFrame } from '../../src/protocol/fastDecode';
import { readHotUpdate } from '../../src/protocol/fastDecodeRecords';
import { PATTERN_TEXT_LIMIT } from '../../src/protocol/fastDecodeShapes';
import { CHANNEL_TOKENS, channelToken, HOT_CHANNELS, LEVEL_FIELDS, TRADE_FIELDS, UPDATE_HEAD, UPDATE_KEYS } from '../../src/protocol/hotFrameLayout';
import { updateFramePrefix, writeHotData, writeServerFrame, writeUpdateData, writeUpdateFrame } from '../../src/protocol/serverFrameWriter';

const SEED = 20250611;
const MAX = UINT64_MAX.toString();

// ---- generators ------------------------------------------------------------

/** Uint64 values as the protocol writes them, weighted towards the boundaries (2^64 - 1 included). */
const uint64 = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: UINT64_MAX }).map(String) },
  { weight: 2, arbitrary: fc.nat().map(String) },
  { weight: 3, arbitrary: fc.constantFrom('0', '1', MAX, '18446744073709551614', '9007199254740991', '9007199254740993', '10000000000000000000') },
);
const level: fc.Arbitrary<PriceLevel> = fc.record({ price_ticks: uint64, size_base_lots: uint64 });
/** A side of a book: each price at most once (a repeat makes the frame invalid). */
const levels = fc.uniqueArray(level, { maxLength: 5, selector: (l) => BigInt(l.price_ticks) });
const trade: fc.Arbitrary<Trade> = fc.record({ timestamp_ns: uint64, sequence: uint64, price_ticks: uint64, size_base_lots: uint64, quote_notional_lots: uint64, taker_is_bid: fc.boolean() });
/** Ids the fast path reads as they are: no character JSON escapes. */
const plainId = fc.oneof(fc.nat().map(String), fc.string({ unit: 'grapheme', maxLength: 8 }).filter((s) => JSON.stringify(s) === `"${s}"`));
/** Any id: quotes, backslashes, controls, lone surrogates. */
const anyId = fc.string({ unit: 'binary', maxLength: 8 });

const hotData = fc.oneof(
  fc.record({ bids: levels, asks: levels }).map((data) => ({ channel: 'book' as const, data })),
  fc.record({ bid: fc.option(level, { nil: null }), ask: fc.option(level, { nil: null }) }).map((data) => ({ channel: 'bbo' as const, data })),
  fc.record({ trades: fc.array(trade, { maxLength: 4 }) }).map((data) => ({ channel: 'trades' as const, data })),
);

const hotFrame = (id: fc.Arbitrary<string>): fc.Arbitrary<HotUpdateFrame> =>
  fc.record({ sub: id, seq: uint64, ts: uint64, cd: hotData }).map(
    ({ sub, seq, ts, cd }) => ({ type: 'update', subscription_id: sub, channel: cd.channel, seq, timestamp_ns: ts, data: cd.data }) as HotUpdateFrame,
  );

/** The same object with every object's keys in reverse order (the writer must not care). */
function reversedKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(reversedKeys) as T;
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversedKeys(x)])) as T;
}

// ---- tests ---------------------------------------------------------------------

describe('writeServerFrame: hot update frames', () => {
  it('writes every hot update frame so that the fast path decodes it to the same frame', () => {
    const seen = { book: 0, bbo: 0, trades: 0, nullSide: 0, emptyList: 0, max: 0 };
    fc.assert(
      fc.property(hotFrame(plainId), (frame) => {
        const text = writeServerFrame(frame);
        // The fast path took it (scanHotUpdate is the fast path alone; it never falls back)...
        expect(scanHotUpdate(text)).toEqual(frame);
        // ...and so did the decoder the router calls: `dataValidated` is true only on the fast path.
        expect(fastDecodeServerFrame(text)).toEqual({ ok: true, frame, dataValidated: true });
        expect(decodeAndValidate(text)).toEqual({ ok: true, frame, data: frame.data, dataValidated: true });
        // The token reader (texts beyond PATTERN_TEXT_LIMIT) reads it too, checking every token.
        expect(readHotUpdate(text, false)).toEqual(frame);
        // The schema path agrees, strict.
        expect(decodeAndValidateWithSchemas(text, { strict: true })).toEqual({ ok: true, frame, data: frame.data, dataValidated: true });
        // The simulator's split form writes the same text.
        expect(writeUpdateFrame(updateFramePrefix(frame.subscription_id, frame.channel), BigInt(frame.seq), BigInt(frame.timestamp_ns), writeHotData(frame.channel, frame.data))).toBe(text);

        seen[frame.channel]++;
        if (frame.channel === 'bbo' && (frame.data.bid === null || frame.data.ask === null)) seen.nullSide++;
        if ((frame.channel === 'book' && (frame.data.bids.length === 0 || frame.data.asks.length === 0)) || (frame.channel === 'trades' && frame.data.trades.length === 0)) seen.emptyList++;
        if (text.includes(`"${MAX}"`)) seen.max++;
      }),
      { seed: SEED, numRuns: 600 },
    );
    for (const n of Object.values(seen)) expect(n).toBeGreaterThan(20);
  });

  it('writes the data in the layout order whatever the key order of the object it is given', () => {
    fc.assert(
      fc.property(hotData, ({ channel, data }) => {
        const text = writeUpdateData(channel, data);
        // The compact JSON of the data, keys in schema order (the generators build them so).
        expect(text).toBe(JSON.stringify(data));
        expect(writeUpdateData(channel, reversedKeys(data))).toBe(text);
      }),
      { seed: SEED + 1, numRuns: 300 },
    );
  });

  it('escapes any subscription id; the schema path then reads the same frame', () => {
    fc.assert(
      fc.property(hotFrame(anyId), (frame) => {
        const text = writeServerFrame(frame);
        expect(JSON.parse(text)).toEqual(frame);
        expect(decodeAndValidate(text, { strict: true })).toEqual({ ok: true, frame, data: frame.data, dataValidated: true });
      }),
      { seed: SEED + 2, numRuns: 300 },
    );
  });

  it('writes frames beyond PATTERN_TEXT_LIMIT that the token reader decodes', () => {
    const n = Math.ceil(PATTERN_TEXT_LIMIT / 40);
    const side = (base: bigint): PriceLevel[] => Array.from({ length: n }, (_, i) => ({ price_ticks: String(base + BigInt(i)), size_base_lots: MAX }));
    const book: OrderBook = { bids: side(1n), asks: side(UINT64_MAX - BigInt(n)) };
    const frame: HotUpdateFrame = { type: 'update', subscription_id: '42', channel: 'book', seq: MAX, timestamp_ns: '1', data: book };
    const text = writeServerFrame(frame);
    expect(text.length).toBeGreaterThan(PATTERN_TEXT_LIMIT);
    const r = fastDecodeServerFrame(text);
    expect(r.ok && r.dataValidated).toBe(true);
    // Compared as text: a failing deep comparison of 50k levels would take minutes to print.
    expect(r.ok && JSON.stringify(r.frame) === JSON.stringify(frame)).toBe(true);
  });

  it('takes the envelope order from the layout, which is the schema order', () => {
    expect([...UPDATE_KEYS]).toEqual(Object.keys(UpdateFrame.shape));
    for (const channel of HOT_CHANNELS) {
      expect(CHANNEL_TOKENS[channel]).toBe(channelToken(channel));
      expect(updateFramePrefix('7', channel)).toBe(`${UPDATE_HEAD}7${CHANNEL_TOKENS[channel]}`);
    }
    const bbo: Bbo = { bid: null, ask: { price_ticks: '1', size_base_lots: '2' } };
    expect(writeServerFrame({ type: 'update', subscription_id: '7', channel: 'bbo', seq: '1', timestamp_ns: '5', data: bbo })).toBe(
      '{"type":"update","subscription_id":"7","channel":"bbo","seq":"1","timestamp_ns":"5","data":{"bid":null,"ask":{"price_ticks":"1","size_base_lots":"2"}}}',
    );
    expect(Object.keys(JSON.parse(writeHotData('book', { bids: [{ size_base_lots: '1', price_ticks: '2' } as PriceLevel], asks: [] })).bids[0])).toEqual(LEVEL_FIELDS.map((f) => f[0]));
    const t = { taker_is_bid: true, quote_notional_lots: '5', size_base_lots: '4', price_ticks: '3', sequence: '2', timestamp_ns: '1' } as Trade;
    expect(Object.keys(JSON.parse(writeHotData('trades', { trades: [t] })).trades[0])).toEqual(TRADE_FIELDS.map((f) => f[0]));
  });
});

describe('writeServerFrame: other frames', () => {
  const others: [ServerFrame, readonly string[]][] = [
    [{ type: 'subscribed', request_id: 'r1', subscription_id: '3', channel: 'book' }, Object.keys(SubscribedFrame.shape)],
    [{ type: 'unsubscribed', request_id: 'r2', subscription_id: '3' }, Object.keys(UnsubscribedFrame.shape)],
    [{ type: 'pong', request_id: 'p"1', timestamp_ns: MAX }, Object.keys(PongFrame.shape)],
    [{ type: 'resync_required', subscription_id: '3', channel: 'trades', reason: 'gap' }, Object.keys(ResyncRequiredFrame.shape)],
    [{ type: 'error', request_id: '', subscription_id: null, code: 'HEARTBEAT_TIMEOUT', error: 'no frame for 60000 ms' }, Object.keys(ErrorFrame.shape)],
    [{ type: 'error', request_id: 'r3', subscription_id: '9', code: 'UNKNOWN_SUBSCRIPTION', error: 'subscription "9" is not active' }, Object.keys(ErrorFrame.shape)],
    [{ type: 'update', subscription_id: '5', channel: 'fundingRates', seq: '2', timestamp_ns: '3', data: { timestamp_ns: '1', sequence: '2', market_id: 0, funding_rate_100th_bps: -3, long_cumulative_funding_quote_lots: '-5', short_cumulative_funding_quote_lots: '5' } }, UPDATE_KEYS],
  ];

  it.each(others.map(([frame, keys]) => [frame.type, frame, keys] as const))('writes %s in the schema key order; the schema path reads it back', (_type, frame, keys) => {
    const text = writeServerFrame(frame);
    expect(Object.keys(JSON.parse(text) as object)).toEqual([...keys]);
    expect(decodeServerFrame(text, { strict: true })).toEqual({ ok: true, frame });
    expect(decodeAndValidate(text, { strict: true })).toMatchObject({ ok: true, frame });
  });
});
