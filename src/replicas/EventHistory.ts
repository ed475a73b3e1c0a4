/** The snapshot of an event stream, as its source answers it (the exchange pages it: client/eventHistory.ts). */

/** Pages fetched at most per event-stream resync (100 records each). @default 10 */
export const DEFAULT_MAX_HISTORY_PAGES = 10;

/** Records of a history walk, newest first. */
export interface EventHistory<T> {
  readonly records: readonly T[];
  /** True when the walk reached the end of the server's history (`next_cursor` null). */
  readonly exhausted: boolean;
}
