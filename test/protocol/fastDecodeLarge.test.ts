/**
 * The fast decoders at any size: a book of 900k levels or a frame of 200k trades decodes (a
 * whole-text pattern overflowed V8's backtracking stack there and threw a raw RangeError),
 * nothing throws, and the token-by-token path taken beyond PATTERN_TEXT_LIMIT accepts exactly
 * what the pattern path accepts, with the same values.
 */
import fc from 'fast-check';
import { $ZodError } from 'zod/v4/core';
import * as z from 'zod/mini';
import { decodeAndValidate, decodeAndValidateWithSchemas, fastDecodeServerFrame, scanHotUpdate } from '../../src/protocol/fastDecode';
import { readHotUpdate, readOrderBookResponse } from '../../src/protocol/fastDecodeRecords';
import { PATTERN_TEXT_LIMIT } from '../../src/protocol/fastDecodeShapes';
import { fastResponseDecoder, scanOrderBookResponse } from '../../src/protocol/fastDecodeSnapshot';
import { UINT64_MAX } from '../../src/protocol/scalars';
import { summarizeZodError, validateWithDrift } from '../../src/protocol/validate';
import { propertyRuns } from '../helpers/propertyRuns';

const MAX = UINT64_MAX.toString();
const SEED = 20260611;

// ---- big texts, built with loops ---------------------------------------------------

/** `n` levels, `{"price_ticks":...}` joined by commas; some values at the 2^64 - 1 edge. */
function levelsText(n: number, base: number): string {
  const parts = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const price = i % 100_000 === 0 ? (UINT64_MAX - BigInt(i)).toString() : String(base + i);
    parts[i] = `{"price_ticks":"${price}","size_base_lots":"${((i * 7919) % 100_000) + 1}"}`;
  }
  return parts.join(',');
}

function tradesText(n: number): string {
  const parts = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    parts[i] = `{"timestamp_ns":"${1_732_200_000_000_000_000n + BigInt(i)}","sequence":"${i + 1}","price_ticks":"${6_500_000 + (i % 977)}","size_base_lots":"${(i % 13) + 1}","quote_notional_lots":"${i === 7 ? MAX : (6_500_000 + (i % 977)) * ((i % 13) + 1)}","taker_is_bid":${i % 3 === 0 ? 'true' : 'false'}}`;
  }
  return parts.join(',');
}

const updateText = (channel: string, data: string, id = '12') => `{"type":"update","subscription_id":"${id}","channel":"${channel}","seq":"9007199254740993","timestamp_ns":"1732200000000000000","data":${data}}`;

/** Exact equality with `JSON.parse(text)`, keys order included, without a slow deep compare of a million objects. */
function expectSameAsJsonParse(value: unknown, text: string): void {
  const parsed: unknown = JSON.parse(text);
  expect(JSON.stringify(value) === JSON.stringify(parsed)).toBe(true);
}

/** Runs `fn`, failing the test with the error's name if it throws anything at all. */
function noThrow<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new Error(`threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
}

describe('fast decoders at any size', () => {
  const HALF = 450_000; // 900k levels: a ~46 MB answer
  let bids = '';
  let asks = '';
  beforeAll(() => {
    bids = levelsText(HALF, 1_000_000);
    asks = levelsText(HALF, 2_000_000);
  });

  it('loads a 900k-level orderBook answer through the REST fast decoder, equal to JSON.parse (no RangeError)', () => {
    // `timestamp_ns` before `sequence`: the schema's key order, so the decoded value stringifies back to the text.
    const text = `{"data":{"bids":[${bids}],"asks":[${asks}]},"timestamp_ns":"1732200000000000000","sequence":"77"}`;
    expect(text.length).toBeGreaterThan(40_000_000);
    const decode = fastResponseDecoder('orderBook');
    expect(decode).toBe(scanOrderBookResponse);
    const answer = noThrow(() => decode!(text)) as { data: { bids: unknown[]; asks: unknown[] }; sequence: string } | undefined;
    expect(answer).toBeDefined();
    expect(answer!.data.bids.length).toBe(HALF);
    expect(answer!.data.asks.length).toBe(HALF);
    expect(answer!.sequence).toBe('77');
    expectSameAsJsonParse(answer, text);
  }, 60_000);

  it('gives a 900k-level answer it cannot take back to the schema path, without throwing', () => {
    const head = `{"data":{"bids":[${bids}],"asks":[${asks}]}`;
    // Above 2^64 - 1 in the very last value, a space before the end, the other key order but a bad key.
    for (const tail of [',"sequence":"77","timestamp_ns":"18446744073709551616"}', ',"sequence":"77","timestamp_ns":"1" }', ',"sequence":"77","timestamp":"1"}']) {
      expect(noThrow(() => scanOrderBookResponse(head + tail))).toBeUndefined();
    }
  }, 60_000);

  it('decodes a 900k-level book update on the fast path, equal to JSON.parse (no RangeError)', () => {
    const text = updateText('book', `{"bids":[${bids}],"asks":[${asks}]}`);
    const r = noThrow(() => decodeAndValidate(text));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.dataValidated).toBe(true);
    expect((r.data as { bids: unknown[] }).bids.length).toBe(HALF);
    expectSameAsJsonParse(r.frame, text);
    // The router's decoder: the same fast path.
    const f = noThrow(() => fastDecodeServerFrame(text));
    expect(f.ok && f.dataValidated).toBe(true);
    // A bad value in the last level: not taken, and not thrown.
    expect(noThrow(() => scanHotUpdate(text.slice(0, -4) + 'x"}]}}'))).toBeUndefined();
  }, 60_000);

  it('decodes 200k trades in one update frame on the fast path, equal to JSON.parse (no RangeError)', () => {
    const text = updateText('trades', `{"trades":[${tradesText(200_000)}]}`);
    const r = noThrow(() => decodeAndValidate(text));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.dataValidated).toBe(true);
    expect((r.data as { trades: unknown[] }).trades.length).toBe(200_000);
    expectSameAsJsonParse(r.frame, text);
  }, 60_000);
});

// ---- the token path against the pattern path -----------------------------------------

const uint64 = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: UINT64_MAX }).map(String) },
  { weight: 2, arbitrary: fc.nat().map(String) },
  { weight: 3, arbitrary: fc.constantFrom('0', MAX, '18446744073709551614', '00000000000000000001') },
  // Rejected by the schema: above 2^64 - 1, 21 digits, empty.
  { weight: 1, arbitrary: fc.constantFrom('18446744073709551616', '99999999999999999999', '000000000000000000001', '') },
);
const level = fc.record({ price_ticks: uint64, size_base_lots: uint64 });
const levels = fc.array(level, { maxLength: 4 });
const trade = fc.record({ timestamp_ns: uint64, sequence: uint64, price_ticks: uint64, size_base_lots: uint64, quote_notional_lots: uint64, taker_is_bid: fc.boolean() });
const subscriptionId = fc.oneof({ weight: 5, arbitrary: fc.nat().map(String) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) });
const hotFrame = fc
  .record({
    sub: subscriptionId,
    seq: uint64,
    ts: uint64,
    cd: fc.oneof(
      fc.record({ bids: levels, asks: levels }).map((data) => ({ channel: 'book', data: data as unknown })),
      fc.record({ bid: fc.option(level, { nil: null }), ask: fc.option(level, { nil: null }) }).map((data) => ({ channel: 'bbo', data: data as unknown })),
      fc.record({ trades: fc.array(trade, { maxLength: 3 }) }).map((data) => ({ channel: 'trades', data: data as unknown })),
    ),
  })
  .map(({ sub, seq, ts, cd }) => ({ type: 'update', subscription_id: sub, channel: cd.channel, seq, timestamp_ns: ts, data: cd.data }));
const answer = fc.record({ bids: levels, asks: levels, seq: uint64, ts: uint64, sequenceFirst: fc.boolean() }).map(({ bids, asks, seq, ts, sequenceFirst }) =>
  sequenceFirst ? { data: { bids, asks }, sequence: seq, timestamp_ns: ts } : { data: { bids, asks }, timestamp_ns: ts, sequence: seq },
);

/** Text-level mutations: truncation, a stray or replaced character, whitespace, a key renamed. */
const textMutation = fc.record({
  kind: fc.oneof({ weight: 3, arbitrary: fc.constant('none') }, { weight: 5, arbitrary: fc.constantFrom('truncate', 'insert', 'replace', 'delete', 'rename') }),
  at: fc.nat(),
  ch: fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', '0', '9', 'a', ' ', '\u0000', '-', 'n', 't', 'f', 'u', 'l', 'e', 'é'),
});

function mutate(text: string, m: { kind: string; at: number; ch: string }): string {
  const i = m.at % (text.length + 1);
  switch (m.kind) {
    case 'truncate':
      return text.slice(0, i);
    case 'insert':
      return text.slice(0, i) + m.ch + text.slice(i);
    case 'replace':
      return text.slice(0, i) + m.ch + text.slice(i + 1);
    case 'delete':
      return text.slice(0, i) + text.slice(i + 1);
    case 'rename': {
      // Swap two neighbouring characters (keys and values alike).
      if (i + 1 >= text.length) return text;
      return text.slice(0, i) + text[i + 1] + text[i] + text.slice(i + 2);
    }
  }
  return text;
}

/** Also mutate the value before writing it: keys dropped, added, reordered; `null` and booleans swapped. */
const valueMutation = fc.record({ kind: fc.oneof({ weight: 3, arbitrary: fc.constant('none') }, { weight: 2, arbitrary: fc.constantFrom('drop', 'add', 'reorder', 'swap') }), pick: fc.nat() });

function mutateValue(value: unknown, m: { kind: string; pick: number }): unknown {
  const copy = structuredClone(value);
  const all: Record<string, unknown>[] = [];
  const walk = (v: unknown) => {
    if (v && typeof v === 'object') {
      if (!Array.isArray(v)) all.push(v as Record<string, unknown>);
      for (const c of Object.values(v)) walk(c);
    }
  };
  walk(copy);
  const target = all[m.pick % all.length]!;
  const keys = Object.keys(target);
  const key = keys[m.pick % Math.max(1, keys.length)];
  if (key === undefined) return copy;
  if (m.kind === 'drop') delete target[key];
  else if (m.kind === 'add') target.extra = '1';
  else if (m.kind === 'reorder') {
    const v = target[key];
    delete target[key];
    target[key] = v;
  } else if (m.kind === 'swap') target[key] = target[key] === null ? false : target[key] === true ? null : target[key] === false ? true : null;
  return copy;
}

describe('the token path (texts above PATTERN_TEXT_LIMIT) reads exactly what the pattern path reads', () => {
  const RUNS = propertyRuns(1200);
  // A tenth of the cases at least reach the fast path (the rest are mutated past it).
  const TAKEN = RUNS / 10;

  it('on valid and mutated update frames', () => {
    let taken = 0;
    fc.assert(
      fc.property(hotFrame, valueMutation, textMutation, (frame, vm, tm) => {
        const text = mutate(JSON.stringify(mutateValue(frame, vm)), tm);
        const byPattern = scanHotUpdate(text);
        expect(readHotUpdate(text, false)).toEqual(byPattern);
        if (byPattern !== undefined) {
          taken++;
          const slow = decodeAndValidateWithSchemas(text, { strict: true });
          expect(slow.ok && slow.frame).toEqual(byPattern);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(taken).toBeGreaterThan(TAKEN);
  });

  it('on valid and mutated orderBook answers', () => {
    let taken = 0;
    fc.assert(
      fc.property(answer, valueMutation, textMutation, (value, vm, tm) => {
        const text = mutate(JSON.stringify(mutateValue(value, vm)), tm);
        const byPattern = scanOrderBookResponse(text);
        expect(readOrderBookResponse(text, false)).toEqual(byPattern);
        if (byPattern !== undefined) taken++;
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
    expect(taken).toBeGreaterThan(TAKEN);
  });

  it('takes the token path beyond the limit, the pattern path up to it, with the same results', () => {
    const data = '{"bids":[{"price_ticks":"5","size_base_lots":"1"}],"asks":[]}';
    const bare = updateText('book', data, '');
    for (const length of [PATTERN_TEXT_LIMIT - 1, PATTERN_TEXT_LIMIT, PATTERN_TEXT_LIMIT + 1, PATTERN_TEXT_LIMIT + 2]) {
      // A long subscription id brings the frame to `length` characters.
      const text = updateText('book', data, 'i'.repeat(length - bare.length));
      expect(text.length).toBe(length);
      const hot = scanHotUpdate(text);
      expect(hot).toBeDefined();
      expect(hot).toEqual(JSON.parse(text));
      // Mutations near the end of a long frame: not taken by the fast path, the schema path decides the same either way.
      for (const bad of [text.slice(0, -1) + ' }', text.replace('"size_base_lots":"1"', '"size_base_lots":"18446744073709551616"'), text.replace('"asks":[]', '"asks":[],"x":1'), text + '\n']) {
        expect(scanHotUpdate(bad)).toBeUndefined();
        expect(decodeAndValidate(bad, { strict: true })).toEqual(decodeAndValidateWithSchemas(bad, { strict: true }));
      }
    }
  });
});

describe('validation never throws', () => {
  it('turns anything a schema throws into a rejection, the thrown error as cause', () => {
    const overflow = new RangeError('Maximum call stack size exceeded');
    const schema = z.pipe(
      z.string(),
      z.transform(() => {
        throw overflow;
      }),
    );
    const r = validateWithDrift(schema, 'x');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf($ZodError);
    expect(r.error.cause).toBe(overflow);
    expect(summarizeZodError(r.error)).toBe('(root): the value could not be validated: RangeError: Maximum call stack size exceeded');
  });
});
