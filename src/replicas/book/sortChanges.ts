/**
 * Ordering the changes of a large frame for a one-pass merge into a side (see
 * `NumberLevels.setLevels`): keys ascending, each key once. A feed update never reaches the
 * book with a price twice on a side: the decoder rejects it (protocol/repeatedPrice.ts) and
 * the stream resyncs. A caller of `OrderBook.applyLevels` may still pass one twice; then the
 * last change wins, as it does when the levels are set one by one.
 *
 * A frame whose keys already run one way (a wire side is best first: keys descending) costs
 * one pass. Otherwise each change is packed with its index into one number, `(key - min) *
 * 2^b + index`, exact while the frame's keys span a range that leaves the index its b bits,
 * and the numbers are sorted by the engine's native numeric sort (no comparator call per
 * compare, no binary search per change); a frame spanning a wider range sorts its indices
 * with a comparator. O(k log k) either way.
 */

const TWO_53 = 2 ** 53;

/** Up to this many changes, an insertion sort: no allocation, no call into the engine. */
const SHORT = 64;

/** Bits that hold an index below `m` (m >= 2). */
const indexBits = (m: number): number => 32 - Math.clz32(m - 1);

/**
 * Sorts the changes `keys[0..m)` / `sizes[0..m)` (frame order) in place, ascending by key,
 * dropping all but the last change of a repeated key; returns how many remain.
 */
export function sortChanges(keys: Float64Array, sizes: Float64Array, m: number): number {
  let up = true;
  let down = true;
  let min = m > 0 ? keys[0]! : 0;
  let max = min;
  for (let j = 1; j < m; j++) {
    const a = keys[j - 1]!;
    const b = keys[j]!;
    if (!(a < b)) up = false;
    if (!(a > b)) down = false;
    if (b < min) min = b;
    if (b > max) max = b;
  }
  if (up) return m;
  if (down) {
    keys.subarray(0, m).reverse();
    sizes.subarray(0, m).reverse();
    return m;
  }
  if (m <= SHORT) return insertionSort(keys, sizes, m);
  const from = sizes.slice(0, m);
  const scale = 2 ** indexBits(m);
  if ((max - min + 1) * scale <= TWO_53) {
    const packed = new Float64Array(m);
    for (let j = 0; j < m; j++) packed[j] = (keys[j]! - min) * scale + j;
    packed.sort();
    let w = 0;
    for (let i = 0; i < m; i++) {
      const v = packed[i]!;
      // Exact: v is an integer below 2^53 and scale a power of two.
      const j = v % scale;
      const k = (v - j) / scale + min;
      const s = from[j]!;
      // Equal keys come in frame order: the later change overwrites.
      if (w > 0 && keys[w - 1] === k) sizes[w - 1] = s;
      else {
        keys[w] = k;
        sizes[w++] = s;
      }
    }
    return w;
  }
  const at = keys.slice(0, m);
  const order: number[] = [];
  for (let j = 0; j < m; j++) order.push(j);
  order.sort((a, b) => at[a]! - at[b]! || a - b);
  let w = 0;
  for (let i = 0; i < m; i++) {
    const j = order[i]!;
    const k = at[j]!;
    if (w > 0 && keys[w - 1] === k) sizes[w - 1] = from[j]!;
    else {
      keys[w] = k;
      sizes[w++] = from[j]!;
    }
  }
  return w;
}

/** {@link sortChanges} for the exact path (packed in 64 bits while the keys' range allows). */
export function sortBigChanges(keys: BigUint64Array, sizes: BigUint64Array, m: number): number {
  let up = true;
  let down = true;
  let min = m > 0 ? keys[0]! : 0n;
  let max = min;
  for (let j = 1; j < m; j++) {
    const a = keys[j - 1]!;
    const b = keys[j]!;
    if (!(a < b)) up = false;
    if (!(a > b)) down = false;
    if (b < min) min = b;
    if (b > max) max = b;
  }
  if (up) return m;
  if (down) {
    keys.subarray(0, m).reverse();
    sizes.subarray(0, m).reverse();
    return m;
  }
  const from = sizes.slice(0, m);
  const at = keys.slice(0, m);
  const bits = BigInt(indexBits(m));
  const order = new Uint32Array(m);
  if ((max - min + 1n) << bits <= 1n << 64n) {
    const packed = new BigUint64Array(m);
    for (let j = 0; j < m; j++) packed[j] = ((keys[j]! - min) << bits) | BigInt(j);
    packed.sort();
    const mask = (1n << bits) - 1n;
    for (let i = 0; i < m; i++) order[i] = Number(packed[i]! & mask);
  } else {
    const idx: number[] = [];
    for (let j = 0; j < m; j++) idx.push(j);
    idx.sort((a, b) => (at[a]! < at[b]! ? -1 : at[a]! > at[b]! ? 1 : a - b));
    for (let i = 0; i < m; i++) order[i] = idx[i]!;
  }
  let w = 0;
  for (let i = 0; i < m; i++) {
    const j = order[i]!;
    const k = at[j]!;
    if (w > 0 && keys[w - 1] === k) sizes[w - 1] = from[j]!;
    else {
      keys[w] = k;
      sizes[w++] = from[j]!;
    }
  }
  return w;
}

/** Stable insertion sort of a few changes, then the last change of a repeated key wins. */
function insertionSort(keys: Float64Array, sizes: Float64Array, m: number): number {
  for (let i = 1; i < m; i++) {
    const k = keys[i]!;
    const s = sizes[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > k; j--) {
      keys[j + 1] = keys[j]!;
      sizes[j + 1] = sizes[j]!;
    }
    keys[j + 1] = k;
    sizes[j + 1] = s;
  }
  let w = 1;
  for (let i = 1; i < m; i++) {
    if (keys[i] === keys[w - 1]) sizes[w - 1] = sizes[i]!;
    else {
      keys[w] = keys[i]!;
      sizes[w++] = sizes[i]!;
    }
  }
  return w;
}
