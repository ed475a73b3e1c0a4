/**
 * Walks every page of a paged operation by following `next_cursor` (a keyset position:
 * no record repeats or is skipped), through the library's one cursor loop (`walkCursor`):
 * bounded by `maxPages`, and failing on a cursor already sent, so a misbehaving server
 * cannot make a caller loop forever or read the same pages again.
 */
import { OPERATION_NAMES, OPERATIONS } from '../protocol';
import { InvalidParameterError } from '../errors';
import { positiveInteger } from '../util/positiveInteger';
import type { OperationParams, OperationResponse, PagedOperationName, RequestOptions } from './operationTypes';
import type { RestClient } from './RestClient';
import { walkCursor } from './walkCursor';

/** Options of {@link paginate}. */
export interface PaginateOptions extends RequestOptions {
  /** Stop after this many pages even when the server offers more. @default 100 */
  readonly maxPages?: number;
}

const PAGED: readonly string[] = OPERATION_NAMES.filter((n) => OPERATIONS[n].pages);

/**
 * Async iterator over the pages (whole envelopes) of `name`, starting at `params.cursor`
 * when given. Ends after the page whose `next_cursor` is null, or after `maxPages` pages;
 * in the latter case the last page yielded still has a non-null `next_cursor`, which the
 * caller can pass back to continue. Breaking out of the loop sends no further request.
 *
 * @example
 * for await (const page of paginate(rest, 'trades', { market_type: 'perp', market_id: 0, limit: 100 })) {
 *   for (const t of page.data) handle(t);
 * }
 * @throws InvalidParameterError (at once, before any request) when `name` does not page or
 * `maxPages` is not a positive integer; each page's request rejects like the client's methods;
 * CursorRepeatedError (`ERR_CURSOR_REPEATED`) when a page answers a `next_cursor` already
 * sent in this walk (a cursor cycle of any length, the page's own cursor included), before
 * that cursor is requested again.
 */
export function paginate<N extends PagedOperationName>(
  rest: Pick<RestClient, 'call'>,
  name: N,
  params: OperationParams<N>,
  options: PaginateOptions = {},
): AsyncGenerator<OperationResponse<N>, void, undefined> {
  if (!PAGED.includes(name)) {
    throw new InvalidParameterError(`paginate: operation ${JSON.stringify(name)} does not page; operations that page are ${PAGED.join(', ')}`, { operation: String(name), param: 'operation' });
  }
  const { maxPages = 100, ...requestOptions } = options;
  positiveInteger(maxPages, 'maxPages', 'paginate', { operation: name });
  const fetchPage = (cursor: string | undefined) => rest.call(name, cursor === undefined ? params : { ...params, cursor }, requestOptions);
  const startCursor = 'cursor' in params && typeof params.cursor === 'string' ? params.cursor : undefined;
  return walkCursor(fetchPage, { maxPages, startCursor, listing: name, context: { operation: name } });
}
