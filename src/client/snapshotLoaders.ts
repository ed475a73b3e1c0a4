/**
 * The two generic snapshot loads: one request (most channels) and every page of a listing
 * that is one snapshot (`orders`: each page carries the first page's sequence, each order
 * shows up once). Pages are walked by the shared cursor loop (`walkCursor`).
 */
import { CHANNELS, streamKey, type ChannelName, type ParamValues } from '../protocol';
import type { ErrorContext } from '../errors';
import { walkCursor } from '../rest/walkCursor';
import { SnapshotError } from '../replicas/SnapshotError';
import type { LoadedSnapshot, SnapshotPage, SnapshotRequest } from '../replicas/SnapshotFetcher';
import { UniqueRecords } from '../replicas/UniqueRecords';

/** Upper bound of pages followed for one all-pages snapshot. @default 1000 */
export const DEFAULT_MAX_SNAPSHOT_PAGES = 1000;

/**
 * Reads the `sequence` of a snapshot answer.
 * @throws SnapshotError when it is missing or not a decimal integer.
 */
export function pageSequence(page: SnapshotPage, request: Pick<SnapshotRequest, 'channel' | 'scope'>): bigint {
  const s = page.sequence;
  if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) {
    throw new SnapshotError(`the snapshot of ${streamKey(request.channel, request.scope)} carries no valid 'sequence' (got ${JSON.stringify(s)})`, snapshotContext(request));
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
 * What identifies a record within one listing of a channel's snapshot: the field read from
 * each record, for the channels whose snapshot is paged and whose records have one.
 */
const RECORD_KEYS: Partial<Record<ChannelName, string>> = { orders: 'order_id' };

/**
 * Every page of the channel's snapshot operation, concatenated (walked by `walkCursor`). All
 * pages must carry the first page's sequence (they are one snapshot), and no record may show
 * up twice: a repeated `order_id` means the server's listing is not one consistent keyset
 * walk (it may as well have skipped records), so the snapshot is refused rather than merged.
 * @throws SnapshotError when a page carries another sequence, a record repeats, or the
 * listing has more than `maxPages` pages; CursorRepeatedError when a page answers a
 * `next_cursor` already sent for this snapshot.
 */
export async function loadAllPages(request: SnapshotRequest, maxPages = DEFAULT_MAX_SNAPSHOT_PAGES): Promise<LoadedSnapshot<unknown[]>> {
  const key = RECORD_KEYS[request.channel];
  const listing = `the snapshot of ${streamKey(request.channel, request.scope)}`;
  const context = snapshotContext(request);
  const unique = new UniqueRecords<unknown>(listing, context, key === undefined ? undefined : { name: key, of: (r) => (r as Record<string, unknown>)[key] });
  let first: { readonly page: SnapshotPage; readonly sequence: bigint } | undefined;
  let more = false;
  let pages = 0;
  for await (const page of walkCursor(snapshotPageFetcher(request), { maxPages, listing, context })) {
    pages++;
    const s = pageSequence(page, request);
    first ??= { page, sequence: s };
    if (s !== first.sequence) {
      throw new SnapshotError(`page ${pages} of ${listing} carries sequence ${s}, the first page ${first.sequence}: every page of one snapshot must carry the first page's sequence`, context);
    }
    unique.add(asArray(page, request), pages);
    more = page.next_cursor !== null && page.next_cursor !== undefined;
  }
  // walkCursor yields at least one page or throws: this guard only narrows `first`.
  if (first === undefined) throw new SnapshotError(`${listing} answered no page`, context);
  if (more) throw new SnapshotError(`${listing} has more than ${maxPages} pages (the bound of pages read for one snapshot)`, context);
  return { data: unique.records, sequence: first.sequence, timestampNs: pageTimestamp(first.page) };
}

/**
 * Fetches one page of the channel's snapshot operation: the first one without `cursor`.
 * @internal
 */
export function snapshotPageFetcher(request: SnapshotRequest): (cursor: string | undefined) => Promise<SnapshotPage> {
  const op = CHANNELS[request.channel].snapshot;
  const base = snapshotParams(request);
  return (cursor) => request.fetch(op, cursor === undefined ? base : { ...base, cursor }, request.signal);
}

/**
 * The `data` of a list answer.
 * @throws SnapshotError when it is not an array.
 */
export function asArray(page: SnapshotPage, request: Pick<SnapshotRequest, 'channel' | 'scope'>): readonly unknown[] {
  if (!Array.isArray(page.data)) throw new SnapshotError(`the snapshot of ${streamKey(request.channel, request.scope)} is not a list`, snapshotContext(request));
  return page.data;
}

/** The error context of a snapshot load. @internal */
export function snapshotContext(request: Pick<SnapshotRequest, 'channel' | 'scope'>): ErrorContext {
  return { channel: request.channel, stream: streamKey(request.channel, request.scope), operation: CHANNELS[request.channel].snapshot };
}
