/**
 * Waits until a submitted transaction is indexed. A transaction rejected at admission is
 * never indexed (its lookup stays 404), so 404 means "not yet, or never": keep polling
 * until the deadline, then give up with `TransactionNotIndexedError`.
 */
import { AbortedError, InvalidParameterError, RestApiError, TransactionNotIndexedError } from '../errors';
import { sleep, systemClock, type Clock } from '../clock';
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
  /** The time source of the deadline and the pauses. @default systemClock */
  readonly clock?: Clock;
}

function positive(v: number, param: string): number {
  if (!Number.isFinite(v) || v <= 0) throw new InvalidParameterError(`waitForTransaction: invalid '${param}': expected a positive number of milliseconds, got ${String(v)}`, { param });
  return v;
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
  const clock = options.clock ?? systemClock;
  const started = clock.nowMs();
  const deadline = started + timeoutMs;
  for (;;) {
    try {
      return await rest.transaction({ hash }, { ...options.request, signal });
    } catch (e) {
      if (!(e instanceof RestApiError && e.status === 404)) throw e;
    }
    const now = clock.nowMs();
    if (now >= deadline) throw new TransactionNotIndexedError(hash, Math.round(now - started));
    try {
      await sleep(Math.min(intervalMs, deadline - now), signal, clock);
    } catch (cause) {
      throw new AbortedError('waitForTransaction: aborted by the caller', { operation: 'transaction' }, { cause });
    }
  }
}
