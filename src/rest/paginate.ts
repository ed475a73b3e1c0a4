/**
 * Walks every page of a paged operation by following `next_cursor` (a keyset position:
 * no record repeats or is skipped). Bounded by `maxPages` so a misbehaving server cannot
 * make a caller loop forever.
 */
import { OPERATION_NAMES, OPERATIONS } from '../protocol';
import { InvalidParameterError, ResponseValidationError } from '../errors';
import type { OperationParams, OperationResponse, PagedOperationName, RequestOptions } from './operationTypes';
import type { RestClient } from './RestClient';

/** Options of {@link paginate}. */
export interface PaginateOptions extends RequestOptions {
  /** Stop after this many pages even when the server offers more. @default 100 */
  readonly maxPages?: number;
}

const PAGED = OPERATION_NAMES.filter((n) => OPERATIONS[n].pages);

/**
 * Async iterator over the pages (whole envelopes) of `name`, starting at `params.cursor`
 * when given. Ends after the page whose `next_cursor` is null, or after `maxPages` pages;
 * in the latter case the last page yielded still has a non-null `next_cursor`, which the
 * caller can pass back to continue.
 *
 * @example
 * for await (const page of paginate(rest, 'trades', { market_type: 'perp', market_id: 0, limit: 100 })) {
 *   for (const t of page.data) handle(t);
 * }
 * @throws InvalidParameterError (at once, before any request) when `name` does not page or
 * `maxPages` is not a positive integer; each page's request rejects like the client's methods,
 * and ResponseValidationError when the server answers a cursor that does not advance.
 */
export function paginate<N extends PagedOperationName>(
  rest: Pick<RestClient, 'request'>,
  name: N,
  params: OperationParams<N>,
  options: PaginateOptions = {},
): AsyncGenerator<OperationResponse<N>, void, undefined> {
  if (!(PAGED as string[]).includes(name)) {
    throw new InvalidParameterError(`paginate: operation ${JSON.stringify(name)} does not page; operations that page are ${PAGED.join(', ')}`, { operation: String(name), param: 'operation' });
  }
  const { maxPages = 100, ...requestOptions } = options;
  if (!Number.isSafeInteger(maxPages) || maxPages < 1) {
    throw new InvalidParameterError(`paginate: invalid 'maxPages': expected a positive integer, got ${String(maxPages)}`, { operation: name, param: 'maxPages' });
  }
  return pages(rest, name, params, maxPages, requestOptions);
}

async function* pages<N extends PagedOperationName>(
  rest: Pick<RestClient, 'request'>,
  name: N,
  params: OperationParams<N>,
  maxPages: number,
  options: RequestOptions,
): AsyncGenerator<OperationResponse<N>, void, undefined> {
  let cursor = (params as { cursor?: string }).cursor;
  for (let n = 0; n < maxPages; n++) {
    const pageParams = cursor === undefined ? params : { ...params, cursor };
    const page = (await rest.request(name, pageParams as never, options)) as OperationResponse<N> & { next_cursor: string | null };
    yield page;
    const next = page.next_cursor;
    if (next === null) return;
    if (next === cursor) {
      throw new ResponseValidationError(`${name}: the server answered next_cursor ${JSON.stringify(next)} equal to the cursor just sent (pagination would not advance)`, { operation: name });
    }
    cursor = next;
  }
}
