/**
 * The exchange's snapshot of an event stream: its newest page, plus older pages (by `cursor`) as far as
 * needed to reach the last record already delivered, within a bound.
 */
import { streamKey } from '../protocol';
import { walkCursor } from '../rest/walkCursor';
import { SnapshotError } from '../replicas/SnapshotError';
import { DEFAULT_MAX_HISTORY_PAGES, type EventHistory } from '../replicas/EventHistory';
import type { LoadedSnapshot, SnapshotPage, SnapshotRequest } from '../replicas/SnapshotFetcher';
import { asArray, pageSequence, pageTimestamp, snapshotContext, snapshotPageFetcher } from './snapshotLoaders';
import { UniqueRecords } from '../replicas/UniqueRecords';

/** Where a history walk must reach back to. */
export type HistoryTarget =
  /** First sync: the newest page only. */
  | { readonly kind: 'newest' }
  /** Every record above `watermark` (the last delivered; undefined when none was yet). */
  | { readonly kind: 'since'; readonly watermark: bigint | undefined };

/**
 * Loads the first page; for a `since` target, follows `next_cursor` (through the shared
 * cursor loop, `walkCursor`) until a record at or below the watermark shows up, the history
 * ends, or `maxPages` pages were read. The sequence S is the first page's: older pages hold
 * older records. Each record shows up at most once: event records are identified by their
 * `sequence` (strictly increasing per stream), so a repeated one means the server's history
 * is not one keyset walk, and the load fails rather than guess which copy is right.
 * @throws SnapshotError when the first page carries no valid `sequence`, a page is not a
 * list, or a record's sequence repeats; CursorRepeatedError when a page answers a
 * `next_cursor` already sent in this walk.
 */
export async function loadEventHistory<T>(
  request: SnapshotRequest,
  target: HistoryTarget,
  sequenceOf: (record: T) => bigint,
  maxPages = DEFAULT_MAX_HISTORY_PAGES,
): Promise<LoadedSnapshot<EventHistory<T>>> {
  const watermark = target.kind === 'since' ? target.watermark : undefined;
  const reaches = (rows: readonly T[]) => target.kind === 'newest' || (watermark !== undefined && rows.some((r) => sequenceOf(r) <= watermark));
  const listing = `the history of ${streamKey(request.channel, request.scope)}`;
  const context = snapshotContext(request);
  const unique = new UniqueRecords<T>(listing, context, { name: 'sequence', of: sequenceOf });
  let first: { readonly page: SnapshotPage; readonly sequence: bigint } | undefined;
  let exhausted = false;
  let pages = 0;
  for await (const page of walkCursor(snapshotPageFetcher(request), { maxPages, listing, context })) {
    pages++;
    first ??= { page, sequence: pageSequence(page, request) };
    const rows = asArray(page, request) as readonly T[];
    unique.add(rows, pages);
    exhausted = page.next_cursor === null || page.next_cursor === undefined;
    if (reaches(rows)) break;
  }
  // walkCursor yields at least one page or throws: this guard only narrows `first`.
  if (first === undefined) throw new SnapshotError(`${listing} answered no page`, context);
  return { data: { records: unique.records, exhausted }, sequence: first.sequence, timestampNs: pageTimestamp(first.page) };
}

export { DEFAULT_MAX_HISTORY_PAGES, type EventHistory };
