/**
 * A price listed twice on one side of an `OrderBook` (a `book` update's `data`, an
 * `orderBook` answer's): streaming-protocol.md section 3 says no level appears twice in one
 * update, and a snapshot lists each level once. Such a side is invalid on both decode paths:
 * the fast readers (fastDecodeRecords.ts) leave it to the schema path, whose `OrderBook`
 * check (records/book.ts) rejects it with {@link repeatedPriceMessage}. Applied instead, the
 * book would silently keep whichever listing came last.
 *
 * Prices are compared as the numbers they spell: `Uint64` allows leading zeros, so `"7"` and
 * `"007"` are the same price. Called on values the schemas accept (digit strings). @internal
 */
import type { PriceLevel } from './records/book';

/** Up to this many levels, a side out of order is compared pairwise. */
const NESTED_MAX = 8;
const DIGIT_0 = 48;
/** The price doubles of a short side out of order (no allocation per call). */
const few = new Float64Array(NESTED_MAX);

/** The digit string without its leading zeros: one spelling per value. */
function canonical(s: string): string {
  let k = 0;
  while (k < s.length - 1 && s.charCodeAt(k) === DIGIT_0) k++;
  return k === 0 ? s : s.slice(k);
}

/** Whether two digit strings spell the same value (`"7"`, `"007"`). */
function samePrice(a: string, b: string): boolean {
  return a === b || canonical(a) === canonical(b);
}

/**
 * True when two levels of `levels` have the same price. Compares the prices as doubles
 * (`+price`: exact up to 2^53, correctly rounded beyond, so equal prices give equal doubles
 * and different doubles mean different prices; cheap on the short strings `JSON.parse`
 * makes, whose value the engine caches). A side comes best first: one pass finds its
 * doubles strictly monotonic, hence no price twice. Otherwise a short side is compared
 * pairwise, equal doubles then settled on the digits; a long one takes a `Set`.
 *
 * @example
 * hasRepeatedPrice([{ price_ticks: '7', size_base_lots: '1' }, { price_ticks: '007', size_base_lots: '2' }]) // => true
 */
export function hasRepeatedPrice(levels: readonly PriceLevel[]): boolean {
  const n = levels.length;
  if (n < 2) return false;
  let prev = +levels[0]!.price_ticks;
  let order = 0;
  for (let i = 1; i < n; i++) {
    const v = +levels[i]!.price_ticks;
    const dir = v > prev ? 1 : v < prev ? -1 : 0;
    // A tie, or a turn (with order 0, -order is 0: a tie again).
    if (dir === 0 || dir === -order) return n <= NESTED_MAX ? fewRepeat(levels, n) : repeatedPriceAt(levels) >= 0;
    order = dir;
    prev = v;
  }
  return false;
}

/** {@link hasRepeatedPrice} of a short side out of order (n <= NESTED_MAX). */
function fewRepeat(levels: readonly PriceLevel[], n: number): boolean {
  for (let i = 0; i < n; i++) {
    const v = (few[i] = +levels[i]!.price_ticks);
    for (let j = 0; j < i; j++) if (few[j] === v && samePrice(levels[j]!.price_ticks, levels[i]!.price_ticks)) return true;
  }
  return false;
}

/**
 * The index of the first level whose price an earlier level of `levels` already has, or -1.
 * Linear, with a `Set` of canonical prices: for the rare sides {@link hasRepeatedPrice}
 * cannot settle in place, and for wording a rejection.
 */
export function repeatedPriceAt(levels: readonly PriceLevel[]): number {
  const seen = new Set<string>();
  for (let i = 0; i < levels.length; i++) {
    const p = canonical(levels[i]!.price_ticks);
    if (seen.has(p)) return i;
    seen.add(p);
  }
  return -1;
}

/**
 * Words the rejection of `side` whose level `at` repeats an earlier level's price (`at` from
 * {@link repeatedPriceAt}).
 *
 * @example
 * repeatedPriceMessage('bids', [{ price_ticks: '99', size_base_lots: '4' }, { price_ticks: '099', size_base_lots: '7' }], 1)
 * // => 'price 99 appears twice in bids (bids[0] "99" and bids[1] "099"); a book lists each price at most once per side'
 */
export function repeatedPriceMessage(side: 'bids' | 'asks', levels: readonly PriceLevel[], at: number): string {
  const written = levels[at]!.price_ticks;
  const price = canonical(written);
  let first = 0;
  while (first < at && canonical(levels[first]!.price_ticks) !== price) first++;
  const earlier = levels[first]!.price_ticks;
  const where = earlier === written ? `${side}[${first}] and ${side}[${at}]` : `${side}[${first}] ${JSON.stringify(earlier)} and ${side}[${at}] ${JSON.stringify(written)}`;
  return `price ${price} appears twice in ${side} (${where}); a book lists each price at most once per side`;
}
