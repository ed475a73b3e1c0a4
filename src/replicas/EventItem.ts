/** What an event stream (trades, fills, funding rates) delivers: records, and markers of what was missed. */

/** One record, delivered exactly once, in `sequence` order. */
export interface EventRecord<T> {
  readonly kind: 'record';
  /** The record's own `sequence` (not the stream `seq`). */
  readonly sequence: bigint;
  readonly record: T;
}

/**
 * Records with a `sequence` in `[fromSequence, toSequence]` were missed: the REST history
 * did not reach back far enough after a resync (`history`), or a slow consumer's buffer
 * overflowed (`overflow`).
 */
export interface GapMarker {
  readonly kind: 'gap';
  readonly fromSequence: bigint;
  readonly toSequence: bigint;
  readonly reason: 'history' | 'overflow';
}

export type EventItem<T> = EventRecord<T> | GapMarker;
