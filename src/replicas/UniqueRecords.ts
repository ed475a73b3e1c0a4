/**
 * The records of one listing (a snapshot's or a history's pages), in order, each at most
 * once by its identity: a record listed twice means the server's pages are not one keyset
 * walk, so the load fails rather than merge (the listing may as well have skipped records).
 * @internal
 */
import type { ErrorContext } from '../errors';
import { SnapshotError } from './SnapshotError';

/** What identifies a record within a listing. */
export interface RecordIdentity<T> {
  /** Names the identity in error messages (e.g. `order_id`, `sequence`). */
  readonly name: string;
  /** The identity of a record (compared with SameValueZero: strings, numbers, bigints). */
  readonly of: (record: T) => unknown;
}

/** @internal */
export class UniqueRecords<T> {
  /** The records added so far, in order. */
  readonly records: T[] = [];
  /** Every identity seen, with the (1-based) page it was on. */
  private readonly seen = new Map<unknown, number>();

  /**
   * @param listing names the listing in error messages (e.g. `the snapshot of orders|...`).
   * @param identity undefined keeps every record (the records have no known identity).
   */
  constructor(
    private readonly listing: string,
    private readonly context: ErrorContext,
    private readonly identity: RecordIdentity<T> | undefined,
  ) {}

  /**
   * Appends the rows of page `page`, one by one (no spread: a listing may hold any number of rows).
   * @throws SnapshotError when a row's identity was already seen in this listing.
   */
  add(rows: readonly T[], page: number): void {
    const identity = this.identity;
    for (const row of rows) {
      if (identity !== undefined) {
        const id = identity.of(row);
        const earlier = this.seen.get(id);
        if (earlier !== undefined) {
          const where = earlier === page ? 'earlier on the same page' : `on page ${earlier}`;
          throw new SnapshotError(`page ${page} of ${this.listing} repeats the record with ${identity.name} ${String(id)}, already listed ${where}: a listing must hold each record once`, this.context);
        }
        this.seen.set(id, page);
      }
      this.records.push(row);
    }
  }
}
