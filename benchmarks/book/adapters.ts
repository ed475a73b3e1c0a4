/**
 * The books under test, behind the adapter interface of `benchmarks/bookMicro.ts`, each
 * fed the wire form of every frame (decimal strings: what arrives from the feed) or, on the
 * `numbers` stream, the same changes pre-parsed (`BenchFrame.flat`, for ours and ccxt), and
 * each able to list its best levels exactly, for the correctness check. A book keeps its
 * name on both inputs (the stream tells them apart).
 *
 * - ours: `OrderBook` of src/replicas/book (`applyLevels`, number reads through the reused
 *   `topView`; or bigint reads on the exact path).
 * - ccxt: the ccxt pro `OrderBook` (sides kept as sorted arrays with a Float64Array index),
 *   updated through `bids.store(price, size)` / `asks.store(price, size)`.
 * - orderbooks: the `orderbooks` package `OrderBook` (one array of levels, `handleDelta`).
 *   Reads go straight to its sorted array (binary search for the side boundary) rather than
 *   its `getBestBid`/`getBestAsk`, which filter the whole book: the kinder choice for it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OrderBook as OrderbooksBook, OrderBookLevel } from 'orderbooks';
import { OrderBook } from '../../src/replicas/book';
import type { BenchFrame, BenchSnapshot, BookAdapter } from '../bookMicro';
import type { TopLevels } from './deltaStream';

/** A benchmarked book: the shared adapter interface plus an exact read of its best levels. */
export interface CheckedAdapter extends BookAdapter {
  /** The best `n` levels of each side as exact decimal strings (not timed). */
  exactTop(n: number): TopLevels;
}

export type CheckedFactory = () => CheckedAdapter;

// ---- ours ---------------------------------------------------------------------------

const oursTop = (book: OrderBook, n: number): TopLevels => {
  const t = book.top(n);
  const pairs = (ls: typeof t.bids) => ls.map((l): [string, string] => [BigInt(l.price_ticks).toString(), BigInt(l.size_base_lots).toString()]);
  return { bids: pairs(t.bids), asks: pairs(t.asks) };
};

/** Our book, number reads (prices within 2^53). */
export const oursAdapter: CheckedFactory = () => {
  let book = new OrderBook();
  return {
    name: 'ours (OrderBook)',
    load: (s) => (book = OrderBook.fromSnapshot(s)),
    apply: (f) => void book.applyLevels(f.bids, f.asks),
    best: () => book.bestBid()! + book.bestAsk()!,
    top10: (cb) => readTop10(book, cb),
    exactTop: (n) => oursTop(book, n),
  };
};

/** The fastest non-allocating read: the reused view, every level handed to `cb` as ccxt's adapter does. */
function readTop10(book: OrderBook, cb: (price: number, size: number) => void): void {
  const bids = book.topView('bid', 10);
  for (let i = 0; i < bids.length; i++) cb(bids.prices[i]!, bids.sizes[i]!);
  const asks = book.topView('ask', 10);
  for (let i = 0; i < asks.length; i++) cb(asks.prices[i]!, asks.sizes[i]!);
}

/** Our book read through its exact (bigint) accessors: prices beyond 2^53. */
export const oursExactAdapter: CheckedFactory = () => {
  let book = new OrderBook();
  let lastPrice = 0n;
  let lastSize = 0n;
  const keep = (p: bigint, s: bigint) => {
    lastPrice = p;
    lastSize = s;
  };
  return {
    name: 'ours (OrderBook, bigint reads)',
    load: (s) => (book = OrderBook.fromSnapshot(s)),
    apply: (f) => void book.applyLevels(f.bids, f.asks),
    best: () => (book.bestBidBig()! < book.bestAskBig()! ? 1 : 0),
    top10: (cb) => {
      book.forEachLevelBig('bid', 10, keep);
      book.forEachLevelBig('ask', 10, keep);
      cb(lastPrice === lastSize ? 1 : 0, 0);
    },
    exactTop: (n) => oursTop(book, n),
  };
};

/**
 * Our book fed pre-parsed numbers (the `numbers` stream): `applyLevel` per change, then the
 * check of the frame (`assertConsistent`), as `applyLevels` does after a wire frame.
 */
export const oursNumbersAdapter: CheckedFactory = () => {
  let book = new OrderBook();
  return {
    name: 'ours (OrderBook)',
    load: (s) => (book = OrderBook.fromSnapshot(s)),
    apply: (f) => {
      const t = f.flat;
      for (let i = 0; i < t.length; i += 3) book.applyLevel(t[i] === 0 ? 'bid' : 'ask', t[i + 1]!, t[i + 2]!);
      book.assertConsistent();
    },
    best: () => book.bestBid()! + book.bestAsk()!,
    top10: (cb) => readTop10(book, cb),
    exactTop: (n) => oursTop(book, n),
  };
};

// ---- ccxt pro -----------------------------------------------------------------------

interface CcxtSide extends Array<[number, number]> {
  store(price: number, size: number): void;
}
interface CcxtBook {
  bids: CcxtSide;
  asks: CcxtSide;
}
type CcxtBookClass = new (snapshot?: { bids?: [number, number][]; asks?: [number, number][] }) => CcxtBook;

/**
 * Loads ccxt's pro `OrderBook` module alone. The package exports only its (large) root,
 * so the file is found from the resolved root and imported by path.
 */
export async function loadCcxtOrderBook(): Promise<CcxtBookClass> {
  const root = dirname(dirname(createRequire(import.meta.url).resolve('ccxt')));
  const mod = (await import(pathToFileURL(join(root, 'js/src/base/ws/OrderBook.js')).href)) as { OrderBook: CcxtBookClass };
  return mod.OrderBook;
}

/** The ccxt book and its reads, its frames applied by `apply`. */
function ccxtWith(Book: CcxtBookClass, apply: (book: CcxtBook, f: BenchFrame) => void): CheckedFactory {
  return () => {
    let book = new Book();
    return {
      name: 'ccxt pro OrderBook',
      load: (s) => (book = new Book({ bids: toPairs(s.bids), asks: toPairs(s.asks) })),
      apply: (f: BenchFrame) => apply(book, f),
      best: () => book.bids[0]![0] + book.asks[0]![0],
      top10: (cb) => {
        const bids = book.bids;
        const asks = book.asks;
        for (let i = 0; i < 10 && i < bids.length; i++) cb(bids[i]![0], bids[i]![1]);
        for (let i = 0; i < 10 && i < asks.length; i++) cb(asks[i]![0], asks[i]![1]);
      },
      exactTop: (n) => ({ bids: sideTop(book.bids, n), asks: sideTop(book.asks, n) }),
    };
  };
}

const toPairs = (ls: BenchSnapshot['bids']) => ls.map((l): [number, number] => [Number(l.price_ticks), Number(l.size_base_lots)]);
const sideTop = (side: readonly [number, number][], n: number) => side.slice(0, n).map(([p, s]): [string, string] => [String(p), String(s)]);

/** ccxt fed the wire form: each value through `Number`, then `store`. */
export function ccxtAdapter(Book: CcxtBookClass): CheckedFactory {
  return ccxtWith(Book, (book, f) => {
    const bids = book.bids;
    const asks = book.asks;
    for (let i = 0; i < f.bids.length; i++) bids.store(Number(f.bids[i]!.price_ticks), Number(f.bids[i]!.size_base_lots));
    for (let i = 0; i < f.asks.length; i++) asks.store(Number(f.asks[i]!.price_ticks), Number(f.asks[i]!.size_base_lots));
  });
}

/** ccxt fed pre-parsed numbers (the `numbers` stream): `store` per change. */
export function ccxtNumbersAdapter(Book: CcxtBookClass): CheckedFactory {
  return ccxtWith(Book, (book, f) => {
    const t = f.flat;
    for (let i = 0; i < t.length; i += 3) (t[i] === 0 ? book.bids : book.asks).store(t[i + 1]!, t[i + 2]!);
  });
}

// ---- orderbooks ---------------------------------------------------------------------

const SYMBOL = 'BENCH';
const PRICE = 1;
const SIDE = 2;
const QTY = 3;
type ObLevel = ReturnType<typeof OrderBookLevel>;

/** Index of the first bid in the book's array (asks come first, highest price first). */
function firstBid(levels: readonly ObLevel[]): number {
  let lo = 0;
  let hi = levels.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (levels[mid]![SIDE] === 'Sell') lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const orderbooksAdapter: CheckedFactory = () => {
  // No depth trimming: the book must keep every level it was given.
  const options = { maxDepth: Number.MAX_SAFE_INTEGER };
  let book = new OrderbooksBook(SYMBOL, options);
  const toLevel = (side: 'Buy' | 'Sell') => (l: BenchSnapshot['bids'][number]) => OrderBookLevel(SYMBOL, Number(l.price_ticks), side, Number(l.size_base_lots));
  return {
    name: 'orderbooks OrderBook',
    load: (s) => {
      book = new OrderbooksBook(SYMBOL, options);
      book.handleSnapshot([...s.bids.map(toLevel('Buy')), ...s.asks.map(toLevel('Sell'))], 0);
    },
    apply: (f) => {
      const deletes: ObLevel[] = [];
      const upserts: ObLevel[] = [];
      for (const l of f.bids) (l.size_base_lots === '0' ? deletes : upserts).push(OrderBookLevel(SYMBOL, Number(l.price_ticks), 'Buy', Number(l.size_base_lots)));
      for (const l of f.asks) (l.size_base_lots === '0' ? deletes : upserts).push(OrderBookLevel(SYMBOL, Number(l.price_ticks), 'Sell', Number(l.size_base_lots)));
      book.handleDelta(deletes, upserts, [], 0);
    },
    best: () => {
      const levels = book.book;
      const b = firstBid(levels);
      return (levels[b]![PRICE] as number) + (levels[b - 1]![PRICE] as number);
    },
    top10: (cb) => {
      const levels = book.book;
      const b = firstBid(levels);
      for (let i = b; i < b + 10 && i < levels.length; i++) cb(levels[i]![PRICE] as number, levels[i]![QTY] as number);
      for (let i = b - 1; i >= b - 10 && i >= 0; i--) cb(levels[i]![PRICE] as number, levels[i]![QTY] as number);
    },
    exactTop: (n) => {
      const levels = book.book;
      const b = firstBid(levels);
      const pair = (l: ObLevel): [string, string] => [String(l[PRICE]), String(l[QTY])];
      return { bids: levels.slice(b, b + n).map(pair), asks: levels.slice(Math.max(0, b - n), b).reverse().map(pair) };
    },
  };
};

/** The baseline: its loop measures the harness alone. */
export const noopAdapter: CheckedFactory = () => ({
  name: 'no-op',
  load: () => undefined,
  apply: () => undefined,
  best: () => 0,
  top10: () => undefined,
  exactTop: () => ({ bids: [], asks: [] }),
});
