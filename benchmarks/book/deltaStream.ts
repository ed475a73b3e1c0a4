/**
 * Seeded order book data for the benchmarks: a snapshot of `levels` a side and a stream of
 * `book` update data (frames of 1-3 level changes: new absolute sizes, "0" removes), kept
 * valid by a model of the book: never crossed or locked, no level twice in one frame, the
 * depth held around `levels` a side. Prices are `base + offset` (offsets near 1,000,000
 * ticks), so a `base` of 2^53 puts every price beyond the safe-integer range.
 */
import type { PriceLevel } from '../../src/protocol';
import type { BenchFrame, BenchSnapshot } from '../bookMicro';
import { randomInt, seededRandom } from '../lib/rng';

/** Where the changes land: `top` = 80% within the best 20 levels, `whole` = uniform over the side. */
export type StreamFocus = 'top' | 'whole';

export interface StreamSpec {
  readonly levels: number;
  readonly frames: number;
  readonly seed: number;
  readonly focus: StreamFocus;
  /** Added to every price. @default 0n */
  readonly base?: bigint;
}

export interface DeltaStream {
  readonly snapshot: BenchSnapshot;
  readonly frames: BenchFrame[];
}

const MID = 1_000_000;

/** Builds the snapshot and the frames of `spec`. Deterministic for a given spec. */
export function makeDeltaStream(spec: StreamSpec): DeltaStream {
  const rand = seededRandom(spec.seed);
  const int = (lo: number, hi: number) => randomInt(rand, lo, hi);
  const base = spec.base ?? 0n;
  const wire = (price: number, size: number): PriceLevel => ({ price_ticks: String(base + BigInt(price)), size_base_lots: String(size) });
  // Per side: prices best first (bids descending, asks ascending), with gaps to insert into.
  const sides: [number[], number[]] = [[], []];
  const sizes = new Map<number, number>();
  for (let i = 0, p = MID - 1; i < spec.levels; i++, p -= int(1, 5)) sides[0].push(p);
  for (let i = 0, p = MID + 1; i < spec.levels; i++, p += int(1, 5)) sides[1].push(p);
  for (const side of sides) for (const p of side) sizes.set(p, int(1, 10_000));
  const snapshot: BenchSnapshot = {
    bids: sides[0].map((p) => wire(p, sizes.get(p)!)),
    asks: sides[1].map((p) => wire(p, sizes.get(p)!)),
  };

  const frames: BenchFrame[] = [];
  for (let f = 0; f < spec.frames; f++) {
    const frame: BenchFrame = { bids: [], asks: [], flat: [] };
    const touched = new Set<number>();
    const changes = int(1, 4);
    for (let c = 0; c < changes; c++) {
      const si = int(0, 2) as 0 | 1;
      const prices = sides[si];
      const n = prices.length;
      const top = Math.min(20, n);
      const idx = spec.focus === 'top' ? (rand() < 0.8 || top === n ? int(0, top) : int(top, n)) : int(0, n);
      // Hold the depth near `levels`: removals and insertions balance around it.
      const r = rand();
      const pRemove = n > spec.levels ? 0.35 : n < spec.levels ? 0.15 : 0.25;
      let price = prices[idx]!;
      let size = int(1, 10_000);
      let op: 'set' | 'remove' | 'insert' = r < pRemove && n > 1 ? 'remove' : r < 0.5 ? 'insert' : 'set';
      if (op === 'insert') {
        // A new price between this level and the next better one (or the other side's best).
        const better = idx > 0 ? prices[idx - 1]! : si === 0 ? sides[1][0]! : sides[0][0]!;
        const gap = Math.abs(better - price);
        if (gap > 1) price += si === 0 ? int(1, gap) : -int(1, gap);
        else op = 'set';
      }
      if (touched.has(price)) continue;
      touched.add(price);
      if (op === 'remove') {
        size = 0;
        prices.splice(idx, 1);
        sizes.delete(price);
      } else if (op === 'insert') {
        prices.splice(idx, 0, price);
        sizes.set(price, size);
      } else sizes.set(price, size);
      (si === 0 ? frame.bids : frame.asks).push(wire(price, size));
      frame.flat.push(si, price, size);
    }
    frames.push(frame);
  }
  return { snapshot, frames };
}

/** The best `n` levels of each side as exact strings, best first. */
export interface TopLevels {
  bids: [string, string][];
  asks: [string, string][];
}

/**
 * The plain replay every book is checked against: two maps from price to size, sorted at
 * the end. Slow and obviously right.
 */
export class ReplayBook {
  private readonly bids = new Map<string, string>();
  private readonly asks = new Map<string, string>();

  constructor(snapshot: BenchSnapshot) {
    for (const l of snapshot.bids) this.bids.set(l.price_ticks, l.size_base_lots);
    for (const l of snapshot.asks) this.asks.set(l.price_ticks, l.size_base_lots);
  }

  apply(frame: { bids: readonly PriceLevel[]; asks: readonly PriceLevel[] }): void {
    for (const l of frame.bids) setLevel(this.bids, l);
    for (const l of frame.asks) setLevel(this.asks, l);
  }

  top(n: number): TopLevels {
    return { bids: topOf(this.bids, n, -1), asks: topOf(this.asks, n, 1) };
  }
}

function setLevel(side: Map<string, string>, l: PriceLevel): void {
  // Compare as numbers: "007" and "7" are the same price.
  const key = BigInt(l.price_ticks).toString();
  if (BigInt(l.size_base_lots) === 0n) side.delete(key);
  else side.set(key, BigInt(l.size_base_lots).toString());
}

/** `dir` -1: highest first (bids); 1: lowest first (asks). */
export function topOf(side: ReadonlyMap<string, string>, n: number, dir: 1 | -1): [string, string][] {
  const prices = [...side.keys()].map(BigInt).sort((a, b) => (a < b ? -dir : a > b ? dir : 0));
  return prices.slice(0, n).map((p) => [p.toString(), side.get(p.toString())!]);
}

/** The top levels after replaying the first `count` frames of `stream`. */
export function replayTop(stream: DeltaStream, count: number, n: number): TopLevels {
  const book = new ReplayBook(stream.snapshot);
  for (let i = 0; i < count; i++) book.apply(stream.frames[i]!);
  return book.top(n);
}

/** The first difference between two top-of-book views, or undefined when equal. */
export function diffTop(got: TopLevels, want: TopLevels): string | undefined {
  for (const side of ['bids', 'asks'] as const) {
    const g = got[side];
    const w = want[side];
    for (let i = 0; i < Math.max(g.length, w.length); i++) {
      const a = g[i]?.join('@') ?? 'none';
      const b = w[i]?.join('@') ?? 'none';
      if (a !== b) return `${side}[${i}]: got ${a}, want ${b} (price@size)`;
    }
  }
  return undefined;
}
