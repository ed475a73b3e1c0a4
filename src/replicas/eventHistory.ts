/**
 * The snapshot of an event stream: its newest page, plus older pages (by `cursor`) as far as
 * needed to reach the last record already delivered, within a bound.
 */
import { CHANNELS } from '../protocol';
import type { LoadedSnapshot, SnapshotRequest } from './SnapshotFetcher';
import { asArray, pageSequence, pageTimestamp, snapshotParams } from './snapshotLoaders';

/** Pages fetched at most per event-stream resync (100 records each). @default 10 */
export const DEFAULT_MAX_HISTORY_PAGES = 10;

/** Records of a history walk, newest first. */
export interface EventHistory<T> {
  readonly records: readonly T[];
  /** True when the walk reached the end of the server's history (`next_cursor` null). */
  readonly exhausted: boolean;
}

/** Where a history walk must reach back to. */
export type HistoryTarget =
  /** First sync: the newest page only. */
  | { readonly kind: 'newest' }
  /** Every record above `watermark` (the last delivered; undefined when none was yet). */
  | { readonly kind: 'since'; readonly watermark: bigint | undefined };

/**
 * Loads the first page; for a `since` target, follows `next_cursor` until a record at or
 * below the watermark shows up, the history ends, or `maxPages` pages were read. The
 * sequence S is the first page's: older pages hold older records.
 */
export async function loadEventHistory<T>(
  request: SnapshotRequest,
  target: HistoryTarget,
  sequenceOf: (record: T) => bigint,
  maxPages = DEFAULT_MAX_HISTORY_PAGES,
): Promise<LoadedSnapshot<EventHistory<T>>> {
  const watermark = target.kind === 'since' ? target.watermark : undefined;
  const reaches = (rows: readonly T[]) => target.kind === 'newest' || (watermark !== undefined && rows.some((r) => sequenceOf(r) <= watermark));
  const op = CHANNELS[request.channel].snapshot;
  const base = snapshotParams(request);
  const first = await request.fetch(op, base, request.signal);
  const records = [...(asArray(first, request) as readonly T[])];
  let cursor = first.next_cursor;
  let reached = reaches(records);
  for (let pages = 1; !reached && cursor && pages < maxPages; pages++) {
    const page = await request.fetch(op, { ...base, cursor }, request.signal);
    const rows = asArray(page, request) as readonly T[];
    records.push(...rows);
    reached = reaches(rows);
    cursor = page.next_cursor;
  }
  return { data: { records, exhausted: !cursor }, sequence: pageSequence(first, request), timestampNs: pageTimestamp(first) };
}
