/** Checks the internal invariants of a book's storage (test-only: reads private state). */
import type { OrderBook } from '../../../src/replicas/book';
import type { BookSide } from '../../../src/replicas/book/BookSide';

/** The top cache must hold the side's best min(cap, n) levels, in rank order. */
function checkTopCache(s: BookSide): void {
  const top = s.top;
  if (s.big) {
    if (top.n !== 0) throw new Error(`${s.side}: top cache holds ${top.n} levels on the exact path`);
    return;
  }
  if (top.n !== Math.min(top.cap, s.n)) throw new Error(`${s.side}: top cache holds ${top.n} levels, keeps ${top.cap}, the side has ${s.n}`);
  const levels: [number, number][] = [];
  const win = s.win;
  for (let slot = win.size - 1; slot >= 0 && levels.length < top.n; slot--) if (win.sizes[slot] !== 0) levels.push([s.keyOf(win.base + slot), win.sizes[slot]!]);
  for (let j = s.deep.n - 1; j >= 0 && levels.length < top.n; j--) levels.push([s.keyOf(s.deep.keys[j]!), s.deep.sizes[j]!]);
  levels.forEach(([p, size], i) => {
    if (top.prices[i] !== p || top.sizes[i] !== size) {
      throw new Error(`${s.side}: top cache rank ${i} is ${top.prices[i]}@${top.sizes[i]}, the book holds ${p}@${size}`);
    }
  });
  // The one compare that lets a change skip the cache must match what the cache holds.
  const floor = top.cap === 0 ? Infinity : top.n < top.cap ? -1 : s.keyOf(top.prices[top.cap - 1]!);
  if (s.topFloor !== floor) throw new Error(`${s.side}: top floor ${s.topFloor}, expected ${floor}`);
}

function checkSide(s: BookSide): void {
  checkTopCache(s);
  if (s.big) {
    const ex = s.exact;
    for (let j = 1; j < ex.n; j++) if (!(ex.keys[j - 1]! < ex.keys[j]!)) throw new Error(`${s.side}: exact keys not ascending at ${j}`);
    for (let j = 0; j < ex.n; j++) if (ex.sizes[j] === 0n) throw new Error(`${s.side}: zero size stored`);
    return;
  }
  const win = s.win;
  const deep = s.deep;
  let count = 0;
  let top = -1;
  for (let slot = 0; slot < win.size; slot++) {
    const occupied = ((win.occ[slot >>> 5]! >>> (slot & 31)) & 1) === 1;
    if (occupied !== (win.sizes[slot] !== 0)) throw new Error(`${s.side}: bitset and sizes disagree at slot ${slot}`);
    if (occupied) {
      count++;
      top = slot;
    }
  }
  if (count !== win.count) throw new Error(`${s.side}: window count ${win.count}, holds ${count}`);
  if (top !== win.top) throw new Error(`${s.side}: window top ${win.top}, highest level at ${top}`);
  if (win.count === 0 && deep.n > 0) throw new Error(`${s.side}: empty window above ${deep.n} deep levels`);
  for (let j = 1; j < deep.n; j++) if (!(deep.keys[j - 1]! < deep.keys[j]!)) throw new Error(`${s.side}: deep keys not ascending at ${j}`);
  if (deep.n > 0 && !(deep.keys[deep.n - 1]! < win.base)) throw new Error(`${s.side}: deep level at or above the window`);
  for (let j = 0; j < deep.n; j++) if (deep.sizes[j] === 0) throw new Error(`${s.side}: zero size stored in deep`);
}

export function checkInvariants(book: OrderBook): void {
  const internals = book as unknown as { b: BookSide; a: BookSide };
  checkSide(internals.b);
  checkSide(internals.a);
}
