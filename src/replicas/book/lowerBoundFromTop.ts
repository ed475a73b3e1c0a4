/**
 * Lower-bound searches in an ascending array whose interesting end is the TOP (the last
 * element): book updates cluster near the best price, which the book keeps at the end.
 * Each search exists for numbers (Float64Array) and for bigints (BigUint64Array): one
 * function serving both would see both kinds at every compare, which V8 then compiles as
 * a generic compare, slowing the number path.
 *
 * The number path is BRANCHLESS: a mispredicted compare costs more than a whole step of a
 * search, and the compares of a search are coin flips. One well-predicted test picks the
 * top window (the last {@link TOP_WINDOW} keys, where most updates land) or the rest, then a
 * fixed number of halving steps runs with no data-dependent branch: about 5 steps at the top,
 * 9 for a 500-level side.
 */

/** Keys at the top searched on their own. */
export const TOP_WINDOW = 32;

/**
 * Index of the first element of `keys[0..n)` that is >= `k` (n when none is).
 * `keys[0..n)` must be ascending.
 */
export function lowerBoundFromTop(keys: Float64Array, n: number, k: number): number {
  if (n <= TOP_WINDOW) return lowerBoundIn(keys, 0, n, k);
  // keys[n - W] < k: the answer lies in the top window (n - W, n].
  if (keys[n - TOP_WINDOW]! < k) return lowerBoundIn(keys, n - TOP_WINDOW + 1, TOP_WINDOW - 1, k);
  return lowerBoundIn(keys, 0, n - TOP_WINDOW + 1, k);
}

/** First index in [base, base + len) whose key is >= k, or base + len; branchless. */
function lowerBoundIn(keys: Float64Array, base: number, len: number, k: number): number {
  if (len === 0) return base;
  while (len > 1) {
    const half = len >> 1;
    // `(cond) | 0` compiles to a flag move, not a branch; the mask adds `half` or nothing.
    base += -(((keys[base + half - 1]! < k) as unknown as number) | 0) & half;
    len -= half;
  }
  return base + (((keys[base]! < k) as unknown as number) | 0);
}

/**
 * Index of the first element of `keys[from..n)` that is >= `k` (n when none is), galloping
 * up from `from` (1, 2, 4, ... keys) then bisecting: O(log d) for an answer d keys away.
 * Successive searches for ascending keys each start where the last one ended.
 */
export function gallopUp(keys: Float64Array, from: number, n: number, k: number): number {
  if (from >= n || keys[from]! >= k) return from;
  let lo = from; // keys[lo] < k
  let step = 1;
  let hi = from + 1;
  while (hi < n && keys[hi]! < k) {
    lo = hi;
    step += step;
    hi = lo + step;
  }
  if (hi > n) hi = n;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < k) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Index of the first element of `keys[0..to)` that is >= `k` (to when none is), galloping down from `to`. */
export function gallopDown(keys: Float64Array, to: number, k: number): number {
  let hi = to - 1;
  if (hi < 0 || keys[hi]! < k) return to;
  let step = 1;
  let lo = hi - 1;
  while (lo >= 0 && keys[lo]! >= k) {
    hi = lo;
    step += step;
    lo = hi - step;
  }
  if (lo < -1) lo = -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! >= k) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * {@link gallopDown} for the exact (bigint) representation, also its lower bound from the
 * top: a key d levels from the top costs O(log d) compares.
 */
export function gallopDownBig(keys: BigUint64Array, to: number, k: bigint): number {
  let hi = to - 1;
  if (hi < 0 || keys[hi]! < k) return to;
  let step = 1;
  let lo = hi - 1;
  while (lo >= 0 && keys[lo]! >= k) {
    hi = lo;
    step += step;
    lo = hi - step;
  }
  if (lo < -1) lo = -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! >= k) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** {@link gallopUp} for the exact (bigint) representation. */
export function gallopUpBig(keys: BigUint64Array, from: number, n: number, k: bigint): number {
  if (from >= n || keys[from]! >= k) return from;
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < n && keys[hi]! < k) {
    lo = hi;
    step += step;
    hi = lo + step;
  }
  if (hi > n) hi = n;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < k) lo = mid;
    else hi = mid;
  }
  return hi;
}
