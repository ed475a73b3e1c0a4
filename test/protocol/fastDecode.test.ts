import fc from 'fast-check';
import type * as z from 'zod/mini';
import { CHANNELS, isChannelName } from '../../src/protocol/channels';
import { decodeServerFrame } from '../../src/protocol/decode';
import { decodeAndValidate, decodeAndValidateWithSchemas, fastDecodeServerFrame, scanHotUpdate, type FrameDecodeResult } from '../../src/protocol/fastDecode';
import { BBO_KEYS, BOOK_KEYS, LEVEL_FIELDS, MIRRORED_SCHEMAS, TRADE_FIELDS, TRADES_KEYS } from '../../src/protocol/fastDecodeShapes';
import { ServerFrame } from '../../src/protocol/frames';
import { UINT64_MAX } from '../../src/protocol/scalars';
import type { DriftReport, ValidateOptions } from '../../src/protocol/validate';

const MAX = UINT64_MAX.toString();
const SEED = 20241122;

// ---- generators ------------------------------------------------------------

/** Valid Uint64 strings, weighted towards the boundaries. */
const uint64 = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: UINT64_MAX }).map(String) },
  { weight: 2, arbitrary: fc.nat().map(String) },
  { weight: 3, arbitrary: fc.constantFrom('0', '1', MAX, '18446744073709551614', '9007199254740991', '9007199254740992', '9007199254740993', '10000000000000000000', '00000000000000000001', '000000000000000000001', '007') },
);
const level = fc.record({ price_ticks: uint64, size_base_lots: uint64 });
const levels = fc.array(level, { maxLength: 4 });
const trade = fc.record({ timestamp_ns: uint64, sequence: uint64, price_ticks: uint64, size_base_lots: uint64, quote_notional_lots: uint64, taker_is_bid: fc.boolean() });
const subscriptionId = fc.oneof({ weight: 5, arbitrary: fc.nat().map(String) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) });
const hotData = fc.oneof(
  fc.record({ bids: levels, asks: levels }).map((data) => ({ channel: 'book', data })),
  fc.record({ bid: fc.option(level, { nil: null }), ask: fc.option(level, { nil: null }) }).map((data) => ({ channel: 'bbo', data })),
  fc.record({ trades: fc.array(trade, { maxLength: 3 }) }).map((data) => ({ channel: 'trades', data })),
);
/** Update frames of the hot channels as plain objects, keys in the server's order. */
const hotFrame = fc.record({ sub: subscriptionId, seq: uint64, ts: uint64, cd: hotData }).map(({ sub, seq, ts, cd }) => ({
  type: 'update',
  subscription_id: sub,
  channel: cd.channel,
  seq,
  timestamp_ns: ts,
  data: cd.data as unknown,
}));

const BAD_VALUES: unknown[] = [-1, 1, 1.5, 2 ** 64, '-1', '+1', '1e3', '', ' 1', '1 ', '0x10', '1.0', '１', 'abc', '18446744073709551616', '99999999999999999999', null, true, false, {}, [], [1], 'null'];
const KNOWN_KEYS = ['type', 'subscription_id', 'channel', 'seq', 'timestamp_ns', 'data', 'bids', 'asks', 'bid', 'ask', 'trades', ...LEVEL_FIELDS.map((f) => f[0]), ...TRADE_FIELDS.map((f) => f[0]), 'extra', '__proto__'];

/** Every object or array inside `v` (v included), with a way to reach it. */
function containers(v: unknown, out: (Record<string, unknown> | unknown[])[] = []): (Record<string, unknown> | unknown[])[] {
  if (v && typeof v === 'object') {
    out.push(v as Record<string, unknown>);
    for (const child of Object.values(v)) containers(child, out);
  }
  return out;
}

/** Object-level mutations: a bad leaf, an extra or missing key, another channel or type. */
const objectMutation = fc.record({
  kind: fc.constantFrom('badValue', 'extraKey', 'dropKey', 'channel', 'type', 'shuffle'),
  pick: fc.nat(),
  pick2: fc.nat(),
  bad: fc.constantFrom(...BAD_VALUES),
  channel: fc.constantFrom('book', 'bbo', 'trades', 'marketStats', 'foo', 'BOOK', ''),
  type: fc.constantFrom('update', 'pong', 'subscribed', 'error', 'nope'),
});

type ObjectMutation = typeof objectMutation extends fc.Arbitrary<infer T> ? T : never;

function mutateObject(frame: Record<string, unknown>, m: ObjectMutation): Record<string, unknown> {
  const copy = structuredClone(frame) as Record<string, unknown>;
  const all = containers(copy);
  const target = all[m.pick % all.length]!;
  const keys = Object.keys(target);
  switch (m.kind) {
    case 'badValue':
      if (keys.length) (target as Record<string, unknown>)[keys[m.pick2 % keys.length]!] = m.bad;
      break;
    case 'extraKey':
      if (!Array.isArray(target)) target[KNOWN_KEYS[m.pick2 % KNOWN_KEYS.length]!] = m.bad;
      else target.push(m.bad);
      break;
    case 'dropKey':
      if (keys.length && !Array.isArray(target)) delete target[keys[m.pick2 % keys.length]!];
      break;
    case 'channel':
      copy.channel = m.channel;
      break;
    case 'type':
      copy.type = m.type;
      break;
    case 'shuffle':
      if (!Array.isArray(target) && keys.length > 1) {
        const entries = Object.entries(target);
        for (const k of keys) delete target[k];
        const rot = 1 + (m.pick2 % (entries.length - 1));
        for (const [k, v] of [...entries.slice(rot), ...entries.slice(0, rot)]) target[k] = v;
      }
      break;
  }
  return copy;
}

/** Text-level mutations: truncation, whitespace, escapes, stray characters, duplicated keys. */
const textMutation = fc.record({
  kind: fc.constantFrom('truncate', 'whitespace', 'escape', 'char', 'dupFirst', 'dupLast', 'trailing'),
  at: fc.nat(),
  ch: fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', '0', '9', 'a', ' ', '\u0000', '\u001f', '-', 'n', 't', '\n', 'é'),
  key: fc.constantFrom(...KNOWN_KEYS),
  value: fc.oneof(uint64, fc.constantFrom(...BAD_VALUES)),
});

function mutateText(text: string, m: { kind: string; at: number; ch: string; key: string; value: unknown }): string {
  const i = m.at % (text.length + 1);
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, i);
    case 'whitespace':
      return text.slice(0, i) + ' ' + text.slice(i);
    case 'escape': {
      // Replace a character inside a string by its \uXXXX escape (same value for JSON.parse).
      const j = Math.min(i, text.length - 1);
      const c = text[j]!;
      if (c === '"' || c === '\\') return text;
      return text.slice(0, j) + '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0') + text.slice(j + 1);
    }
    case 'char':
      return text.slice(0, i) + m.ch + text.slice(i + 1);
    case 'trailing':
      return text + m.ch;
    case 'dupFirst':
    case 'dupLast': {
      // A key at the start (JSON.parse keeps the later, original one) or at the end (kept) of an object.
      const pair = `"${m.key}":${JSON.stringify(m.value)}`;
      const idx = m.kind === 'dupFirst' ? nthIndex(text, '{', m.at) : nthIndex(text, '}', m.at);
      if (idx < 0) return text;
      const empty = m.kind === 'dupFirst' ? text[idx + 1] === '}' : text[idx - 1] === '{';
      return m.kind === 'dupFirst' ? text.slice(0, idx + 1) + pair + (empty ? '' : ',') + text.slice(idx + 1) : text.slice(0, idx) + (empty ? '' : ',') + pair + text.slice(idx);
    }
  }
  return text;
}

function nthIndex(text: string, ch: string, n: number): number {
  const all: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === ch) all.push(i);
  return all.length ? all[n % all.length]! : -1;
}

// ---- the comparison ----------------------------------------------------------

/**
 * A third, independent reading: JSON.parse and the zod schemas with no helper of ours.
 * `ok: undefined` when only the drift policy can tell (non-strict mode, extra keys).
 */
function reference(text: string, strict: boolean): { ok: boolean | undefined; frame?: unknown } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  const f = ServerFrame.safeParse(raw);
  if (!f.success) return { ok: strict ? false : undefined };
  const frame = f.data as Record<string, unknown>;
  if (frame.type !== 'update' || !isChannelName(frame.channel)) return { ok: true, frame };
  const d = CHANNELS[frame.channel].data.safeParse(frame.data);
  if (!d.success) return { ok: strict ? false : undefined };
  return { ok: true, frame: { ...frame, data: d.data } };
}

function run(text: string, strict: boolean, fn: (t: string, o: ValidateOptions) => FrameDecodeResult): { r: FrameDecodeResult; drift: DriftReport[] } {
  const drift: DriftReport[] = [];
  return { r: fn(text, { strict, onDrift: (d) => drift.push(d) }), drift };
}

function expectSame(text: string): void {
  for (const strict of [true, false]) {
    const fast = run(text, strict, decodeAndValidate);
    const slow = run(text, strict, decodeAndValidateWithSchemas);
    expect(fast.r.ok).toBe(slow.r.ok);
    expect(fast.drift).toEqual(slow.drift);
    if (fast.r.ok && slow.r.ok) {
      expect(fast.r.frame).toEqual(slow.r.frame);
      expect(fast.r.data).toEqual(slow.r.data);
      expect(fast.r.dataValidated).toBe(slow.r.dataValidated);
    } else {
      expect(fast.r).toEqual(slow.r);
    }
    const ref = reference(text, strict);
    if (ref.ok === true) {
      expect(slow.r.ok).toBe(true);
      if (slow.r.ok) expect(slow.r.frame).toEqual(ref.frame);
    } else if (ref.ok === false) {
      expect(slow.r.ok).toBe(false);
    }
    // The frame-only function agrees with decodeServerFrame.
    const a = fastDecodeServerFrame(text, { strict });
    const b = decodeServerFrame(text, { strict });
    expect(a.ok).toBe(b.ok);
    if (a.ok && b.ok) expect(a.frame).toEqual(b.frame);
    else expect(a).toEqual(b);
  }
}

const canonical = (frame: unknown) => JSON.stringify(frame);
const isStrictlyValid = (frame: { subscription_id: string } & Record<string, unknown>) => {
  const r = decodeAndValidateWithSchemas(canonical(frame), { strict: true });
  return r.ok;
};

// ---- tests ---------------------------------------------------------------------

describe('fastDecode', () => {
  it('mirrors the schemas: field lists equal the zod shapes, in order', () => {
    expect(LEVEL_FIELDS.map((f) => f[0])).toEqual(Object.keys(MIRRORED_SCHEMAS.PriceLevel.shape));
    expect(TRADE_FIELDS.map((f) => f[0])).toEqual(Object.keys(MIRRORED_SCHEMAS.Trade.shape));
    expect([...BOOK_KEYS]).toEqual(Object.keys(MIRRORED_SCHEMAS.OrderBook.shape));
    expect([...BBO_KEYS]).toEqual(Object.keys(MIRRORED_SCHEMAS.Bbo.shape));
    expect([...TRADES_KEYS]).toEqual(Object.keys((CHANNELS.trades.data as z.ZodMiniObject).shape));
    for (const [key, kind] of TRADE_FIELDS) {
      const field = MIRRORED_SCHEMAS.Trade.shape[key];
      expect(field.safeParse(kind === 'uint64' ? '1' : true).success).toBe(true);
      expect(field.safeParse(kind === 'uint64' ? true : '1').success).toBe(false);
    }
  });

  it('takes the fast path for every valid frame in the server form, with the schema values', () => {
    fc.assert(
      fc.property(hotFrame, (frame) => {
        const text = canonical(frame);
        const plainId = JSON.stringify(frame.subscription_id) === `"${frame.subscription_id}"`;
        const narrowDigits = !JSON.stringify(frame).match(/"\d{21,}"/);
        if (isStrictlyValid(frame) && plainId && narrowDigits) {
          const hot = scanHotUpdate(text);
          expect(hot).toBeDefined();
          expect(hot).toEqual(JSON.parse(text));
        }
        expectSame(text);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('agrees with the schema path on object-level mutations', () => {
    fc.assert(
      fc.property(hotFrame, objectMutation, (frame, m) => expectSame(canonical(mutateObject(frame, m)))),
      { seed: SEED + 1, numRuns: 600 },
    );
  });

  it('agrees with the schema path on text-level mutations (truncation, whitespace, escapes, duplicated keys)', () => {
    fc.assert(
      fc.property(hotFrame, textMutation, (frame, m) => expectSame(mutateText(canonical(frame), m))),
      { seed: SEED + 2, numRuns: 800 },
    );
  });

  it('agrees on every single-leaf, extra-key and missing-key mutation of one frame per channel', () => {
    const lv = { price_ticks: '12', size_base_lots: MAX };
    const tr = { timestamp_ns: '1', sequence: '2', price_ticks: '3', size_base_lots: '4', quote_notional_lots: '5', taker_is_bid: false };
    const env = (channel: string, data: unknown) => ({ type: 'update', subscription_id: '4', channel, seq: '9007199254740993', timestamp_ns: '1732200000000000000', data });
    const frames = [
      env('book', { bids: [lv, { ...lv, price_ticks: '11' }], asks: [{ ...lv, price_ticks: '13' }] }),
      env('bbo', { bid: lv, ask: null }),
      env('bbo', { bid: null, ask: lv }),
      env('trades', { trades: [tr, { ...tr, taker_is_bid: true }] }),
    ];
    let cases = 0;
    for (const frame of frames) {
      expect(scanHotUpdate(canonical(frame))).toEqual(frame);
      const n = containers(frame).length;
      for (let c = 0; c < n; c++) {
        const keyCount = Object.keys(containers(frame)[c]!).length;
        for (let k = 0; k < keyCount; k++) {
          for (const bad of BAD_VALUES) {
            expectSame(canonical(mutateObject(frame, { kind: 'badValue', pick: c, pick2: k, bad, channel: 'book', type: 'update' })));
            cases++;
          }
          expectSame(canonical(mutateObject(frame, { kind: 'dropKey', pick: c, pick2: k, bad: null, channel: 'book', type: 'update' })));
        }
        for (let k = 0; k < KNOWN_KEYS.length; k++) {
          expectSame(canonical(mutateObject(frame, { kind: 'extraKey', pick: c, pick2: k, bad: '1', channel: 'book', type: 'update' })));
        }
        expectSame(canonical(mutateObject(frame, { kind: 'shuffle', pick: c, pick2: 0, bad: null, channel: 'book', type: 'update' })));
      }
    }
    expect(cases).toBeGreaterThan(500);
  });

  it('agrees on arbitrary JSON and on arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string({ unit: 'binary', maxLength: 40 })), (text) => expectSame(text)),
      { seed: SEED + 3, numRuns: 300 },
    );
  });

  const head = '{"type":"update","subscription_id":"9","channel":"bbo","seq":"';
  const bbo = (seq: string, data = '{"bid":{"price_ticks":"1","size_base_lots":"2"},"ask":null}') => `${head}${seq}","timestamp_ns":"5","data":${data}}`;

  it('handles the Uint64 boundaries exactly', () => {
    expect(scanHotUpdate(bbo(MAX))?.seq).toBe(MAX);
    expect(scanHotUpdate(bbo('9007199254740993'))?.seq).toBe('9007199254740993');
    for (const seq of ['18446744073709551616', '99999999999999999999', '000000000000000000001']) {
      expect(scanHotUpdate(bbo(seq))).toBeUndefined();
      expectSame(bbo(seq));
    }
    expect(decodeAndValidate(bbo('18446744073709551616')).ok).toBe(false);
    expect(decodeAndValidate(bbo('000000000000000000001')).ok).toBe(true);
    const big = bbo('1', `{"bid":null,"ask":{"price_ticks":"${MAX}","size_base_lots":"18446744073709551616"}}`);
    expect(scanHotUpdate(big)).toBeUndefined();
    expect(decodeAndValidate(big)).toMatchObject({ ok: false, reason: 'data' });
  });

  it('resolves duplicated keys as JSON.parse does (the later one wins)', () => {
    const dup = bbo('1', '{"bid":null,"ask":null,"bid":{"price_ticks":"3","size_base_lots":"4"}}');
    expect(scanHotUpdate(dup)).toBeUndefined();
    const r = decodeAndValidate(dup, { strict: true });
    expect(r).toMatchObject({ ok: true, data: { bid: { price_ticks: '3', size_base_lots: '4' }, ask: null } });
    expectSame(dup);
  });

  it('reports how the data was checked, and carries the envelope of a bad update', () => {
    const pong = '{"type":"pong","request_id":"1","timestamp_ns":"5"}';
    expect(decodeAndValidate(pong)).toEqual({ ok: true, frame: JSON.parse(pong), data: undefined, dataValidated: false });
    const unknown = '{"type":"update","subscription_id":"1","channel":"foo","seq":"1","timestamp_ns":"5","data":{"x":1}}';
    expect(decodeAndValidate(unknown)).toMatchObject({ ok: true, data: { x: 1 }, dataValidated: false });
    const bad = bbo('7', '{"bid":null}');
    expect(decodeAndValidate(bad)).toMatchObject({ ok: false, reason: 'data', frame: { subscription_id: '9', seq: '7' } });
    const stats = '{"type":"update","subscription_id":"1","channel":"bbo","seq":"1","timestamp_ns":"5","data":{"bid":null,"ask":null,"new":1}}';
    const drift: DriftReport[] = [];
    expect(decodeAndValidate(stats, { onDrift: (d) => drift.push(d) })).toMatchObject({ ok: true, data: { bid: null, ask: null } });
    expect(drift).toEqual([{ path: 'data', keys: ['new'] }]);
  });
});
