/**
 * The resync scheduler: every snapshot fetch of every replica goes through it, so that a
 * reconnect with hundreds of subscriptions does not turn into a storm of REST calls.
 * Fetches are bounded in concurrency, deduplicated per key, retried with the shared retry
 * policy (exponential backoff with jitter) and cancellable.
 */
import { AbortedError, ClientClosedError, InvalidParameterError, RestApiError } from '../errors';
import { isRetryableError, withRetry, type RetryInfo, type RetryPolicy } from '../rest/retryPolicy';
import { ReplicaIntegrityError } from './Reducer';
import { SnapshotBehindError, SnapshotError } from './SnapshotError';

/** A snapshot fetch: honours `signal`; `attempt` is 1 for the first try. */
export type ResyncJob<T> = (signal: AbortSignal, attempt: number) => Promise<T>;

export interface ResyncSchedulerOptions {
  /** Most jobs running at once. @default 4 */
  readonly concurrency?: number;
  /** Retry policy of each job (see `RetryPolicy`). @default DEFAULT_RETRY_POLICY of src/rest/retryPolicy */
  readonly retry?: Partial<RetryPolicy>;
  /**
   * Which failures are retried. @default isResyncRetryable: what the REST policy retries,
   * plus a snapshot behind the buffered updates, inconsistent pages, or a snapshot a
   * reducer found inconsistent.
   */
  readonly shouldRetry?: (error: unknown) => boolean;
  /** Called before each retry of a job. */
  readonly onRetry?: (key: string, info: RetryInfo) => void;
}

/** The default retry predicate of the scheduler. */
export function isResyncRetryable(error: unknown): boolean {
  return isRetryableError(error) || error instanceof SnapshotBehindError || error instanceof SnapshotError || error instanceof ReplicaIntegrityError;
}

/**
 * Failures no later attempt can cure: the exchange refused the request itself (a 4xx other
 * than 429: no such market or account) or the parameters were rejected before sending.
 */
export function isPermanentSnapshotFailure(error: unknown): boolean {
  if (error instanceof RestApiError) return error.status >= 400 && error.status < 500 && error.status !== 429;
  return error instanceof InvalidParameterError;
}

interface Entry {
  readonly key: string;
  readonly job: ResyncJob<unknown>;
  readonly controller: AbortController;
  readonly promise: Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Requesters still waiting for the result. */
  waiters: number;
  state: 'queued' | 'running' | 'cancelled';
}

/**
 * @example
 * const scheduler = new ResyncScheduler({ concurrency: 4 });
 * const snapshot = await scheduler.schedule(streamKey, (signal) => fetchSnapshot(signal), replicaSignal);
 */
export class ResyncScheduler {
  private readonly concurrency: number;
  private readonly retry: Partial<RetryPolicy>;
  private readonly shouldRetry: (error: unknown) => boolean;
  private readonly onRetry?: (key: string, info: RetryInfo) => void;
  private readonly entries = new Map<string, Entry>();
  private readonly queue: Entry[] = [];
  private running = 0;
  private closed = false;

  /** @throws InvalidParameterError when `concurrency` is not a positive integer. */
  constructor(options: ResyncSchedulerOptions = {}) {
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new InvalidParameterError(`invalid resync scheduler option 'concurrency': expected an integer >= 1, got ${String(concurrency)}`, { param: 'concurrency' });
    }
    this.concurrency = concurrency;
    this.retry = options.retry ?? {};
    this.shouldRetry = options.shouldRetry ?? isResyncRetryable;
    this.onRetry = options.onRetry;
  }

  /** Jobs running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Jobs waiting for a slot. */
  get queued(): number {
    return this.queue.filter((e) => e.state === 'queued').length;
  }

  /**
   * Runs `job` under `key` when a slot is free, retrying it per the policy. While a job of
   * the same key is queued or running, the request joins it: `job` is not run again and
   * the caller gets that job's result. Aborting `signal` detaches this caller (rejecting
   * with `AbortedError`); the job itself is aborted once every caller has detached.
   * @throws AbortedError when `signal` fires first; ClientClosedError after `close()`;
   *   otherwise the job's last failure.
   */
  schedule<T>(key: string, job: ResyncJob<T>, signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new ClientClosedError('the resync scheduler is closed'));
    if (signal?.aborted) return Promise.reject(aborted(key, signal));
    let entry = this.entries.get(key);
    if (!entry) {
      entry = this.createEntry(key, job as ResyncJob<unknown>);
      this.entries.set(key, entry);
      this.queue.push(entry);
    }
    entry.waiters++;
    const e = entry;
    const result = new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        reject(aborted(key, signal!));
        this.detach(e);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      e.promise.then(
        (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v as T);
        },
        (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
    this.pump();
    return result;
  }

  /** Aborts every job; later calls to `schedule` reject with ClientClosedError. */
  close(): void {
    this.closed = true;
    for (const entry of [...this.entries.values()]) this.cancel(entry, new ClientClosedError('the resync scheduler is closed'));
  }

  private createEntry(key: string, job: ResyncJob<unknown>): Entry {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Callers attach their own handlers; this one keeps a cancelled job from being reported as unhandled.
    promise.catch(() => undefined);
    return { key, job, controller: new AbortController(), promise, resolve, reject, waiters: 0, state: 'queued' };
  }

  private detach(entry: Entry): void {
    entry.waiters--;
    if (entry.waiters <= 0 && entry.state !== 'cancelled') this.cancel(entry, new AbortedError('every requester of the snapshot detached', { stream: entry.key }));
  }

  private cancel(entry: Entry, reason: Error): void {
    const wasQueued = entry.state === 'queued';
    entry.state = 'cancelled';
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    entry.controller.abort(reason);
    entry.reject(reason);
    if (wasQueued) {
      const i = this.queue.indexOf(entry);
      if (i >= 0) this.queue.splice(i, 1);
    }
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length > 0) {
      const entry = this.queue.shift()!;
      if (entry.state !== 'queued') continue;
      entry.state = 'running';
      this.running++;
      const signal = entry.controller.signal;
      withRetry((attempt) => entry.job(signal, attempt), this.retry, signal, {
        shouldRetry: this.shouldRetry,
        onRetry: this.onRetry ? (info) => this.onRetry!(entry.key, info) : undefined,
        context: { stream: entry.key },
      })
        .then(entry.resolve, entry.reject)
        .finally(() => {
          this.running--;
          if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
          this.pump();
        });
    }
  }
}

function aborted(key: string, signal: AbortSignal): AbortedError {
  return new AbortedError('the snapshot request was aborted', { stream: key }, { cause: signal.reason });
}
