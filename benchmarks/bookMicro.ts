/**
 * Order book micro-benchmark: ns per frame for "apply + best bid/ask" and "apply + top-10
 * read" (10 levels of each side), NET of a no-op book driven by its own copy of the same
 * loop, and bytes per level at 10,000 levels a side.
 *
 *   npx tsx --expose-gc benchmarks/bookMicro.ts
 *
 * Bounded (fixed frame and repetition counts, about half a minute) and seeded. The delta
 * stream: 500 levels a side, frames of 1-3 level changes, 80% of them within the top 20
 * levels, half of the changes new sizes and half inserts or removals, never crossing.
 * Frames travel as JSON text in chunks of 250, decoded (untimed) just before their timed
 * pass, as a live feed hands over freshly decoded frames. Each chunk is timed on its own and
 * the sum of per-chunk minima over the repetitions is kept, which filters out preemption on
 * a busy machine (figures still move with the load of the machine: compare runs made
 * together).
 *
 * Another book implementation plugs in through {@link BookAdapter}:
 *
 * @example
 * import { runBookMicro, ADAPTERS, type AdapterFactory } from './bookMicro';
 * const other: AdapterFactory = () => {
 *   let book: SomeBook;
 *   return {
 *     name: 'some book',
 *     load: (s) => (book = SomeBook.from(s.bids, s.asks)),
 *     apply: (f) => { for (let i = 0; i < f.flat.length; i += 3) book.set(f.flat[i], f.flat[i + 1], f.flat[i + 2]); },
 *     best: () => book.bestBid() + book.bestAsk(),
 *     top10: (cb) => { ... cb(price, size) for 10 levels of each side ... },
 *   };
 * };
 * console.log(runBookMicro([...ADAPTERS, other]).results);
 */
import { pathToFileURL } from 'node:url';
import { OrderBook } from '../src/replicas/book';
import type { PriceLevel } from '../src/protocol';
import { seededRandom } from './lib/rng';

/** A snapshot in wire form, best first. */
export interface BenchSnapshot {
  bids: PriceLevel[];
  asks: PriceLevel[];
}

/** One update frame, in wire form and pre-parsed (for books that take numbers). */
export interface BenchFrame {
  bids: PriceLevel[];
  asks: PriceLevel[];
  /** The same changes as triples: side (0 bid, 1 ask), price, size (0 removes). */
  flat: number[];
}

/** What a book implementation provides to be measured. One adapter holds one book. */
export interface BookAdapter {
  readonly name: string;
  /** Replaces the book with one built from the snapshot (not timed). */
  load(snapshot: BenchSnapshot): void;
  /** Applies one frame. */
  apply(frame: BenchFrame): void;
  /** Reads best bid and best ask; returns any number derived from both (kept as a sink). */
  best(): number;
  /** Reads the best 10 levels of each side, calling `cb` for each. */
  top10(cb: (price: number, size: number) => void): void;
}

export type AdapterFactory = () => BookAdapter;

const SEED = 0x5eed;
const LEVELS = 500;
const FRAMES = 100_000;
const WARMUP_REPS = 4;
const REPS = 11;
const CHUNK = 250;
const MEMORY_LEVELS = 10_000;
const MEMORY_BOOKS = 8;

const lvl = (price: number, size: number, base: bigint): PriceLevel => ({
  price_ticks: String(base + BigInt(price)),
  size_base_lots: String(size),
});

/** A book of `levels` a side around 1,000,000 ticks (prices offset by `base`) and a delta stream over it. */
export function makeStream(levels: number, frames: number, seed: number, base = 0n): { snapshot: BenchSnapshot; frames: BenchFrame[] } {
  const rand = seededRandom(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo)); // [lo, hi)
  // Model: per side, prices best first and sizes by price.
  const side: [number[], number[]] = [[], []];
  const size = new Map<number, number>();
  let p = 999_999;
  for (let i = 0; i < levels; i++, p -= int(1, 4)) side[0].push(p);
  p = 1_000_001;
  for (let i = 0; i < levels; i++, p += int(1, 4)) side[1].push(p);
  for (const s of side) for (const q of s) size.set(q, int(1, 10_000));
  const snapshot: BenchSnapshot = {
    bids: side[0].map((q) => lvl(q, size.get(q)!, base)),
    asks: side[1].map((q) => lvl(q, size.get(q)!, base)),
  };
  const out: BenchFrame[] = [];
  for (let f = 0; f < frames; f++) {
    const frame: BenchFrame = { bids: [], asks: [], flat: [] };
    const touched = new Set<number>();
    const changes = int(1, 4);
    for (let c = 0; c < changes; c++) {
      const si = int(0, 2);
      const prices = side[si]!;
      const idx = rand() < 0.8 ? int(0, 20) : int(20, prices.length);
      let price = prices[idx]!;
      let newSize = int(1, 10_000);
      const r = rand();
      if (r >= 0.5 && prices.length >= levels) {
        newSize = 0; // remove
      } else if (r >= 0.5) {
        // Insert a new price just better than level idx, if there is a gap that keeps the book uncrossed.
        const better = idx > 0 ? prices[idx - 1]! : si === 0 ? side[1][0]! : side[0][0]!;
        const gap = Math.abs(better - price);
        if (gap > 1) price += si === 0 ? int(1, gap) : -int(1, gap);
      }
      if (touched.has(price)) continue; // no level twice in one frame
      touched.add(price);
      if (newSize === 0) {
        prices.splice(idx, 1);
        size.delete(price);
      } else if (!size.has(price)) {
        prices.splice(idx, 0, price);
        size.set(price, newSize);
      } else size.set(price, newSize);
      (si === 0 ? frame.bids : frame.asks).push(lvl(price, newSize, base));
      frame.flat.push(si, price, newSize);
    }
    out.push(frame);
  }
  return { snapshot, frames: out };
}

/** This library's book, fed wire strings the way the `book` reducer feeds it. */
export const orderBookWire: AdapterFactory = () => {
  let book = new OrderBook();
  return {
    name: 'OrderBook.applyLevels (wire strings)',
    load: (s) => (book = OrderBook.fromSnapshot(s)),
    apply: (f) => void book.applyLevels(f.bids, f.asks),
    best: () => book.bestBid()! + book.bestAsk()!,
    top10: (cb) => readTop10(book, cb),
  };
};

/** The fastest non-allocating read of our book: the reused views, each level handed to `cb`. */
function readTop10(book: OrderBook, cb: (price: number, size: number) => void): void {
  const bids = book.topView('bid', 10);
  for (let i = 0; i < bids.length; i++) cb(bids.prices[i]!, bids.sizes[i]!);
  const asks = book.topView('ask', 10);
  for (let i = 0; i < asks.length; i++) cb(asks.prices[i]!, asks.sizes[i]!);
}

/** This library's book, fed numbers (`applyLevel` per level, then the consistency check). */
export const orderBookNumbers: AdapterFactory = () => {
  let book = new OrderBook();
  return {
    name: 'OrderBook.applyLevel (numbers)',
    load: (s) => (book = OrderBook.fromSnapshot(s)),
    apply: (f) => {
      const t = f.flat;
      for (let i = 0; i < t.length; i += 3) book.applyLevel(t[i] === 0 ? 'bid' : 'ask', t[i + 1]!, t[i + 2]!);
      book.assertConsistent();
    },
    best: () => book.bestBid()! + book.bestAsk()!,
    top10: (cb) => readTop10(book, cb),
  };
};

/** This library's book read through `forEachLevel` (a callback per level) instead of the views. */
export const orderBookCallbacks: AdapterFactory = () => {
  let book = new OrderBook();
  return {
    name: 'OrderBook.applyLevels + forEachLevel',
    load: (s) => (book = OrderBook.fromSnapshot(s)),
    apply: (f) => void book.applyLevels(f.bids, f.asks),
    best: () => book.bestBid()! + book.bestAsk()!,
    top10: (cb) => {
      book.forEachLevel('bid', 10, cb);
      book.forEachLevel('ask', 10, cb);
    },
  };
};

/** This library's book on the exact path (prices above 2^53), read with the bigint accessors. */
export const orderBookExact: AdapterFactory = () => {
  let book = new OrderBook();
  let target: (price: number, size: number) => void = () => undefined;
  // One bridge for the adapter's life: a closure per read would be the harness's allocation.
  const bridge = (p: bigint, s: bigint) => target(Number(p & 0xffffn), Number(s & 0xffffn));
  return {
    name: 'OrderBook.applyLevels (bigint path)',
    load: (s) => (book = OrderBook.fromSnapshot(s)),
    apply: (f) => void book.applyLevels(f.bids, f.asks),
    best: () => Number(book.spreadBig()!),
    top10: (cb) => {
      target = cb;
      book.forEachLevelBig('bid', 10, bridge);
      book.forEachLevelBig('ask', 10, bridge);
    },
  };
};

/**
 * A reference point: the common design of JS order books, one array of `[price, size]`
 * pairs per side kept sorted best first, binary search and `splice`. Not this library's code.
 */
export const classicArrayBook: AdapterFactory = () => {
  let bids: [number, number][] = [];
  let asks: [number, number][] = [];
  // First index whose price is not better than `price` (bids descending: dir 1; asks ascending: dir -1).
  const search = (levels: [number, number][], price: number, dir: number) => {
    let lo = 0;
    let hi = levels.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((levels[mid]![0] - price) * dir > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const set = (levels: [number, number][], price: number, size: number, dir: number) => {
    const i = search(levels, price, dir);
    const hit = i < levels.length && levels[i]![0] === price;
    if (size === 0) {
      if (hit) levels.splice(i, 1);
    } else if (hit) levels[i]![1] = size;
    else levels.splice(i, 0, [price, size]);
  };
  return {
    name: 'reference: sorted arrays + splice',
    load: (s) => {
      bids = s.bids.map((l) => [Number(l.price_ticks), Number(l.size_base_lots)]);
      asks = s.asks.map((l) => [Number(l.price_ticks), Number(l.size_base_lots)]);
    },
    apply: (f) => {
      const t = f.flat;
      for (let i = 0; i < t.length; i += 3) {
        if (t[i] === 0) set(bids, t[i + 1]!, t[i + 2]!, 1);
        else set(asks, t[i + 1]!, t[i + 2]!, -1);
      }
    },
    best: () => bids[0]![0] + asks[0]![0],
    top10: (cb) => {
      for (let i = 0; i < 10 && i < bids.length; i++) cb(bids[i]![0], bids[i]![1]);
      for (let i = 0; i < 10 && i < asks.length; i++) cb(asks[i]![0], asks[i]![1]);
    },
  };
};

/**
 * The baseline: keeps no book, so its loop measures the harness alone. Its `top10` still
 * calls `cb` 20 times, so the consumer's side of a read is not charged to the books.
 */
export const noopBook: AdapterFactory = () => ({
  name: 'no-op',
  load: () => undefined,
  apply: () => undefined,
  best: () => 0,
  top10: (cb) => {
    for (let i = 0; i < 20; i++) cb(i, i);
  },
});

/** The books measured by default (the baseline is always run too). */
export const ADAPTERS: AdapterFactory[] = [orderBookWire, orderBookNumbers, orderBookCallbacks, classicArrayBook];

/** Frames travel as JSON text in chunks, decoded just before their timed pass (as a live feed would). */
type Chunks = string[];
/** Runs every chunk once, writing each chunk's ns to `out`. */
type Loop = (adapter: BookAdapter, chunks: Chunks, out: Float64Array) => void;

/** Where every loop's level callback puts the last level it is handed (kept observable). */
const lastLevel = { price: 0, size: 0 };
/**
 * The consumer's callback of every top-10 loop: one function for all. A callback made per
 * loop would reach each book's read site (shared by the book's adapters) as one more target,
 * leaving that call site polymorphic and, depending on the order the engine optimizes
 * things in, not inlined: a cost charged at random to whichever book shares its read code.
 */
const keepLevel = (price: number, size: number): void => {
  lastLevel.price = price;
  lastLevel.size = size;
};
let loops = 0;

// Each call compiles a fresh copy of the loop, so every adapter gets its own type feedback
// (one shared loop would turn megamorphic and charge its cost to whoever runs last). The
// copies' sources differ (a numbered comment): the engine would share one compiled function,
// and its feedback, between identical sources.
const makeLoop = (body: string): Loop =>
  new Function('cb', 'lastLevel', `return function bookMicroLoop(adapter, chunks, out) {
    // loop ${++loops}
    let sink = 0;
    for (let c = 0; c < chunks.length; c++) {
      const frames = JSON.parse(chunks[c]);
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < frames.length; i++) { adapter.apply(frames[i]); ${body} }
      out[c] = Number(process.hrtime.bigint() - t0);
    }
    if (sink === -1 || lastLevel.price === -1 || lastLevel.size === -1) console.log(sink);
  }`)(keepLevel, lastLevel) as Loop;
const bestLoop = () => makeLoop('sink += adapter.best();');
const top10Loop = () => makeLoop('adapter.top10(cb);');

/**
 * ns per frame of `loop`, each rep on a fresh load of the snapshot. Every chunk does the same
 * work in every rep, so the sum of per-chunk minima filters out preemption on a busy machine.
 */
function measure(adapter: BookAdapter, loop: Loop, snapshot: BenchSnapshot, chunks: Chunks, frames: number): number {
  const best = new Float64Array(chunks.length).fill(Infinity);
  const times = new Float64Array(chunks.length);
  for (let r = 0; r < WARMUP_REPS + REPS; r++) {
    adapter.load(snapshot);
    loop(adapter, chunks, times);
    if (r >= WARMUP_REPS) for (let c = 0; c < chunks.length; c++) best[c] = Math.min(best[c]!, times[c]!);
  }
  return best.reduce((a, b) => a + b, 0) / frames;
}

const gc = (globalThis as { gc?: () => void }).gc;
const usedBytes = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

function buildBooks(factory: AdapterFactory, snapshot: BenchSnapshot): BookAdapter[] {
  const books: BookAdapter[] = [];
  for (let i = 0; i < MEMORY_BOOKS; i++) {
    const book = factory();
    book.load(snapshot);
    books.push(book);
  }
  return books;
}

/**
 * Bytes per level of a book holding `MEMORY_LEVELS` levels a side (heap + array buffers):
 * the growth when `MEMORY_BOOKS` more books are built, garbage collected before and after.
 * Every batch stays alive until the end (a released batch could be counted against the
 * next one); the median of three batches drops the noise.
 */
function bytesPerLevel(factory: AdapterFactory, base: bigint): number {
  const { snapshot } = makeStream(MEMORY_LEVELS, 0, SEED + 1, base);
  const kept: BookAdapter[][] = [];
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    gc?.();
    gc?.();
    const before = usedBytes();
    kept.push(buildBooks(factory, snapshot));
    gc?.();
    gc?.();
    runs.push((usedBytes() - before) / (MEMORY_BOOKS * 2 * MEMORY_LEVELS));
  }
  if (kept.length === 0) console.log(kept); // keeps every batch alive to here
  return runs.sort((a, b) => a - b)[1]!;
}

export interface MicroResult {
  name: string;
  applyBestNs: number;
  applyTop10Ns: number;
  bytesPerLevel: number;
}

/** Runs the benchmark for each factory; figures are net of the no-op baseline. */
export function runBookMicro(factories: AdapterFactory[] = ADAPTERS, base = 0n): { baseline: { best: number; top10: number }; results: MicroResult[] } {
  const { snapshot, frames } = makeStream(LEVELS, FRAMES, SEED, base);
  const chunks: Chunks = [];
  for (let i = 0; i < frames.length; i += CHUNK) chunks.push(JSON.stringify(frames.slice(i, i + CHUNK)));
  const run = (adapter: BookAdapter, loop: Loop) => measure(adapter, loop, snapshot, chunks, frames.length);
  const noop = noopBook();
  const baseline = { best: run(noop, bestLoop()), top10: run(noop, top10Loop()) };
  const results = factories.map((factory) => {
    const adapter = factory();
    return {
      name: adapter.name,
      applyBestNs: run(adapter, bestLoop()) - baseline.best,
      applyTop10Ns: run(adapter, top10Loop()) - baseline.top10,
      bytesPerLevel: bytesPerLevel(factory, base),
    };
  });
  return { baseline, results };
}

function print(results: MicroResult[]): void {
  for (const r of results) {
    const f = (x: number) => x.toFixed(1).padStart(6);
    console.log(`${r.name.padEnd(38)} apply+best ${f(r.applyBestNs)} ns/frame   apply+top10 ${f(r.applyTop10Ns)} ns/frame   ${f(r.bytesPerLevel)} bytes/level at ${MEMORY_LEVELS}/side`);
  }
}

function main(): void {
  if (!gc) console.log('note: run with --expose-gc for stable memory figures');
  const { baseline, results } = runBookMicro();
  console.log(`frames: ${FRAMES} x ${REPS} reps, ${LEVELS} levels a side, seed ${SEED}`);
  console.log(`no-op baseline: apply+best ${baseline.best.toFixed(1)} ns/frame, apply+top10 ${baseline.top10.toFixed(1)} ns/frame (subtracted below)`);
  print(results);
  print(runBookMicro([orderBookExact], 1n << 60n).results);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
