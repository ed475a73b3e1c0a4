/**
 * The exchange's side of `ReplicaSource.snapshot`: the whole snapshot of a stream from REST,
 * paging inside. What a channel needs is in its row of the channels table
 * (src/protocol/channels.ts): one page of its snapshot operation; every page of it
 * (`allPages`: the orders listing); or, for an event channel, its history from the newest
 * page back as far as the query asks (`since`).
 */
import { CHANNELS } from '../protocol';
import type { LoadedSnapshot, SnapshotFetcher, SnapshotQuery, SnapshotRequest } from '../replicas';
import { DEFAULT_MAX_HISTORY_PAGES, loadEventHistory } from './eventHistory';
import { loadAllPages, loadSinglePage } from './snapshotLoaders';

/**
 * @example
 * const loaded = await loadExchangeSnapshot({ channel: 'orders', scope, signal }, (op, params, signal) => rest.call(op, params, { signal }));
 * @throws SnapshotError (no sequence, pages that disagree, a record twice), CursorRepeatedError, and what `fetch` throws
 */
export function loadExchangeSnapshot(query: SnapshotQuery, fetch: SnapshotFetcher): Promise<LoadedSnapshot> {
  const request: SnapshotRequest = { channel: query.channel, scope: query.scope, fetch, signal: query.signal };
  const def = CHANNELS[query.channel];
  if (def.kind === 'events') {
    const field = def.events.sequence;
    const sequenceOf = (record: Record<string, unknown>): bigint => BigInt(record[field] as string);
    const since = query.since;
    return loadEventHistory(request, since === undefined ? { kind: 'newest' } : { kind: 'since', watermark: since.watermark }, sequenceOf, since?.maxPages ?? DEFAULT_MAX_HISTORY_PAGES);
  }
  if (def.kind === 'upsert' && def.upsert.allPages) return loadAllPages(request);
  return loadSinglePage(request);
}
