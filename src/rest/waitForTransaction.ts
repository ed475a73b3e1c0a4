/**
 * Waits until a submitted transaction is indexed. A transaction rejected at admission is
 * never indexed (its lookup stays 404), so 404 means "not yet, or never": keep polling
 * until the deadline, then give up with `TransactionNotIndexedError`.
 */
import { AbortedError, InvalidParameterError, RestApiError, TransactionNotIndexedError } from '../errors';
import type { Transaction } from '../protocol';
import type { RequestOptions } from './operationTypes';
import type { RestClient } from './RestClient';

/** Options of {@link waitForTransaction}. */
export interface WaitForTransactionOptions {
  /** How long to keep polling while the hash is unknown (404), in milliseconds. @default 30000 */
  readonly timeoutMs?: number;
  /** Pause between two lookups, in milliseconds. @default 500 */
  readonly intervalMs?: number;
  /** Stops waiting; the promise rejects with `AbortedError`. */
  readonly signal?: AbortSignal;
  /** Options of each lookup (its own timeout and retry policy). @default the client's */
  readonly request?: Omit<RequestOptions, 'signal'>;
}

function positive(v: number, param: string): number {
  if (!Number.isFinite(v) || v <= 0) throw new InvalidParameterError(`waitForTransaction: invalid '${param}': expected a positive number of milliseconds, got ${String(v)}`, { param });
  return v;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError('waitForTransaction: aborted by the caller', { operation: 'transaction' }, { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Polls `GET /transactions/{hash}` until the transaction is indexed. Resolves with the
 * record whether it `committed` or `failed` (then the receipt reason is in `error` and
 * `success` is false). The deadline is checked between lookups; a lookup in flight at the
 * deadline finishes first.
 *
 * @example
 * const tx = await waitForTransaction(rest, hash, { timeoutMs: 10_000 });
 * if (tx.status === 'failed') console.error(tx.error);
 * @throws TransactionNotIndexedError when the hash is still unknown at the deadline;
 * AbortedError when `signal` fires; any other lookup error as is.
 */
export async function waitForTransaction(rest: Pick<RestClient, 'transaction'>, hash: string, options: WaitForTransactionOptions = {}): Promise<Transaction> {
  const timeoutMs = positive(options.timeoutMs ?? 30_000, 'timeoutMs');
  const intervalMs = positive(options.intervalMs ?? 500, 'intervalMs');
  const { signal } = options;
  const started = performance.now();
  const deadline = started + timeoutMs;
  for (;;) {
    try {
      return await rest.transaction({ hash }, { ...options.request, signal });
    } catch (e) {
      if (!(e instanceof RestApiError && e.status === 404)) throw e;
    }
    const now = performance.now();
    if (now >= deadline) throw new TransactionNotIndexedError(hash, Math.round(now - started));
    await sleep(Math.min(intervalMs, deadline - now), signal);
  }
}
