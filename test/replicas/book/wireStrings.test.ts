/**
 * Wire values (issue item 11): `applyLevels` and `fromSnapshot` take a price or size only as
 * a Uint64 string (`^[0-9]+$`, as the protocol's `Uint64`, at most 2^64 - 1), at its exact
 * value, and throw `ReplicaIntegrityError` for anything else, leaving the book unchanged:
 * no `'0x10'`, `'1e3'`, `' 20'`, `'0b11'`, `'+5'`, `'1.0'`, ... on either path.
 */
import fc from 'fast-check';
import type { PriceLevel, Side } from '../../../src/protocol';
import { OrderBook } from '../../../src/replicas/book';
import { ReplicaIntegrityError } from '../../../src/replicas/ReplicaIntegrityError';
import { L, TWO_53, UINT64_MAX, weirdNumberArb } from './bookTestUtil';

const isUint64 = (s: string) => /^[0-9]+$/.test(s) && BigInt(s) <= UINT64_MAX;

/** Weird strings, plus digit strings around the limits. */
const valueArb = fc.oneof(
  { weight: 4, arbitrary: weirdNumberArb },
  { weight: 1, arbitrary: fc.bigInt(0n, 2n ** 65n).map((v) => v.toString()) },
  { weight: 1, arbitrary: fc.constantFrom('0', '00', '007', '18446744073709551615', '18446744073709551616', '0018446744073709551615', '9007199254740993', '') },
);

/** A book around 1000 on the number path, or around 2^53 on the exact path. */
const bookArb = fc.boolean().map((exact) => {
  const base = exact ? TWO_53 + 1000n : 1000n;
  return { base, snap: { bids: [L(base, 5), L(base - 1n, 6)], asks: [L(base + 10n, 7), L(base + 11n, 8)] } };
});

/** Where the value goes in the frame: which side, which field, and valid levels around it. */
const placeArb = fc.record({ side: fc.constantFrom<Side>('bid', 'ask'), before: fc.nat(3), after: fc.nat(3) });

/** Prices of the valid levels around the value: below the bids' best, above the asks' best. */
const padPrice = (side: Side, base: bigint, i: number) => (side === 'bid' ? base - 3n - BigInt(i) : base + 13n + BigInt(i));

/** A frame with `level` among valid levels of its side, and one valid level on the other side. */
const frameWith = (side: Side, level: PriceLevel, before: number, after: number, base: bigint) => {
  const pad = (n: number, from: number) => Array.from({ length: n }, (_, i) => L(padPrice(side, base, from + i), 1));
  const levels = [...pad(before, 0), level, ...pad(after, before)];
  return side === 'bid' ? { bids: levels, asks: [L(base + 12n, 1)] } : { bids: [L(base - 2n, 1)], asks: levels };
};

describe('wire values', () => {
  it('a size is taken exactly when it is a Uint64 string, else the update is refused and the book unchanged', () => {
    fc.assert(
      fc.property(bookArb, placeArb, valueArb, ({ base, snap }, { side, before, after }, s) => {
        const book = OrderBook.fromSnapshot(snap);
        const before0 = book.toSnapshot();
        const price = side === 'bid' ? base - 2n : base + 12n;
        const frame = frameWith(side, { price_ticks: String(price), size_base_lots: s }, before, after, base);
        if (!isUint64(s)) {
          expect(() => book.applyLevels(frame.bids, frame.asks)).toThrow(ReplicaIntegrityError);
          expect(book.toSnapshot()).toEqual(before0);
          expect(book.version).toBe(0);
          return;
        }
        book.applyLevels(frame.bids, frame.asks);
        const levels = side === 'bid' ? book.toSnapshot().bids : book.toSnapshot().asks;
        const at = levels.find((l) => l.price_ticks === String(price));
        if (BigInt(s) === 0n) expect(at).toBeUndefined();
        else expect(at?.size_base_lots).toBe(BigInt(s).toString());
      }),
      { seed: 0x5171, numRuns: 3000 },
    );
  });

  it('a price is taken exactly when it is a Uint64 string, else the update is refused and the book unchanged', () => {
    fc.assert(
      fc.property(bookArb, placeArb, valueArb, ({ base, snap }, { side, before, after }, s) => {
        const book = OrderBook.fromSnapshot(snap);
        const before0 = book.toSnapshot();
        // A valid price must not be one the frame sets again.
        fc.pre(!isUint64(s) || !Array.from({ length: before + after }, (_, i) => padPrice(side, base, i)).includes(BigInt(s)));
        const frame = frameWith(side, { price_ticks: s, size_base_lots: '9' }, before, after, base);
        if (!isUint64(s)) {
          expect(() => book.applyLevels(frame.bids, frame.asks)).toThrow(ReplicaIntegrityError);
          expect(book.toSnapshot()).toEqual(before0);
          return;
        }
        // A valid price may cross the book (then the check throws, after the update).
        try {
          book.applyLevels(frame.bids, frame.asks);
        } catch (e) {
          expect(e).toBeInstanceOf(ReplicaIntegrityError);
          expect(book.isCrossed()).toBe(true);
        }
        const levels = side === 'bid' ? book.toSnapshot().bids : book.toSnapshot().asks;
        expect(levels.find((l) => l.price_ticks === BigInt(s).toString())?.size_base_lots).toBe('9');
      }),
      { seed: 0x5172, numRuns: 3000 },
    );
  });

  it('a snapshot level is taken exactly when both values are Uint64 strings, else the snapshot is refused', () => {
    fc.assert(
      fc.property(valueArb, fc.boolean(), (s, asPrice) => {
        const level = asPrice ? { price_ticks: s, size_base_lots: '3' } : { price_ticks: '100', size_base_lots: s };
        const load = () => OrderBook.fromSnapshot({ bids: [level], asks: [] });
        if (!isUint64(s)) {
          expect(load).toThrow(ReplicaIntegrityError);
          return;
        }
        const bids = load().toSnapshot().bids;
        if (!asPrice && BigInt(s) === 0n) expect(bids).toEqual([]);
        else expect(bids).toEqual([asPrice ? L(BigInt(s), 3) : L(100, BigInt(s))]);
      }),
      { seed: 0x5173, numRuns: 3000 },
    );
  });

  it.each(['0x10', '1e3', ' 20', '0b11', '0o7', '+5', '5 ', '1.0', '1e004', '-0', ''])('refuses %j as a price or a size', (s) => {
    const book = OrderBook.fromSnapshot({ bids: [L(100, 1)], asks: [L(110, 1)] });
    expect(() => book.applyLevels([{ price_ticks: '99', size_base_lots: s }], [])).toThrow(ReplicaIntegrityError);
    expect(() => book.applyLevels([], [{ price_ticks: s, size_base_lots: '1' }])).toThrow(ReplicaIntegrityError);
    expect(book.toSnapshot()).toEqual({ bids: [L(100, 1)], asks: [L(110, 1)] });
  });
});
