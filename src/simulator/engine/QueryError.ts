/** The engine's REST-level failures (answered 400 or 404). @internal */
import { ExchangeReplicaError } from '../../errors';
import type { RestErrorCode } from '../../protocol';

/**
 * A REST-level failure while serving a query: answered with its HTTP `status` and the body
 * `{code, error}`. `code` is the exchange's code (`INVALID_PARAMETER`, `NOT_FOUND`).
 */
export class QueryError extends ExchangeReplicaError {
  readonly status: 400 | 404;
  constructor(status: 400 | 404, code: RestErrorCode, message: string, param?: string) {
    super(code, message, { status, ...(param ? { param } : {}) });
    this.status = status;
  }
}

/** 404 NOT_FOUND for something the query names that does not exist. */
export function notFound(message: string): QueryError {
  return new QueryError(404, 'NOT_FOUND', message);
}

/** 400 INVALID_PARAMETER naming the parameter. */
export function invalidParam(param: string, message: string): QueryError {
  return new QueryError(400, 'INVALID_PARAMETER', `invalid parameter '${param}': ${message}`, param);
}
