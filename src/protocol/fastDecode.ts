/**
 * Fast decoding of the hot feed frames.
 *
 * Nearly every frame a client receives is an `update` of `book`, `bbo` or `trades`, in the
 * compact form the server writes (streaming-protocol.md section 3: keys in the documented
 * order, no whitespace). For those, the text is checked against what the zod schemas check
 * (the frame envelope AND the channel's `data`: exact keys, Uint64 digits, booleans, null
 * sides): by one native pattern test up to PATTERN_TEXT_LIMIT (fastDecodeShapes.ts), token
 * by token beyond it (a pattern's backtracking stack grows with the levels and overflows);
 * a hand-written reader (fastDecodeRecords.ts) slices the values out, checking the 2^64 - 1
 * bound and that no book side lists a price twice, and builds the same objects: several
 * times cheaper than `JSON.parse` + zod, linear time and constant stack at any size.
 * Anything else, or anything unusual (another key order, whitespace, escapes, a duplicated
 * key, an unknown channel, a value the schemas would reject, a price twice on a book side),
 * falls back to the schema path, which alone decides accept or reject.
 * So both paths accept and reject exactly the same texts, with the same values and messages.
 *
 * The update frames of every other channel of the protocol (market stats, candles, funding,
 * the account channels) have a fast path too, read from the field lists of
 * feedRecordLayout.ts by fastDecodeLayout.ts under the same rule ({@link scanUpdate}).
 */
import { CHANNELS, isChannelName } from './channels';
import { decodeServerFrame, type DecodeResult } from './decode';
import { scanLayoutUpdate } from './fastDecodeLayout';
import { hotChannelAt, readHotUpdate } from './fastDecodeRecords';
import { HOT_FRAME_PATTERNS, PATTERN_TEXT_LIMIT } from './fastDecodeShapes';
import { CHANNEL_NAME_AT, UPDATE_HEAD } from './hotFrameLayout';
import type { ServerFrame, UpdateFrame } from './frames';
import type { Bbo, OrderBook } from './records/book';
import type { Trade } from './records/trade';
import { summarizeZodError, validateWithDrift, type DriftReport, type ValidateOptions } from './validate';

/** The channels the fast path reads (and the writer writes in the compact form). */
export { HOT_CHANNELS, type HotChannel } from './hotFrameLayout';

/** An update of a hot channel, envelope and `data` both validated. */
export type HotUpdateFrame =
  | (UpdateFrame<OrderBook> & { channel: 'book' })
  | (UpdateFrame<Bbo> & { channel: 'bbo' })
  | (UpdateFrame<{ trades: Trade[] }> & { channel: 'trades' });

/** {@link DecodeResult}, plus whether the update's `data` was already checked. */
export type FastDecodeResult = { ok: true; frame: ServerFrame; dataValidated: boolean } | { ok: false; reason: 'json' | 'schema'; message: string };

/**
 * The outcome of {@link decodeAndValidate}. On success, `data` is the update's `data`
 * (also in `frame.data`), checked against its channel's schema when `dataValidated`; it is
 * unchecked only for an update of a channel this protocol does not know, and `undefined`
 * for frames other than updates. A `data` failure carries the (valid) envelope, so the
 * caller knows which subscription it hit.
 */
export type FrameDecodeResult =
  | { ok: true; frame: ServerFrame; data: unknown; dataValidated: boolean }
  | { ok: false; reason: 'json' | 'schema'; message: string }
  | { ok: false; reason: 'data'; message: string; frame: UpdateFrame };

const HEAD_LENGTH = UPDATE_HEAD.length;
// From the subscription id's closing quote to the first character of the channel name.
const CHANNEL_AT = CHANNEL_NAME_AT;

/**
 * Reads `text` when it is an update of a hot channel in the server's compact form and
 * valid in every respect; returns undefined otherwise (the caller falls back). Any length:
 * up to {@link PATTERN_TEXT_LIMIT} one pattern test checks the whole text, then the values
 * are sliced out; beyond, one pass checks and reads. Never throws.
 *
 * @example
 * scanHotUpdate('{"type":"update","subscription_id":"7","channel":"bbo","seq":"1","timestamp_ns":"5","data":{"bid":null,"ask":null}}')
 * // => { type: 'update', subscription_id: '7', channel: 'bbo', seq: '1', timestamp_ns: '5', data: { bid: null, ask: null } }
 */
export function scanHotUpdate(text: string): HotUpdateFrame | undefined {
  if (text.length > PATTERN_TEXT_LIMIT) return readHotUpdate(text, false);
  // Guess the channel from where it would be; the pattern then checks everything.
  const idEnd = text.indexOf('"', HEAD_LENGTH);
  if (idEnd < 0) return undefined;
  const channel = hotChannelAt(text.charCodeAt(idEnd + CHANNEL_AT), text.charCodeAt(idEnd + CHANNEL_AT + 1));
  if (channel === undefined || !HOT_FRAME_PATTERNS[channel].test(text)) return undefined;
  return readHotUpdate(text, true);
}

/**
 * Reads `text` when it is an update of any channel of the protocol in the server's compact
 * form and valid in every respect: the hot channels by {@link scanHotUpdate}, the others by
 * their layouts (fastDecodeLayout.ts); undefined otherwise (the caller falls back). Never throws.
 */
export function scanUpdate(text: string): UpdateFrame | undefined {
  return scanHotUpdate(text) ?? scanLayoutUpdate(text);
}

/**
 * {@link decodeServerFrame} with the fast path: same results, and `dataValidated: true`
 * when the update's `data` was checked on the way (the caller may skip its own check).
 * Never throws.
 */
export function fastDecodeServerFrame(text: string, opts: ValidateOptions = {}): FastDecodeResult {
  const hot = scanUpdate(text);
  if (hot !== undefined) return { ok: true, frame: hot, dataValidated: true };
  const r: DecodeResult = decodeServerFrame(text, opts);
  return r.ok ? { ok: true, frame: r.frame, dataValidated: false } : r;
}

/**
 * Decodes a server frame AND validates an update's `data` against its channel's schema,
 * through the fast path when the frame allows it. Accepts and rejects exactly what
 * {@link decodeAndValidateWithSchemas} does, with deep-equal values. Never throws.
 *
 * @param opts the drift policy, applied to the frame and to `data` (drift paths of `data`
 *   are reported as `data`, `data.bids[3]`, ...). @default {} (drop and report unknown keys)
 * @example
 * const r = decodeAndValidate(text);
 * if (r.ok && r.frame.type === 'update') replica.apply(r.data);
 */
export function decodeAndValidate(text: string, opts: ValidateOptions = {}): FrameDecodeResult {
  const hot = scanUpdate(text);
  if (hot !== undefined) return { ok: true, frame: hot, data: hot.data, dataValidated: true };
  return decodeAndValidateWithSchemas(text, opts);
}

/**
 * The schema path: `JSON.parse` + the zod frame schema, then the channel's `data` schema
 * for an update of a known channel. The reference the fast path is proven against.
 */
export function decodeAndValidateWithSchemas(text: string, opts: ValidateOptions = {}): FrameDecodeResult {
  const r = decodeServerFrame(text, opts);
  if (!r.ok) return r;
  const frame = r.frame;
  if (frame.type !== 'update') return { ok: true, frame, data: undefined, dataValidated: false };
  if (!isChannelName(frame.channel)) return { ok: true, frame, data: frame.data, dataValidated: false };
  const onDrift = opts.onDrift;
  const dataOpts: ValidateOptions = onDrift ? { strict: opts.strict, onDrift: (d) => onDrift(underData(d)) } : opts;
  const d = validateWithDrift(CHANNELS[frame.channel].data, frame.data, dataOpts);
  if (!d.ok) {
    return { ok: false, reason: 'data', message: `update data of channel ${frame.channel} does not match the protocol: ${summarizeZodError(d.error)}`, frame };
  }
  // `frame` is zod's own copy of the envelope, ours to complete.
  frame.data = d.value;
  return { ok: true, frame, data: d.value, dataValidated: true };
}

/** Re-roots a drift report of an update's `data` at the frame. */
function underData(d: DriftReport): DriftReport {
  const path = d.path === '(root)' ? 'data' : d.path.startsWith('[') ? `data${d.path}` : `data.${d.path}`;
  return { path, keys: d.keys };
}
