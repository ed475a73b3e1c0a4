/**
 * Keeps `/v1/orders` listings consistent across pages: the first page of a listing that has
 * more pages freezes its full result (order records are immutable, so this is one array of
 * references) with the stream seq it was taken at; later pages are served from it. Bounded:
 * the least recently used listings are forgotten, and a cursor of a forgotten listing is a
 * 400 naming `cursor` (start the listing again). @internal
 */
import type { Order } from '../../../protocol';

interface Listing {
  readonly key: string;
  readonly rows: readonly Order[];
  readonly sequence: bigint;
}

export class OrderListings {
  private readonly listings = new Map<string, Listing>();
  private nextId = 1;

  /** @param capacity listings kept at once. @default 256 */
  constructor(private readonly capacity = 256) {}

  /** Freezes a listing; returns its id for the cursor. */
  store(key: string, rows: readonly Order[], sequence: bigint): string {
    const id = String(this.nextId++);
    this.listings.set(id, { key, rows, sequence });
    if (this.listings.size > this.capacity) this.listings.delete(this.listings.keys().next().value!);
    return id;
  }

  /** The listing with that id if it exists and was made for the same query `key`. */
  get(id: string, key: string): Listing | undefined {
    const l = this.listings.get(id);
    if (!l || l.key !== key) return undefined;
    this.listings.delete(id);
    this.listings.set(id, l);
    return l;
  }
}
