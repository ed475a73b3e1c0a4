/**
 * The reference model for the property tests: the exchange's whole book as one Map per side
 * (price -> size, sorted only when read), the snapshot the server would send (the best
 * `depthLimit` levels a side), and what the 500-level rule lets a replica present: the truth
 * within the covered range, plus the levels an update set beyond it.
 */
import type { PriceLevel, Side } from '../../../src/protocol';

export interface Change {
  side: Side;
  price: bigint;
  /** 0n removes. */
  size: bigint;
}

const better = (side: Side, a: bigint, b: bigint) => (side === 'bid' ? a > b : a < b);

export class BookModel {
  readonly truth: Record<Side, Map<bigint, bigint>> = { bid: new Map(), ask: new Map() };
  /** Deepest price the replica's snapshot covered, per truncated side. */
  boundary: Record<Side, bigint | undefined> = { bid: undefined, ask: undefined };
  /** Prices an update has set since the replica's snapshot. */
  touched: Record<Side, Set<bigint>> = { bid: new Set(), ask: new Set() };

  constructor(readonly depthLimit: number) {}

  /** The whole side sorted best first. */
  sorted(side: Side): [bigint, bigint][] {
    return [...this.truth[side]].sort(([a], [b]) => (better(side, a, b) ? -1 : better(side, b, a) ? 1 : 0));
  }

  /** The snapshot the server sends now; remembers what it covered. */
  takeSnapshot(): { bids: PriceLevel[]; asks: PriceLevel[] } {
    const cut = (side: Side) => {
      const levels = this.sorted(side).slice(0, this.depthLimit);
      this.boundary[side] = levels.length >= this.depthLimit && levels.length > 0 ? levels[levels.length - 1]![0] : undefined;
      this.touched[side] = new Set();
      return levels.map(wire);
    };
    return { bids: cut('bid'), asks: cut('ask') };
  }

  apply(changes: readonly Change[]): void {
    for (const c of changes) {
      if (c.size === 0n) this.truth[c.side].delete(c.price);
      else this.truth[c.side].set(c.price, c.size);
      this.touched[c.side].add(c.price);
    }
  }

  /** The levels a correct replica presents, best first. */
  presented(side: Side): [bigint, bigint][] {
    const b = this.boundary[side];
    return this.sorted(side).filter(([p]) => b === undefined || !better(side, b, p) || this.touched[side].has(p));
  }

  /** A truncated side whose covered range holds no level has an unknown best price. */
  lostBest(side: Side): boolean {
    const b = this.boundary[side];
    if (b === undefined) return false;
    return !this.sorted(side).some(([p]) => !better(side, b, p));
  }

  crossed(): boolean {
    const bid = this.sorted('bid')[0];
    const ask = this.sorted('ask')[0];
    return bid !== undefined && ask !== undefined && bid[0] >= ask[0];
  }
}

export const wire = ([p, s]: [bigint, bigint]): PriceLevel => ({ price_ticks: String(p), size_base_lots: String(s) });

/** An update's `data` for a list of changes. */
export function frameOf(changes: readonly Change[]): { bids: PriceLevel[]; asks: PriceLevel[] } {
  const pick = (side: Side) => changes.filter((c) => c.side === side).map((c) => wire([c.price, c.size]));
  return { bids: pick('bid'), asks: pick('ask') };
}
