/**
 * The snapshot loader of one stream: one request at a time, and ONE cancellation: `cancel()`
 * aborts one AbortController, which ends whatever the request is doing (waiting to start,
 * waiting for the stream's budget, waiting for a slot, the attempt in flight, a backoff)
 * and drops its outcome. Each attempt runs in a slot of the shared `ResyncScheduler` (the
 * bound on snapshot fetches in flight) and is retried with its policy (`Backoff`) while the
 * failure is one a later attempt may cure.
 */
import { Backoff, type Clock } from '../clock';
import { AbortedError, InvalidParameterError, RestApiError } from '../errors';
import { isRetryableError } from '../errors/isRetryableError';
import { ReplicaIntegrityError } from './ReplicaIntegrityError';
import type { ResyncLimiter } from './ResyncLimiter';
import type { ResyncScheduler } from './ResyncScheduler';
import { SnapshotBehindError, SnapshotError } from './SnapshotError';

/** Failures worth another attempt: what the REST policy retries, a snapshot behind the buffered updates or inconsistent (pages, reducer). */
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

export interface SnapshotLoaderHandlers<T> {
  /** One attempt; honours `signal`. */
  readonly attempt: (signal: AbortSignal) => Promise<T>;
  readonly onResult: (result: T) => void;
  /** The last failure, once no retry is left or the failure is not retryable. */
  readonly onFailure: (error: unknown) => void;
}

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/**
 * @example
 * const loader = new SnapshotLoader({ attempt, onResult, onFailure }, scheduler, limiter, clock);
 * loader.start();      // now, within the stream's budget
 * loader.start(250);   // after 250 ms (replaces the request on its way)
 * loader.cancel();     // nothing is delivered any more
 */
export class SnapshotLoader<T> {
  private controller?: AbortController;
  private readonly backoff: Backoff;

  constructor(
    private readonly handlers: SnapshotLoaderHandlers<T>,
    private readonly scheduler: ResyncScheduler,
    /** The stream's budget of requests (not of retries). */
    private readonly limiter: ResyncLimiter,
    private readonly clock: Clock,
    random: () => number = Math.random,
  ) {
    this.backoff = new Backoff(scheduler.retry, random);
  }

  /**
   * Starts a request (after `delayMs` on a timer, even 0, when given), then within the
   * stream's budget; replaces the one on its way.
   */
  start(delayMs?: number): void {
    this.cancel();
    const controller = new AbortController();
    this.controller = controller;
    this.backoff.reset();
    void this.run(controller.signal, delayMs);
  }

  /** Aborts the request on its way, if any. */
  cancel(): void {
    const controller = this.controller;
    this.controller = undefined;
    controller?.abort();
  }

  private async run(signal: AbortSignal, delayMs: number | undefined): Promise<void> {
    if (delayMs !== undefined && !(await this.sleep(delayMs, signal))) return;
    for (let wait = this.limiter.take(); wait > 0; wait = this.limiter.take()) {
      if (!(await this.sleep(wait, signal))) return;
    }
    for (;;) {
      const outcome = await this.attempt(signal);
      if (outcome === undefined || signal !== this.controller?.signal) return; // cancelled
      if (outcome.ok) return this.deliver(() => this.handlers.onResult(outcome.value));
      const delay = isResyncRetryable(outcome.error) ? this.backoff.next() : undefined;
      if (delay === undefined) return this.deliver(() => this.handlers.onFailure(outcome.error));
      if (!(await this.sleep(delay, signal))) return;
    }
  }

  /**
   * One attempt in a slot; undefined when cancelled (or the scheduler closed) before it could
   * run. With a slot free, the attempt starts synchronously (no turn lost before the fetch).
   */
  private async attempt(signal: AbortSignal): Promise<Outcome<T> | undefined> {
    let release = this.scheduler.tryAcquire();
    if (release === undefined) {
      try {
        release = await this.scheduler.acquire(signal);
      } catch (error) {
        return { ok: false, error }; // the scheduler is closed
      }
      if (release === undefined) return undefined;
    }
    try {
      return { ok: true, value: await this.handlers.attempt(signal) };
    } catch (error) {
      return { ok: false, error };
    } finally {
      release();
    }
  }

  private deliver(handler: () => void): void {
    this.controller = undefined;
    handler();
  }

  /** Waits `ms` on the clock; false when cancelled meanwhile. */
  private sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        timer.cancel();
        resolve(false);
      };
      const timer = this.clock.setTimer(
        () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        },
        ms,
        { unref: true },
      );
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * One snapshot through the policy of a replica's loader, as a promise: a slot of the shared
 * bound (`scheduler`), the stream's budget (`limiter`), retried with the scheduler's policy.
 * For a caller that is not a replica but takes snapshots of the same streams (the NATS relay's
 * refreshes). Rejects with `AbortedError` when `signal` fires first.
 * @example
 * const loaded = await loadThroughPolicy((s) => source.snapshot({ channel, scope, signal: s }), signal, scheduler, limiter, clock);
 */
export function loadThroughPolicy<T>(attempt: (signal: AbortSignal) => Promise<T>, signal: AbortSignal, scheduler: ResyncScheduler, limiter: ResyncLimiter, clock: Clock): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      loader.cancel();
      reject(new AbortedError('the snapshot request was aborted', {}));
    };
    const done = (): void => signal.removeEventListener('abort', onAbort);
    const loader = new SnapshotLoader<T>(
      {
        attempt,
        onResult: (value) => (done(), resolve(value)),
        onFailure: (error) => (done(), reject(error)),
      },
      scheduler,
      limiter,
      clock,
    );
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    loader.start();
  });
}
