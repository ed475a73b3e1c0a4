import { ExchangeReplicaError, type ErrorContext } from './index';
import { messageOf } from './messageOf';

/**
 * The error a caller sees for anything thrown inside the library: an `ExchangeReplicaError`
 * as is, anything else (a bug, a consumer's throw) wrapped as `ERR_INTERNAL` with it as
 * `cause`, so that every error reaching a caller or `errors$` is an `ExchangeReplicaError`.
 * @internal
 */
export function asExchangeReplicaError(thrown: unknown, message: string = messageOf(thrown), context: ErrorContext = {}): ExchangeReplicaError {
  return thrown instanceof ExchangeReplicaError ? thrown : new ExchangeReplicaError('ERR_INTERNAL', message, context, { cause: thrown });
}
