/**
 * The two generic snapshot loads: one request (most channels) and every page of a listing
 * that is one snapshot (`orders`: each page carries the first page's sequence).
 */
import { CHANNELS, streamKey, type ParamValues } from '../protocol';
import { SnapshotError } from './SnapshotError';
import type { LoadedSnapshot, SnapshotPage, SnapshotRequest } from './SnapshotFetcher';

/** Upper bound of pages followed for one all-pages snapshot. @default 1000 */
export const DEFAULT_MAX_SNAPSHOT_PAGES = 1000;

/**
 * Reads the `sequence` of a snapshot answer.
 * @throws SnapshotError when it is missing or not a decimal integer.
 */
export function pageSequence(page: SnapshotPage, request: Pick<SnapshotRequest, 'channel' | 'scope'>): bigint {
  const s = page.sequence;
  if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) {
    throw new SnapshotError(`the snapshot of ${streamKey(request.channel, request.scope)} carries no valid 'sequence' (got ${JSON.stringify(s)})`, ctx(request));
  }
  return BigInt(s);
}

/** The server time of an answer, 0n when absent. */
export function pageTimestamp(page: SnapshotPage): bigint {
  return typeof page.timestamp_ns === 'string' && /^[0-9]+$/.test(page.timestamp_ns) ? BigInt(page.timestamp_ns) : 0n;
}

/** The snapshot parameters of a request's channel and scope. */
export function snapshotParams(request: Pick<SnapshotRequest, 'channel' | 'scope'>): ParamValues {
  return CHANNELS[request.channel].snapshotParams(request.scope);
}

/** One request of the channel's snapshot operation. */
export async function loadSinglePage(request: SnapshotRequest): Promise<LoadedSnapshot> {
  const page = await request.fetch(CHANNELS[request.channel].snapshot, snapshotParams(request), request.signal);
  return { data: page.data, sequence: pageSequence(page, request), timestampNs: pageTimestamp(page) };
}

/**
 * Every page of the channel's snapshot operation, concatenated. All pages must carry the
 * first page's sequence (they are one snapshot).
 * @throws SnapshotError when a page carries another sequence, or after `maxPages` pages.
 */
export async function loadAllPages(request: SnapshotRequest, maxPages = DEFAULT_MAX_SNAPSHOT_PAGES): Promise<LoadedSnapshot<unknown[]>> {
  const op = CHANNELS[request.channel].snapshot;
  const base = snapshotParams(request);
  const first = await request.fetch(op, base, request.signal);
  const sequence = pageSequence(first, request);
  const items: unknown[] = [...asArray(first, request)];
  let cursor = first.next_cursor;
  for (let pages = 1; cursor; pages++) {
    if (pages >= maxPages) throw new SnapshotError(`the snapshot of ${streamKey(request.channel, request.scope)} has more than ${maxPages} pages`, ctx(request));
    const page = await request.fetch(op, { ...base, cursor }, request.signal);
    const s = pageSequence(page, request);
    if (s !== sequence) {
      throw new SnapshotError(`page ${pages + 1} of the snapshot of ${streamKey(request.channel, request.scope)} carries sequence ${s}, the first page ${sequence}`, ctx(request));
    }
    items.push(...asArray(page, request));
    cursor = page.next_cursor;
  }
  return { data: items, sequence, timestampNs: pageTimestamp(first) };
}

/**
 * The `data` of a list answer.
 * @throws SnapshotError when it is not an array.
 */
export function asArray(page: SnapshotPage, request: Pick<SnapshotRequest, 'channel' | 'scope'>): readonly unknown[] {
  if (!Array.isArray(page.data)) throw new SnapshotError(`the snapshot of ${streamKey(request.channel, request.scope)} is not a list`, ctx(request));
  return page.data;
}

function ctx(request: Pick<SnapshotRequest, 'channel' | 'scope'>) {
  return { channel: request.channel, stream: streamKey(request.channel, request.scope), operation: CHANNELS[request.channel].snapshot };
}
