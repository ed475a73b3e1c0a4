import fc from 'fast-check';
import * as z from 'zod/mini';
import { isBase58OfByteLength } from '../../src/protocol/base58Length';
import { CHANNELS } from '../../src/protocol/channels';
import { decodeServerFrame } from '../../src/protocol/decode';
import { decodeAndValidate, decodeAndValidateWithSchemas, fastDecodeServerFrame, scanUpdate, type FrameDecodeResult } from '../../src/protocol/fastDecode';
import { scanLayoutUpdate } from '../../src/protocol/fastDecodeLayout';
import { CHANNEL_DATA_LAYOUTS, LAYOUT_CHANNELS, type FieldLayout, type LayoutChannel, type ValueKind } from '../../src/protocol/feedRecordLayout';
import { ServerFrame } from '../../src/protocol/frames';
import { LAYOUT_FRAME_PATTERNS } from '../../src/protocol/layoutPatterns';
import * as R from '../../src/protocol/records';
import { encodeBase58, INT64_MAX, INT64_MIN, isBase58OfLength, UINT64_MAX } from '../../src/protocol/scalars';
import { writeServerFrame } from '../../src/protocol/serverFrameWriter';
import type { DriftReport, ValidateOptions } from '../../src/protocol/validate';
import { propertyRuns } from '../helpers/propertyRuns';

const SEED = 20251125;
const MAX = UINT64_MAX.toString();
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

// ---- generators from the layouts --------------------------------------------------

const uint64 = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: UINT64_MAX }).map(String) },
  { weight: 2, arbitrary: fc.nat().map(String) },
  { weight: 2, arbitrary: fc.constantFrom('0', '1', MAX, '18446744073709551614', '9007199254740993', '00000000000000000001', '000000000000000000001', '007') },
);
const int64 = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String) },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 2, arbitrary: fc.constantFrom('0', '-0', '-1', INT64_MAX.toString(), INT64_MIN.toString(), '-9223372036854775807', '007', '-007', '-00000000000000000001') },
);
const plainString = fc.string({ maxLength: 8 });
const anyString = fc.oneof({ weight: 3, arbitrary: plainString }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) });

function base58Of(bytes: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.uint8Array({ minLength: bytes, maxLength: bytes }).map(encodeBase58) },
    // Leading zero bytes: leading '1's.
    { weight: 1, arbitrary: fc.integer({ min: 1, max: bytes }).chain((z) => fc.uint8Array({ minLength: bytes - z, maxLength: bytes - z }).map((b) => encodeBase58(new Uint8Array([...new Array<number>(z).fill(0), ...b])))) },
  );
}

function intOf(min: number, max: number): fc.Arbitrary<number> {
  return fc.oneof({ weight: 4, arbitrary: fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }) }, { weight: 2, arbitrary: fc.constantFrom(min, max, Math.max(min, 0), Math.min(max, 1)) }, { weight: 1, arbitrary: fc.double({ min, max, noNaN: true }).map(Math.trunc) });
}

function arbitraryOf(kind: ValueKind): fc.Arbitrary<unknown> {
  switch (kind.t) {
    case 'uint64':
      return uint64;
    case 'int64':
      return int64;
    case 'int':
      return intOf(kind.min, kind.max);
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...kind.values);
    case 'string':
      return kind.minLength > 0 ? anyString.filter((s) => s.length >= kind.minLength) : anyString;
    case 'base58':
      return base58Of(kind.bytes);
    case 'array':
      return fc.array(arbitraryOf(kind.of), { maxLength: 3 });
    case 'object':
      return recordOf(kind.fields);
  }
}

function recordOf(fields: FieldLayout): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) model[f.key] = arbitraryOf(f.kind);
  return fc.record(model, { requiredKeys: fields.filter((f) => !f.optional).map((f) => f.key) });
}

const subscriptionId = fc.oneof({ weight: 5, arbitrary: fc.nat().map(String) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) });
const layoutFrame = fc.constantFrom(...LAYOUT_CHANNELS).chain((channel) =>
  fc.record({ sub: subscriptionId, seq: uint64, ts: uint64, data: arbitraryOf(CHANNEL_DATA_LAYOUTS[channel]) }).map(({ sub, seq, ts, data }) => ({ type: 'update' as const, subscription_id: sub, channel, seq, timestamp_ns: ts, data })),
);

// ---- mutations ----------------------------------------------------------------------

const BAD_VALUES: unknown[] = [-1, 0, 1, -0, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e21, '-1', '+1', '1e3', '', ' 1', '1.0', 'abc', '18446744073709551616', '9223372036854775808', '-9223372036854775809', null, true, false, {}, [], 'open', 'perp', 'long', '2qu59w2CVMGkgzMH2iwmjD6EotpeMjpmMEj3uyN', '11111111111111111111111111111111'];
const EXTRA_KEYS = ['extra', 'open', 'side', 'status', 'name', 'balances', 'orders', 'market_id', '__proto__'];

function containers(v: unknown, out: (Record<string, unknown> | unknown[])[] = []): (Record<string, unknown> | unknown[])[] {
  if (v && typeof v === 'object') {
    out.push(v as Record<string, unknown>);
    for (const child of Object.values(v)) containers(child, out);
  }
  return out;
}

const objectMutation = fc.record({
  kind: fc.constantFrom('badValue', 'extraKey', 'dropKey', 'shuffle', 'channel'),
  pick: fc.nat(),
  pick2: fc.nat(),
  bad: fc.constantFrom(...BAD_VALUES),
  channel: fc.constantFrom(...LAYOUT_CHANNELS, 'book', 'foo'),
});
type ObjectMutation = typeof objectMutation extends fc.Arbitrary<infer T> ? T : never;

function mutateObject(frame: object, m: ObjectMutation): Record<string, unknown> {
  const copy = structuredClone(frame) as Record<string, unknown>;
  const all = containers(copy);
  const target = all[m.pick % all.length]!;
  const keys = Object.keys(target);
  switch (m.kind) {
    case 'badValue':
      if (keys.length) (target as Record<string, unknown>)[keys[m.pick2 % keys.length]!] = m.bad;
      break;
    case 'extraKey':
      if (!Array.isArray(target)) target[EXTRA_KEYS[m.pick2 % EXTRA_KEYS.length]!] = m.bad;
      else target.push(m.bad);
      break;
    case 'dropKey':
      if (keys.length && !Array.isArray(target)) delete target[keys[m.pick2 % keys.length]!];
      break;
    case 'shuffle':
      if (!Array.isArray(target) && keys.length > 1) {
        const entries = Object.entries(target);
        for (const k of keys) delete target[k];
        const rot = 1 + (m.pick2 % (entries.length - 1));
        for (const [k, v] of [...entries.slice(rot), ...entries.slice(0, rot)]) target[k] = v;
      }
      break;
    case 'channel':
      copy.channel = m.channel;
      break;
  }
  return copy;
}

const textMutation = fc.record({
  kind: fc.constantFrom('truncate', 'whitespace', 'escape', 'char', 'trailing', 'dupKey'),
  at: fc.nat(),
  ch: fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', '0', '9', '-', '.', 'e', 'a', '1', ' ', '\u0000', 'n', 't'),
});

function mutateText(text: string, m: { kind: string; at: number; ch: string }): string {
  const i = m.at % (text.length + 1);
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, i);
    case 'whitespace':
      return text.slice(0, i) + ' ' + text.slice(i);
    case 'escape': {
      const j = Math.min(i, text.length - 1);
      const c = text[j]!;
      if (c === '"' || c === '\\') return text;
      return text.slice(0, j) + '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0') + text.slice(j + 1);
    }
    case 'char':
      return text.slice(0, i) + m.ch + text.slice(i + 1);
    case 'trailing':
      return text + m.ch;
    case 'dupKey': {
      // Repeat the first key-value pair of an object as its last one (JSON.parse keeps the later).
      const open = text.indexOf('{"', 1 + (m.at % Math.max(1, text.length - 2)));
      if (open < 0) return text;
      const comma = text.indexOf(',', open);
      const close = text.indexOf('}', open);
      if (comma < 0 || close < comma) return text;
      return text.slice(0, close) + ',' + text.slice(open + 1, comma) + text.slice(close);
    }
  }
  return text;
}

// ---- the comparison ----------------------------------------------------------------

/** JSON.parse and the zod schemas with no helper of ours (`ok: undefined`: only the drift policy can tell). */
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
  if (frame.type !== 'update' || !(LAYOUT_CHANNELS as readonly unknown[]).includes(frame.channel)) return { ok: undefined };
  const d = CHANNELS[frame.channel as LayoutChannel].data.safeParse(frame.data);
  if (!d.success) return { ok: strict ? false : undefined };
  return { ok: true, frame: { ...frame, data: d.data } };
}

function run(text: string, strict: boolean, fn: (t: string, o: ValidateOptions) => FrameDecodeResult): { r: FrameDecodeResult; drift: DriftReport[] } {
  const drift: DriftReport[] = [];
  return { r: fn(text, { strict, onDrift: (d) => drift.push(d) }), drift };
}

function expectSame(text: string): void {
  // With the whole-frame pattern (tokens skipped on a match) and token by token: the same result, the same key order.
  const patterned = scanLayoutUpdate(text, true);
  const tokenwise = scanLayoutUpdate(text, false);
  expect(patterned).toEqual(tokenwise);
  expect(JSON.stringify(patterned)).toBe(JSON.stringify(tokenwise));
  for (const strict of [true, false]) {
    const fast = run(text, strict, decodeAndValidate);
    const slow = run(text, strict, decodeAndValidateWithSchemas);
    expect(fast.r.ok).toBe(slow.r.ok);
    expect(fast.drift).toEqual(slow.drift);
    if (fast.r.ok && slow.r.ok) {
      // Same values, same key order.
      expect(JSON.stringify(fast.r.frame)).toBe(JSON.stringify(slow.r.frame));
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
    const a = fastDecodeServerFrame(text, { strict });
    const b = decodeServerFrame(text, { strict });
    expect(a.ok).toBe(b.ok);
    if (a.ok && b.ok) expect(a.frame).toEqual(b.frame);
    else expect(a).toEqual(b);
  }
}

/** A frame whose every value has the form the fast path reads (else it falls back, which is fine). */
function fastForm(text: string): boolean {
  return !text.includes('\\') && !/[\u0000-\u001f]/.test(text) && !/"-?\d{20,}"/.test(text.replace(/"\d{20}"/g, '""')) && !/"-\d{19}"/.test(text.replace(/"-(?:922337203685477580[0-8]|9[01]\d{17}|[0-8]\d{18})"/g, '""'));
}

// ---- tests ---------------------------------------------------------------------------

describe('isBase58OfByteLength', () => {
  const texts = fc.oneof(
    fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 100 }),
    fc.tuple(fc.string({ unit: fc.constant('1'), maxLength: 40 }), fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 50 })).map(([a, b]) => a + b),
    fc.uint8Array({ minLength: 0, maxLength: 40 }).map(encodeBase58),
    fc.string({ maxLength: 50 }),
  );
  it('decides exactly as isBase58OfLength, for 28 and 32 bytes', () => {
    fc.assert(
      fc.property(texts, (s) => {
        for (const n of [28, 32]) expect(isBase58OfByteLength(s, n)).toBe(isBase58OfLength(s, n));
      }),
      { seed: SEED, numRuns: propertyRuns(1000) },
    );
  });
  it('at the boundaries: all-zero bytes, the largest values, one byte more or less', () => {
    for (const n of [28, 32]) {
      for (const bytes of [new Uint8Array(n), new Uint8Array(n).fill(255), new Uint8Array(n - 1).fill(255), new Uint8Array(n + 1).fill(1), Uint8Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0))]) {
        const s = encodeBase58(bytes);
        expect(isBase58OfByteLength(s, n)).toBe(isBase58OfLength(s, n));
        expect(isBase58OfByteLength(s, n)).toBe(bytes.length === n);
      }
    }
    expect(isBase58OfByteLength('', 32)).toBe(false);
    expect(isBase58OfByteLength('0OIl', 32)).toBe(false);
  });
});

describe('fastDecodeLayout', () => {
  it('mirrors the schemas: keys in schema order, the same optional keys', () => {
    const schemas: Record<LayoutChannel, z.ZodMiniType> = Object.fromEntries(LAYOUT_CHANNELS.map((c) => [c, CHANNELS[c].data])) as Record<LayoutChannel, z.ZodMiniType>;
    const check = (kind: ValueKind, schema: z.ZodMiniType): void => {
      let s = schema as unknown as { _zod: { def: { type: string; innerType?: unknown; element?: unknown; shape?: Record<string, z.ZodMiniType> } } };
      if (kind.t === 'array') {
        expect(s._zod.def.type).toBe('array');
        return check(kind.of, s._zod.def.element as z.ZodMiniType);
      }
      if (kind.t !== 'object') return;
      expect(s._zod.def.type).toBe('object');
      const shape = s._zod.def.shape!;
      expect(kind.fields.map((f) => f.key)).toEqual(Object.keys(shape));
      for (const f of kind.fields) {
        s = shape[f.key] as unknown as typeof s;
        expect(f.optional).toBe(s._zod.def.type === 'optional');
        check(f.kind, (f.optional ? s._zod.def.innerType : s) as z.ZodMiniType);
      }
    };
    for (const c of LAYOUT_CHANNELS) check(CHANNEL_DATA_LAYOUTS[c], schemas[c]);
    // The account channel's data is the Subaccount record itself, and so on.
    expect(CHANNELS.account.data).toBe(R.Subaccount);
    expect(CHANNELS.marketStats.data).toBe(R.MarketStats);
  });

  it('writes every valid frame in the compact form, which the fast path takes with the schema values and key order', () => {
    let taken = 0;
    fc.assert(
      fc.property(layoutFrame, (frame) => {
        const text = writeServerFrame(frame);
        const slow = decodeAndValidateWithSchemas(text, { strict: true });
        if (slow.ok && fastForm(text)) {
          const fast = scanUpdate(text);
          expect(fast).toBeDefined();
          // The fast form matches its channel's pattern: such frames are read with the known tokens skipped.
          expect(LAYOUT_FRAME_PATTERNS.get(frame.channel)?.test(text)).toBe(true);
          expect(JSON.stringify(fast)).toBe(text);
          expect(fast).toEqual(slow.frame);
          taken++;
        }
        expectSame(text);
      }),
      { seed: SEED + 1, numRuns: propertyRuns(300) },
    );
    expect(taken).toBeGreaterThan(200);
  });

  it('agrees with the schema path on object-level mutations (bad values, unknown, missing and reordered keys)', () => {
    fc.assert(
      fc.property(layoutFrame, objectMutation, (frame, m) => expectSame(JSON.stringify(mutateObject(JSON.parse(writeServerFrame(frame)) as object, m)))),
      { seed: SEED + 2, numRuns: propertyRuns(600) },
    );
  });

  it('agrees with the schema path on text-level mutations (truncation, whitespace, escapes, stray characters, duplicated keys)', () => {
    fc.assert(
      fc.property(layoutFrame, textMutation, (frame, m) => expectSame(mutateText(writeServerFrame(frame), m))),
      { seed: SEED + 3, numRuns: propertyRuns(600) },
    );
  });

  it('agrees on every single-leaf, extra-key and missing-key mutation of one frame per channel', () => {
    const frames = fc.sample(layoutFrame, { seed: SEED + 4, numRuns: 12 });
    let cases = 0;
    for (const frame of frames) {
      const base = JSON.parse(writeServerFrame(frame)) as object;
      const n = containers(base).length;
      for (let c = 0; c < n; c++) {
        const keyCount = Object.keys(containers(base)[c]!).length;
        for (let k = 0; k < keyCount; k++) {
          for (const bad of BAD_VALUES) {
            expectSame(JSON.stringify(mutateObject(base, { kind: 'badValue', pick: c, pick2: k, bad, channel: 'foo' })));
            cases++;
          }
          expectSame(JSON.stringify(mutateObject(base, { kind: 'dropKey', pick: c, pick2: k, bad: null, channel: 'foo' })));
        }
        expectSame(JSON.stringify(mutateObject(base, { kind: 'extraKey', pick: c, pick2: 0, bad: '1', channel: 'foo' })));
      }
    }
    expect(cases).toBeGreaterThan(600);
  });

  it('reads integers, Int64 and Uint64 at their bounds as the schemas do; other number forms go to the schema path', () => {
    const candle = (open: string, trades: string) => `{"type":"update","subscription_id":"1","channel":"candles","seq":"1","timestamp_ns":"5","data":{"open_time_ms":0,"open":"${open}","high":"1","low":"1","close":"1","volume_base":"1","volume_quote":"1","trades":${trades}}}`;
    expect(scanLayoutUpdate(candle(MAX, '9007199254740991'))?.data).toMatchObject({ open: MAX, trades: 9007199254740991 });
    for (const trades of ['9007199254740992', '-1', '-0', '1.0', '1e2', '01', '0x1', '1.5']) {
      expect(scanLayoutUpdate(candle('1', trades))).toBeUndefined();
      expectSame(candle('1', trades));
    }
    expect(scanLayoutUpdate(candle('18446744073709551616', '1'))).toBeUndefined();
    expectSame(candle('18446744073709551616', '1'));
    const funding = (long: string) => `{"type":"update","subscription_id":"1","channel":"fundingRates","seq":"1","timestamp_ns":"5","data":{"timestamp_ns":"1","sequence":"2","market_id":0,"funding_rate_100th_bps":-2147483648,"long_cumulative_funding_quote_lots":"${long}","short_cumulative_funding_quote_lots":"0"}}`;
    for (const long of ['-9223372036854775808', '9223372036854775807', '-0', '007']) expect(scanLayoutUpdate(funding(long))?.data).toMatchObject({ long_cumulative_funding_quote_lots: long });
    for (const long of ['-9223372036854775809', '9223372036854775808', '-', '', '1-', '--1']) {
      expect(scanLayoutUpdate(funding(long))).toBeUndefined();
      expectSame(funding(long));
    }
  });

  it('leaves an unknown key to the schema path, which drops and reports it (or rejects it when strict)', () => {
    const text = '{"type":"update","subscription_id":"1","channel":"balances","seq":"1","timestamp_ns":"5","data":{"balances":[{"token_id":"USDC","total_token_atoms":"1","locked_token_atoms":"0","deposited_token_atoms":"1","withdrawn_token_atoms":"0","new":1}]}}';
    expect(scanUpdate(text)).toBeUndefined();
    const drift: DriftReport[] = [];
    expect(decodeAndValidate(text, { onDrift: (d) => drift.push(d) })).toMatchObject({ ok: true, dataValidated: true });
    expect(drift).toEqual([{ path: 'data.balances[0]', keys: ['new'] }]);
    expect(decodeAndValidate(text, { strict: true })).toMatchObject({ ok: false, reason: 'data' });
    expectSame(text);
  });
});
