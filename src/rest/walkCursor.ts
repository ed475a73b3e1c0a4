/**
 * The one cursor loop of the library: follows `next_cursor` from page to page, remembering
 * every cursor sent, so that a server answering a cursor of any earlier page (a cycle of
 * any length, the cursor just sent included) fails at once instead of looping. Used by
 * `paginate` and by the replicas' snapshot and history loads.
 */
import { CursorRepeatedError, type ErrorContext } from '../errors';
import { positiveInteger } from '../util/positiveInteger';

/** What a page must carry for the walk: its `next_cursor` (null or absent on the last page). */
export interface CursorPage {
  readonly next_cursor?: string | null;
}

/** Options of {@link walkCursor}. */
export interface WalkCursorOptions {
  /** Pages fetched at most: the walk ends after this many even when the last one offers a cursor. */
  readonly maxPages: number;
  /** The cursor of the first request; undefined starts the listing at its beginning. */
  readonly startCursor?: string;
  /** Names the listing in error messages (e.g. `trades` or `the snapshot of orders|address=...`). */
  readonly listing: string;
  /** Context of the errors thrown. */
  readonly context?: ErrorContext;
}

/** Longest cursor quoted whole in an error message. */
const QUOTED_CURSOR_CHARS = 80;

/**
 * Yields the pages of a listing in order: the first one fetched with `startCursor`, each
 * next one with the previous page's `next_cursor`. Ends after a page without a cursor, or
 * after `maxPages` pages (the last page yielded then still offers its `next_cursor`). A
 * consumer that stops iterating (break, return, throw) stops the walk: no further request.
 *
 * @throws InvalidParameterError when `maxPages` is not a positive integer (before any request).
 * @throws CursorRepeatedError when a page answers a `next_cursor` already sent in this walk.
 * Whatever `fetchPage` rejects with is passed through unchanged.
 */
export async function* walkCursor<P extends CursorPage>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  options: WalkCursorOptions,
): AsyncGenerator<P, void, undefined> {
  const { maxPages, listing, context = {} } = options;
  positiveInteger(maxPages, 'maxPages', listing, context);
  /** Every cursor sent, with the number (1-based) of the page it was sent for. */
  const sent = new Map<string, number>();
  let cursor = options.startCursor;
  for (let page = 1; ; page++) {
    if (cursor !== undefined) sent.set(cursor, page);
    const answer = await fetchPage(cursor);
    yield answer;
    const next = answer.next_cursor;
    if (next === null || next === undefined) return;
    const earlier = sent.get(next);
    if (earlier !== undefined) {
      const quoted = next.length > QUOTED_CURSOR_CHARS ? `${JSON.stringify(next.slice(0, QUOTED_CURSOR_CHARS))}...` : JSON.stringify(next);
      const cycle = earlier === page ? 'the cursor this very page was fetched with' : `the cursor already sent for page ${earlier} (a cycle of ${page - earlier + 1} pages)`;
      throw new CursorRepeatedError(
        `${listing}: page ${page} answered next_cursor ${quoted}, ${cycle}; following it would repeat pages. A listing must answer a cursor not sent before in the walk, or null on its last page`,
        next,
        context,
      );
    }
    if (page >= maxPages) return;
    cursor = next;
  }
}
