/**
 * A `book` update, or an `orderBook` answer, whose bids (or asks) list the same price twice
 * is invalid (streaming-protocol.md section 3: no level appears twice in one update) and is
 * rejected by both decode paths: the fast readers (pattern path and token path) do not take
 * it, the schema path rejects it, naming the side and the price. The same price spelled with
 * leading zeros (`Uint64` allows them) is the same price.
 */
import fc from 'fast-check';
import { CHANNELS, OrderBook, responseSchema, type PriceLevel } from '../../src/protocol';
import { decodeAndValidate, decodeAndValidateWithSchemas, fastDecodeServerFrame, scanHotUpdate } from '../../src/protocol/fastDecode';
import { readHotUpdate, readOrderBookResponse } from '../../src/protocol/fastDecodeRecords';
import { scanOrderBookResponse } from '../../src/protocol/fastDecodeSnapshot';
import { summarizeZodError, validateWithDrift } from '../../src/protocol/validate';
import { ResponseValidationError } from '../../src/errors';
import { interpretResponse } from '../../src/rest/interpretResponse';

const L = (p: string, s = '1'): PriceLevel => ({ price_ticks: p, size_base_lots: s });
const range = (from: number, n: number, step: number): PriceLevel[] => Array.from({ length: n }, (_, i) => L(String(from + i * step), String(i + 1)));

interface Case {
  readonly what: string;
  readonly data: { bids: PriceLevel[]; asks: PriceLevel[] };
  /** Where the rejection points. */
  readonly path: string;
  /** What the rejection must say. */
  readonly says: string;
}

const CASES: Case[] = [
  { what: 'a bid listed twice', data: { bids: [L('99', '4'), L('99', '7')], asks: [L('101')] }, path: 'bids[1].price_ticks', says: 'price 99 appears twice in bids (bids[0] and bids[1])' },
  { what: 'an ask listed twice, apart', data: { bids: [], asks: [L('101'), L('102'), L('103'), L('101', '0')] }, path: 'asks[3].price_ticks', says: 'price 101 appears twice in asks (asks[0] and asks[3])' },
  { what: 'the same price spelled "7" and "007"', data: { bids: [L('7', '2'), L('007', '3')], asks: [] }, path: 'bids[1].price_ticks', says: 'price 7 appears twice in bids (bids[0] "7" and bids[1] "007")' },
  { what: 'zero spelled "0" and "00"', data: { bids: [], asks: [L('00'), L('5'), L('0')] }, path: 'asks[2].price_ticks', says: 'price 0 appears twice in asks (asks[0] "00" and asks[2] "0")' },
  { what: 'a repeat at the end of a long side, best first', data: { bids: [...range(5000, 40, -2), L('5000', '9')], asks: [] }, path: 'bids[40].price_ticks', says: 'price 5000 appears twice in bids (bids[0] and bids[40])' },
  { what: 'a repeat in a long unordered side', data: { bids: [], asks: [...range(200, 20, 3), ...range(201, 20, 3), L('230')] }, path: 'asks[40].price_ticks', says: 'price 230 appears twice in asks (asks[10] and asks[40])' },
];

/** Valid: the same price on both sides (crossing is the book's business), a padded price that repeats nothing. */
const VALID = { bids: [L('100'), L('99')], asks: [L('100'), L('0101', '2')] };

const updateText = (data: unknown, id = '12') => `{"type":"update","subscription_id":"${id}","channel":"book","seq":"41","timestamp_ns":"1732200000000000000","data":${JSON.stringify(data)}}`;
const answerText = (data: unknown) => `{"data":${JSON.stringify(data)},"sequence":"41","timestamp_ns":"1732200000000000000"}`;

describe('a book update listing a price twice on a side', () => {
  describe.each(CASES)('$what', ({ data, path, says }) => {
    const text = updateText(data);

    it('is not taken by the fast decoder (pattern path and token path)', () => {
      expect(scanHotUpdate(text)).toBeUndefined();
      expect(readHotUpdate(text, true)).toBeUndefined();
      expect(readHotUpdate(text, false)).toBeUndefined();
    });

    it('is rejected by the decoder the router calls and by decodeAndValidate, naming the side and the price', () => {
      // The envelope is fine: the router validates `data` against the channel's schema (dataValidated false).
      const routed = fastDecodeServerFrame(text);
      expect(routed.ok && routed.dataValidated).toBe(false);
      const r = decodeAndValidate(text);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.reason).toBe('data');
      expect(r.message).toContain(`${path}: ${says}`);
      expect(decodeAndValidate(text, { strict: true })).toEqual(decodeAndValidateWithSchemas(text, { strict: true }));
    });

    it('is rejected by the schema path (the channel schema, strict or dropping unknown keys), naming the side and the price', () => {
      const r = decodeAndValidateWithSchemas(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toContain(`${path}: ${says}`);
      for (const strict of [true, false]) {
        const v = validateWithDrift(CHANNELS.book.data, structuredClone(data), { strict });
        expect(v.ok).toBe(false);
        if (!v.ok) expect(summarizeZodError(v.error)).toContain(`${path}: ${says}`);
      }
      expect(CHANNELS.book.data).toBe(OrderBook);
    });
  });

  it('is rejected also when it carries an unknown key the drift policy drops', () => {
    const v = validateWithDrift(OrderBook, { bids: [L('9'), L('9')], asks: [], extra: 1 }, { strict: false });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(summarizeZodError(v.error)).toContain('price 9 appears twice in bids');
  });

  it('reports only the bad values when the repeated price is not a Uint64 anyway', () => {
    const v = validateWithDrift(OrderBook, { bids: [L('-1'), L('-1')], asks: [] });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(summarizeZodError(v.error)).not.toContain('twice');
  });

  it('leaves every other book update to both paths as before: the same price on both sides is taken', () => {
    const text = updateText(VALID);
    expect(scanHotUpdate(text)).toEqual(JSON.parse(text));
    expect(readHotUpdate(text, false)).toEqual(JSON.parse(text));
    expect(decodeAndValidateWithSchemas(text, { strict: true })).toEqual({ ok: true, frame: JSON.parse(text), data: VALID, dataValidated: true });
  });

  it('takes different prices that round to the same double (above 2^53), few or many, in order or not', () => {
    const near = ['9007199254740993', '9007199254740992', '9007199254740995', '9007199254740994'];
    for (const bids of [near, [...near].reverse(), [...near, ...range(100, 10, -1).map((l) => l.price_ticks)], ['18446744073709551615', '18446744073709551614']]) {
      const data = { bids: bids.map((p) => L(p)), asks: [] };
      const text = updateText(data);
      expect(scanHotUpdate(text)).toEqual(JSON.parse(text));
      expect(readHotUpdate(text, false)).toEqual(JSON.parse(text));
      expect(scanOrderBookResponse(answerText(data))).toEqual(JSON.parse(answerText(data)));
    }
  });

  it('is decided alike by both paths on any side: few or many levels, in order or not, padded or near 2^53 (property)', () => {
    const value = fc.oneof(
      fc.integer({ min: 0, max: 12 }).map(String),
      fc.constantFrom('9007199254740991', '9007199254740992', '9007199254740993', '9007199254740994', '18446744073709551615', '18446744073709551614'),
      fc.integer({ min: 0, max: 12 }).map((v) => `0${v}`),
    );
    const sideArb = fc.tuple(fc.array(value, { maxLength: 14 }), fc.constantFrom('as is', 'ascending', 'descending')).map(([prices, order]) => {
      const sorted = order === 'as is' ? prices : [...prices].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
      return (order === 'descending' ? sorted.reverse() : sorted).map((p) => L(p));
    });
    const repeats = (levels: PriceLevel[]) => new Set(levels.map((l) => BigInt(l.price_ticks))).size !== levels.length;
    let rejected = 0;
    fc.assert(
      fc.property(sideArb, sideArb, (bids, asks) => {
        const text = updateText({ bids, asks });
        const valid = !repeats(bids) && !repeats(asks);
        expect(scanHotUpdate(text) !== undefined).toBe(valid);
        expect(readHotUpdate(text, false) !== undefined).toBe(valid);
        expect(scanOrderBookResponse(answerText({ bids, asks })) !== undefined).toBe(valid);
        expect(decodeAndValidate(text, { strict: true })).toEqual(decodeAndValidateWithSchemas(text, { strict: true }));
        if (!valid) rejected++;
      }),
      { seed: 20261129, numRuns: 1500 },
    );
    expect(rejected).toBeGreaterThan(300);
  });
});

describe('an orderBook answer listing a price twice on a side', () => {
  describe.each(CASES)('$what', ({ data, path, says }) => {
    const text = answerText(data);

    it('is not taken by the fast decoder (pattern path and token path)', () => {
      expect(scanOrderBookResponse(text)).toBeUndefined();
      expect(readOrderBookResponse(text, true)).toBeUndefined();
      expect(readOrderBookResponse(text, false)).toBeUndefined();
    });

    it('is rejected by the response schema, naming the side and the price', () => {
      for (const strict of [true, false]) {
        const v = validateWithDrift(responseSchema('orderBook'), JSON.parse(text), { strict });
        expect(v.ok).toBe(false);
        if (!v.ok) expect(summarizeZodError(v.error)).toContain(`data.${path}: ${says}`);
      }
    });

    it('makes the REST client throw ResponseValidationError (ERR_RESPONSE_INVALID), through the fast decoder or without it', () => {
      for (const fast of [undefined, null]) {
        let thrown: unknown;
        try {
          interpretResponse('orderBook', { status: 200, text }, {}, fast);
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(ResponseValidationError);
        expect((thrown as ResponseValidationError).code).toBe('ERR_RESPONSE_INVALID');
        expect((thrown as ResponseValidationError).message).toContain(`data.${path}: ${says}`);
      }
    });
  });

  it('still takes a valid answer on the fast path', () => {
    const data = { bids: range(5000, 500, -1), asks: range(5001, 500, 1) };
    const text = answerText(data);
    expect(scanOrderBookResponse(text)).toEqual(JSON.parse(text));
    expect(readOrderBookResponse(text, false)).toEqual(JSON.parse(text));
  });
});
