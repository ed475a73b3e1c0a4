/**
 * An append-only log of records ordered by a strictly increasing integer key (a sequence),
 * with bounded retention and keyset paging newest first: the cursor is the key of the last
 * row returned, so records appended between pages are never repeated nor do they shift
 * what is left to read. @internal
 */
export interface SeqPage<T> {
  readonly rows: T[];
  /** Key of the last row when older matching rows remain, else undefined. */
  readonly next: number | undefined;
}

export class SeqLog<T> {
  private items: T[] = [];

  constructor(
    private readonly keyOf: (item: T) => number,
    /** Records kept; older ones are dropped in chunks. */
    private readonly retain: number,
  ) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.retain * 1.25) this.items = this.items.slice(this.items.length - this.retain);
  }

  last(): T | undefined {
    return this.items[this.items.length - 1];
  }

  /** First row with the given key, if retained. */
  find(key: number): T | undefined {
    const i = this.lowerBound(key);
    const item = this.items[i];
    return item !== undefined && this.keyOf(item) === key ? item : undefined;
  }

  /** Up to `limit` rows with key < `before` (all when undefined) that match `pred`, newest first. */
  pageNewestFirst(before: number | undefined, limit: number, pred?: (item: T) => boolean): SeqPage<T> {
    const rows: T[] = [];
    let i = (before === undefined ? this.items.length : this.lowerBound(before)) - 1;
    for (; i >= 0 && rows.length < limit; i--) {
      const item = this.items[i]!;
      if (!pred || pred(item)) rows.push(item);
    }
    if (rows.length < limit) return { rows, next: undefined };
    for (; i >= 0; i--) {
      if (!pred || pred(this.items[i]!)) return { rows, next: this.keyOf(rows[rows.length - 1]!) };
    }
    return { rows, next: undefined };
  }

  private lowerBound(key: number): number {
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keyOf(this.items[mid]!) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
