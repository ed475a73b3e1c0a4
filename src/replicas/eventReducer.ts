/**
 * The reducer of event streams (`trades`, `fills`, `fundingRates`): lists of records, not
 * states (streaming-protocol.md section 5, last paragraphs). Every record with a `sequence`
 * above the last one delivered is delivered exactly once, in `sequence` order; after a
 * resync the history is paged back as far as needed, and where it does not reach one gap
 * marker names the range missed. Nothing already delivered is delivered again.
 *
 * Delivery is a value: each state carries the items its step delivered (`delivered`, a new
 * array per step, never changed afterwards); the EventReplica hands them on as the state is
 * shown. A fold of several steps shown as one is joined into one state (see Reducer.join).
 */
import { positiveInteger } from '../util/positiveInteger';
import type { ChannelName } from '../protocol';
import { estimateBytes } from './estimateBytes';
import type { EventItem } from './EventItem';
import { DEFAULT_MAX_HISTORY_PAGES, type EventHistory } from './EventHistory';
import type { Reducer } from './Reducer';

/** Records kept in `recent`. @default 100 */
export const DEFAULT_RECENT_LIMIT = 100;

/** Bytes of records kept in `recent` (each at its estimated size). @default 1048576 (1 MiB) */
export const DEFAULT_RECENT_MAX_BYTES = 1024 * 1024;

/** What consumers see of an event stream's state. */
export interface EventLog<T> {
  /**
   * The newest records of the stream at the replica's position (the snapshot's, then each
   * update's), oldest first: what the exchange's newest page shows at that `seq`.
   */
  readonly recent: readonly T[];
  /** The `sequence` of the last record delivered (the watermark), undefined before any. */
  readonly lastSequence: bigint | undefined;
}

/** The reducer's state: the log plus the items its step delivered. @internal */
export interface EventLogState<T> extends EventLog<T> {
  /**
   * The items delivered by the step that made this state (a snapshot, an update, or a fold of
   * them shown as one), in `sequence` order, each above the `lastSequence` of the state the
   * step started from. A state returned unchanged (nothing new) keeps its own.
   */
  readonly delivered: readonly EventItem<T>[];
  /** The estimated bytes of `recent` (see estimateBytes); measured from `recent` when absent. */
  readonly recentBytes?: number;
}

/** How one event channel's records are found and ordered. */
export interface EventChannelSpec<T> {
  readonly channel: ChannelName;
  /** The records of an update's `data`. */
  readonly recordsOf: (data: unknown) => readonly T[];
  readonly sequenceOf: (record: T) => bigint;
}

export interface EventReducerOptions {
  /** Records kept in `recent`. @default DEFAULT_RECENT_LIMIT */
  readonly recentLimit?: number;
  /**
   * Bytes of records kept in `recent`, each record counted at its estimated size (its strings'
   * lengths, 8 bytes a scalar, 16 an object: a record's digit strings may be as long as the
   * frame that carried it). Beyond, the oldest records leave `recent` before `recentLimit` is
   * reached (each was delivered on `events$`); the newest one always stays.
   * @default DEFAULT_RECENT_MAX_BYTES (1 MiB)
   */
  readonly recentMaxBytes?: number;
  /** Pages of history read at most per resync. @default DEFAULT_MAX_HISTORY_PAGES */
  readonly maxHistoryPages?: number;
}

/**
 * @throws InvalidParameterError when an option is not a positive integer.
 */
export function createEventReducer<T>(spec: EventChannelSpec<T>, options: EventReducerOptions = {}): Reducer<EventLogState<T>, unknown, EventHistory<T>> {
  const recentLimit = positiveInteger(options.recentLimit ?? DEFAULT_RECENT_LIMIT, 'recentLimit');
  const recentMaxBytes = positiveInteger(options.recentMaxBytes ?? DEFAULT_RECENT_MAX_BYTES, 'recentMaxBytes');
  const maxPages = positiveInteger(options.maxHistoryPages ?? DEFAULT_MAX_HISTORY_PAGES, 'maxHistoryPages');
  const seqOf = spec.sequenceOf;

  /** Sorted by sequence, one record per sequence. */
  const ascending = (records: readonly T[]): T[] => {
    const bySeq = new Map<bigint, T>();
    for (const r of records) bySeq.set(seqOf(r), r);
    return [...bySeq.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, r]) => r);
  };
  /** The newest of `records` (ascending) within both bounds of `recent`, and their bytes. */
  const keepRecent = (records: readonly T[]): { readonly recent: readonly T[]; readonly recentBytes: number } => {
    const floor = Math.max(0, records.length - recentLimit);
    let start = records.length;
    let bytes = 0;
    for (; start > floor; start--) {
      const size = estimateBytes(records[start - 1]);
      if (start < records.length && bytes + size > recentMaxBytes) break;
      bytes += size;
    }
    return { recent: start === 0 ? records : records.slice(start), recentBytes: bytes };
  };
  const asItems = (records: readonly T[]): EventItem<T>[] => records.map((record) => ({ kind: 'record', sequence: seqOf(record), record }));

  return {
    channel: spec.channel,

    snapshotSince: (previous) => ({ watermark: previous.lastSequence, maxPages }),

    fromSnapshot(history, _scope, previous) {
      const sorted = ascending(history.records);
      if (!previous) {
        // First sync: the newest page is the history the consumer starts from.
        const last = sorted[sorted.length - 1];
        const kept = keepRecent(sorted);
        return { recent: kept.recent, lastSequence: last === undefined ? undefined : seqOf(last), delivered: asItems(sorted), recentBytes: kept.recentBytes };
      }
      const watermark = previous.lastSequence;
      // Without a watermark (nothing delivered yet) every record is new.
      const newer = watermark === undefined ? sorted : sorted.filter((r) => seqOf(r) > watermark);
      const oldestNew = newer[0];
      const delivered: EventItem<T>[] = [];
      if (oldestNew !== undefined) {
        const reached = sorted.length > newer.length;
        // Without the watermark in sight, records between it and the oldest one fetched may be lost.
        const from = watermark === undefined ? (history.exhausted ? undefined : 0n) : reached ? undefined : watermark + 1n;
        if (from !== undefined && seqOf(oldestNew) > from) delivered.push({ kind: 'gap', fromSequence: from, toSequence: seqOf(oldestNew) - 1n, reason: 'history' });
      }
      for (const item of asItems(newer)) delivered.push(item);
      const last = newer[newer.length - 1];
      const kept = keepRecent(sorted);
      // One shape of state for every step (the fields in one order): the hot path reads them.
      return { recent: kept.recent, lastSequence: last === undefined ? watermark : seqOf(last), delivered, recentBytes: kept.recentBytes };
    },

    apply(state, data) {
      const given = spec.recordsOf(data);
      // The common update (records already in ascending order): each sequence read once.
      const seqs = strictlyAscendingSeqs(given, seqOf);
      const records = seqs === undefined ? ascending(given) : given;
      const seqAt = seqs === undefined ? (i: number) => seqOf(records[i]!) : (i: number) => seqs[i]!;
      // `recent` follows the stream position: after a snapshot older than the watermark (a
      // source that replays, a REST answer behind the stream) the updates folded on it bring
      // back records already delivered; they belong in `recent`, not in `delivered`.
      const newestKept = state.recent.length === 0 ? undefined : seqOf(state.recent[state.recent.length - 1]!);
      // Ascending: the records past a sequence are a suffix.
      const keptFrom = newestKept === undefined ? 0 : firstAbove(records.length, seqAt, newestKept);
      const watermark = state.lastSequence;
      const freshFrom = watermark === undefined ? 0 : firstAbove(records.length, seqAt, watermark);
      const n = records.length;
      if (keptFrom === n && freshFrom === n) return state;
      const delivered: EventItem<T>[] = [];
      for (let i = freshFrom; i < n; i++) delivered.push({ kind: 'record', sequence: seqAt(i), record: records[i]! });
      const lastSequence = freshFrom === n ? state.lastSequence : seqAt(n - 1);
      if (keptFrom === n) return { recent: state.recent, lastSequence, delivered, recentBytes: state.recentBytes };
      const size = { bytes: state.recentBytes ?? sumBytes(state.recent) };
      const recent = appendRecent(state.recent, size, records, keptFrom, recentLimit, recentMaxBytes);
      return { recent, lastSequence, delivered, recentBytes: size.bytes };
    },

    join(folded) {
      const last = folded[folded.length - 1]!;
      if (folded.length === 1) return last;
      // Each step's items once (a step that found nothing new returned the state it was given).
      const delivered: EventItem<T>[] = [];
      let before: EventLogState<T> | undefined;
      for (const state of folded) {
        if (state !== before) for (const item of state.delivered) delivered.push(item);
        before = state;
      }
      return { recent: last.recent, lastSequence: last.lastSequence, delivered, recentBytes: last.recentBytes };
    },
  };
}

/** The sequences of `records` when they are strictly ascending (each read once), else undefined. */
function strictlyAscendingSeqs<T>(records: readonly T[], seqOf: (record: T) => bigint): bigint[] | undefined {
  const seqs: bigint[] = [];
  for (let i = 0; i < records.length; i++) {
    const seq = seqOf(records[i]!);
    if (i > 0 && !(seq > seqs[i - 1]!)) return undefined;
    seqs.push(seq);
  }
  return seqs;
}

/** The first index of an ascending run of `n` sequences whose sequence is above `bound` (n: none). */
function firstAbove(n: number, seqAt: (i: number) => bigint, bound: bigint): number {
  let i = n;
  while (i > 0 && seqAt(i - 1) > bound) i--;
  return i;
}

/**
 * `recent` (of `size.bytes`) then `records[from..]`: the newest `limit` of them, then the
 * oldest of those dropped while they pass `maxBytes` (the newest stays), in one new array
 * (the old one stays as emitted); `size.bytes` becomes the bytes of that array. Measures only
 * the records that come and go.
 */
function appendRecent<T>(recent: readonly T[], size: { bytes: number }, records: readonly T[], from: number, limit: number, maxBytes: number): readonly T[] {
  let addFrom = Math.max(from, records.length - limit);
  let keepFrom = Math.min(recent.length, Math.max(0, recent.length + (records.length - from) - limit));
  let bytes = size.bytes;
  for (let i = 0; i < keepFrom; i++) bytes -= estimateBytes(recent[i]);
  for (let i = addFrom; i < records.length; i++) bytes += estimateBytes(records[i]);
  // Over the byte bound: the oldest go first, the newest record stays.
  while (bytes > maxBytes && (recent.length - keepFrom) + (records.length - addFrom) > 1) {
    if (keepFrom < recent.length) bytes -= estimateBytes(recent[keepFrom++]);
    else bytes -= estimateBytes(records[addFrom++]);
  }
  const out: T[] = [];
  for (let i = keepFrom; i < recent.length; i++) out.push(recent[i]!);
  for (let i = addFrom; i < records.length; i++) out.push(records[i]!);
  size.bytes = bytes;
  return out;
}

/** The estimated bytes of `records`. */
function sumBytes(records: readonly unknown[]): number {
  let bytes = 0;
  for (const r of records) bytes += estimateBytes(r);
  return bytes;
}
