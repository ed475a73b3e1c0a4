import fc from 'fast-check';
import type * as z from 'zod/mini';
import { responseSchema } from '../../src/protocol/envelope';
import { FAST_RESPONSE_DECODERS, fastResponseDecoder, scanOrderBookResponse } from '../../src/protocol/fastDecodeSnapshot';
import { UINT64_MAX } from '../../src/protocol/scalars';
import { validateWithDrift, type DriftReport } from '../../src/protocol/validate';

const MAX = UINT64_MAX.toString();
const SEED = 20261122;
const SCHEMA = responseSchema('orderBook');

// ---- generators ------------------------------------------------------------

const uint64 = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: UINT64_MAX }).map(String) },
  { weight: 2, arbitrary: fc.nat().map(String) },
  { weight: 3, arbitrary: fc.constantFrom('0', '1', MAX, '18446744073709551614', '9007199254740993', '00000000000000000001', '000000000000000000001', '007') },
);
const level = fc.record({ price_ticks: uint64, size_base_lots: uint64 });
const levels = fc.array(level, { maxLength: 6 });
/** Answers as plain objects, in one of the two orders of the envelope scalars. */
const answer = fc.record({ bids: levels, asks: levels, seq: uint64, ts: uint64, sequenceFirst: fc.boolean() }).map(({ bids, asks, seq, ts, sequenceFirst }) =>
  sequenceFirst ? { data: { bids, asks }, sequence: seq, timestamp_ns: ts } : { data: { bids, asks }, timestamp_ns: ts, sequence: seq },
);

const BAD_VALUES: unknown[] = [-1, 1, 1.5, '-1', '+1', '1e3', '', ' 1', '0x10', '1.0', '１', 'abc', '18446744073709551616', '99999999999999999999', null, true, {}, [], [1]];
const KNOWN_KEYS = ['data', 'timestamp_ns', 'sequence', 'next_cursor', 'bids', 'asks', 'price_ticks', 'size_base_lots', 'extra', '__proto__'];

function containers(v: unknown, out: (Record<string, unknown> | unknown[])[] = []): (Record<string, unknown> | unknown[])[] {
  if (v && typeof v === 'object') {
    out.push(v as Record<string, unknown>);
    for (const child of Object.values(v)) containers(child, out);
  }
  return out;
}

const objectMutation = fc.record({
  kind: fc.constantFrom('badValue', 'extraKey', 'dropKey', 'shuffle'),
  pick: fc.nat(),
  pick2: fc.nat(),
  bad: fc.constantFrom(...BAD_VALUES),
});
type ObjectMutation = typeof objectMutation extends fc.Arbitrary<infer T> ? T : never;

function mutateObject(value: unknown, m: ObjectMutation): unknown {
  const copy = structuredClone(value);
  const all = containers(copy);
  const target = all[m.pick % all.length]!;
  const keys = Object.keys(target);
  if (m.kind === 'badValue' && keys.length) (target as Record<string, unknown>)[keys[m.pick2 % keys.length]!] = m.bad;
  else if (m.kind === 'extraKey') {
    if (Array.isArray(target)) target.push(m.bad);
    else target[KNOWN_KEYS[m.pick2 % KNOWN_KEYS.length]!] = m.bad;
  } else if (m.kind === 'dropKey' && keys.length && !Array.isArray(target)) delete target[keys[m.pick2 % keys.length]!];
  else if (m.kind === 'shuffle' && !Array.isArray(target) && keys.length > 1) {
    const entries = Object.entries(target);
    for (const k of keys) delete target[k];
    const rot = 1 + (m.pick2 % (entries.length - 1));
    for (const [k, v] of [...entries.slice(rot), ...entries.slice(0, rot)]) target[k] = v;
  }
  return copy;
}

const textMutation = fc.record({
  kind: fc.constantFrom('truncate', 'whitespace', 'escape', 'char', 'dupFirst', 'dupLast', 'trailing'),
  at: fc.nat(),
  ch: fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', '0', '9', 'a', ' ', '\u0000', '-', 'n', '\n', 'é'),
  key: fc.constantFrom(...KNOWN_KEYS),
  value: fc.oneof(uint64, fc.constantFrom(...BAD_VALUES)),
});
type TextMutation = typeof textMutation extends fc.Arbitrary<infer T> ? T : never;

function nthIndex(text: string, ch: string, n: number): number {
  const all: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === ch) all.push(i);
  return all.length ? all[n % all.length]! : -1;
}

function mutateText(text: string, m: TextMutation): string {
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
    default: {
      // A duplicated key at the start (JSON.parse keeps the original, later one) or at the end (kept) of an object.
      const pair = `"${m.key}":${JSON.stringify(m.value)}`;
      const first = m.kind === 'dupFirst';
      const idx = first ? nthIndex(text, '{', m.at) : nthIndex(text, '}', m.at);
      if (idx < 0) return text;
      const empty = first ? text[idx + 1] === '}' : text[idx - 1] === '{';
      return first ? text.slice(0, idx + 1) + pair + (empty ? '' : ',') + text.slice(idx + 1) : text.slice(0, idx) + (empty ? '' : ',') + pair + text.slice(idx);
    }
  }
}

// ---- the comparison ----------------------------------------------------------

type Outcome = { ok: true; value: unknown; drift: DriftReport[] } | { ok: false };

/** The reference: JSON.parse + the strict response schema with the drift policy. */
function schemaPath(text: string, strict: boolean): Outcome {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  const drift: DriftReport[] = [];
  const r = validateWithDrift(SCHEMA, raw, { strict, onDrift: (d) => drift.push(d) });
  return r.ok ? { ok: true, value: r.value, drift } : { ok: false };
}

/** What a caller of the fast path sees: the scanner, else the reference. */
function fastPath(text: string, strict: boolean): Outcome {
  const v = scanOrderBookResponse(text);
  return v === undefined ? schemaPath(text, strict) : { ok: true, value: v, drift: [] };
}

/** Returns whether the scanner took the text. */
function expectSame(text: string): boolean {
  const scanned = scanOrderBookResponse(text);
  for (const strict of [true, false]) {
    const fast = fastPath(text, strict);
    const slow = schemaPath(text, strict);
    expect(fast).toEqual(slow);
    // The scanner only takes what the strict schema accepts as is: no drift, same value.
    if (scanned !== undefined) expect(slow).toEqual({ ok: true, value: scanned, drift: [] });
  }
  return scanned !== undefined;
}

const canonical = (v: unknown) => JSON.stringify(v);

// ---- tests ---------------------------------------------------------------------

describe('fastDecodeSnapshot', () => {
  it('mirrors the response schema: the envelope keys the pattern reads', () => {
    expect(Object.keys((SCHEMA as z.ZodMiniObject).shape).sort()).toEqual(['data', 'sequence', 'timestamp_ns']);
  });

  it('takes every valid answer in the server form (both key orders), with the schema value', () => {
    let taken = 0;
    fc.assert(
      fc.property(answer, (a) => {
        const text = canonical(a);
        const narrow = !text.match(/"\d{21,}"/);
        const valid = schemaPath(text, true).ok;
        if (expectSame(text)) taken++;
        if (valid && narrow) expect(scanOrderBookResponse(text)).toEqual(JSON.parse(text));
      }),
      { seed: SEED, numRuns: 400 },
    );
    expect(taken).toBeGreaterThan(200);
  });

  it('agrees with the schema path on object-level mutations (bad values, extra and missing keys, other orders)', () => {
    fc.assert(
      fc.property(answer, objectMutation, (a, m) => {
        expectSame(canonical(mutateObject(a, m)));
      }),
      { seed: SEED + 1, numRuns: 600 },
    );
  });

  it('agrees with the schema path on text-level mutations (truncation, whitespace, escapes, duplicated keys)', () => {
    fc.assert(
      fc.property(answer, textMutation, (a, m) => {
        expectSame(mutateText(canonical(a), m));
      }),
      { seed: SEED + 2, numRuns: 800 },
    );
  });

  it('agrees on every single-leaf, extra-key and missing-key mutation of one answer', () => {
    const lv = { price_ticks: '12', size_base_lots: MAX };
    const a = { data: { bids: [lv, { ...lv, price_ticks: '11' }], asks: [{ ...lv, price_ticks: '13' }] }, sequence: '9007199254740993', timestamp_ns: '1732200000000000000' };
    expect(expectSame(canonical(a))).toBe(true);
    let cases = 0;
    const n = containers(a).length;
    for (let c = 0; c < n; c++) {
      const keyCount = Object.keys(containers(a)[c]!).length;
      for (let k = 0; k < keyCount; k++) {
        for (const bad of BAD_VALUES) {
          expectSame(canonical(mutateObject(a, { kind: 'badValue', pick: c, pick2: k, bad })));
          cases++;
        }
        expectSame(canonical(mutateObject(a, { kind: 'dropKey', pick: c, pick2: k, bad: null })));
      }
      for (let k = 0; k < KNOWN_KEYS.length; k++) {
        // An extra key always goes to the schema path, so drift is reported (or refused) exactly as before.
        const target = containers(a)[c]!;
        const added = Array.isArray(target) || !(KNOWN_KEYS[k]! in target);
        const taken = expectSame(canonical(mutateObject(a, { kind: 'extraKey', pick: c, pick2: k, bad: '1' })));
        if (added) expect(taken).toBe(false);
      }
      expectSame(canonical(mutateObject(a, { kind: 'shuffle', pick: c, pick2: 0, bad: null })));
    }
    expect(cases).toBeGreaterThan(100);
    const drift = schemaPath(canonical({ ...a, data: { ...a.data, mid: '1' } }), false);
    expect(drift).toMatchObject({ ok: true, drift: [{ path: 'data', keys: ['mid'] }] });
  });

  it('agrees on arbitrary JSON and on arbitrary text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string({ unit: 'binary', maxLength: 40 })), (text) => {
        expectSame(text);
      }),
      { seed: SEED + 3, numRuns: 300 },
    );
  });

  it('handles the Uint64 boundaries exactly, in the levels and in the envelope', () => {
    const text = (seq: string, size = '2') => `{"data":{"bids":[{"price_ticks":"1","size_base_lots":"${size}"}],"asks":[]},"sequence":"${seq}","timestamp_ns":"5"}`;
    expect(scanOrderBookResponse(text(MAX))?.sequence).toBe(MAX);
    expect(scanOrderBookResponse(text('00000000000000000001'))?.sequence).toBe('00000000000000000001');
    for (const bad of ['18446744073709551616', '99999999999999999999', '000000000000000000001']) {
      expect(scanOrderBookResponse(text(bad))).toBeUndefined();
      expect(scanOrderBookResponse(text('1', bad))).toBeUndefined();
      expectSame(text(bad));
      expectSame(text('1', bad));
    }
    expect(schemaPath(text('18446744073709551616'), false).ok).toBe(false);
    expect(schemaPath(text('000000000000000000001'), true).ok).toBe(true);
  });

  it('reads a full 500/500-level answer as the schema path does', () => {
    const side = (base: number, step: number) => Array.from({ length: 500 }, (_, i) => ({ price_ticks: String(base + i * step), size_base_lots: String(1 + ((i * 7919) % 100_003)) }));
    const a = { data: { bids: side(100_000, -1), asks: side(100_001, 1) }, sequence: '123456', timestamp_ns: '1732200000000000000' };
    const text = canonical(a);
    expect(expectSame(text)).toBe(true);
    expect(scanOrderBookResponse(text)).toEqual(a);
  });

  it('offers its decoder through the per-operation table only for orderBook', () => {
    expect(Object.keys(FAST_RESPONSE_DECODERS)).toEqual(['orderBook']);
    expect(fastResponseDecoder('orderBook')).toBe(scanOrderBookResponse);
    expect(fastResponseDecoder('trades')).toBeUndefined();
    expect(fastResponseDecoder('toString' as never)).toBeUndefined();
  });
});
