/**
 * The check of every option that counts something (a size, a limit, a concurrency): an
 * integer >= 1, or an `InvalidParameterError` naming the field. @internal
 */
import { InvalidParameterError, type ErrorContext } from '../errors';

/**
 * @param field the option as the caller wrote it (e.g. `bufferSize`, `resync.concurrency`):
 *   named in the message and as the error's `param`.
 * @param owner what takes the option, prefixed to the message (e.g. `iterate`).
 * @throws InvalidParameterError when `value` is not a safe integer >= 1.
 */
export function positiveInteger(value: unknown, field: string, owner?: string, context: ErrorContext = {}): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) return value;
  throw new InvalidParameterError(`${owner === undefined ? '' : `${owner}: `}invalid '${field}': expected an integer >= 1, got ${String(value)}`, { ...context, param: field });
}
