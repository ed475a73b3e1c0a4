/**
 * The resync scheduler: what every snapshot request of a client's replicas shares, so that
 * a reconnect with hundreds of subscriptions does not turn into a storm of REST calls: a
 * bound on snapshot attempts in flight (a FIFO of slots) and the retry policy of one
 * request (the library's backoff shape, `BackoffOptions`). Each replica's own request
 * (`SnapshotLoader`) takes a slot per attempt and gives it back before any backoff wait.
 */
import { resolveBackoffOptions, type BackoffOptions, type ResolvedBackoffOptions } from '../clock';
import { ClientClosedError } from '../errors';
import { positiveInteger } from '../util/positiveInteger';

export interface ResyncSchedulerOptions {
  /** Snapshot attempts in flight at once, over every replica sharing the scheduler. @default 4 */
  readonly concurrency?: number;
  /**
   * Retries of one snapshot request (a failure a later attempt may cure: 5xx, network,
   * timeout, a snapshot behind the buffered updates or found inconsistent). Past them the
   * replica reports the failure and asks again after its `retryAfterMs`.
   * @default DEFAULT_RESYNC_RETRY: { initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5, retries: 3 }
   */
  readonly retry?: BackoffOptions;
}

/** The default retry policy of snapshot requests. */
export const DEFAULT_RESYNC_RETRY: ResolvedBackoffOptions = Object.freeze({ initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5, retries: 3 });

/** Gives a slot back; idempotent. */
export type ReleaseSlot = () => void;

interface Waiter {
  readonly grant: (release: ReleaseSlot | undefined) => void;
  readonly signal: AbortSignal;
  readonly onAbort: () => void;
}

/**
 * @example
 * const scheduler = new ResyncScheduler({ concurrency: 4, retry: { initialDelayMs: 50 } });
 * const release = scheduler.tryAcquire() ?? (await scheduler.acquire(signal)); // undefined when `signal` fired first
 * try { await fetchSnapshot(signal); } finally { release?.(); }
 */
export class ResyncScheduler {
  /** The retry policy of each snapshot request, resolved. */
  readonly retry: ResolvedBackoffOptions;
  private readonly concurrency: number;
  private readonly waiting: Waiter[] = [];
  private running = 0;
  private closed = false;

  /** @throws InvalidParameterError naming the option at fault (`resync.concurrency`, `resync.retry.*`). */
  constructor(options: ResyncSchedulerOptions = {}) {
    this.concurrency = positiveInteger(options.concurrency ?? 4, 'resync.concurrency');
    this.retry = resolveBackoffOptions(options.retry, DEFAULT_RESYNC_RETRY, 'resync.retry');
  }

  /** Attempts holding a slot now. */
  get inFlight(): number {
    return this.running;
  }

  /** Attempts waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** A slot at once when one is free (and nobody waits for one), else undefined: then wait with `acquire`. */
  tryAcquire(): ReleaseSlot | undefined {
    if (this.closed || this.running >= this.concurrency || this.waiting.length > 0) return undefined;
    return this.take();
  }

  /**
   * A slot, when one is free (first come, first served).
   * @returns the function that gives it back, or undefined when `signal` fired first (no slot is held then).
   * @throws ClientClosedError after `close()`.
   */
  acquire(signal: AbortSignal): Promise<ReleaseSlot | undefined> {
    if (this.closed) return Promise.reject(new ClientClosedError('the resync scheduler is closed'));
    if (signal.aborted) return Promise.resolve(undefined);
    if (this.running < this.concurrency) return Promise.resolve(this.take());
    return new Promise((grant) => {
      const waiter: Waiter = {
        grant,
        signal,
        onAbort: () => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
          grant(undefined);
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Lets nothing wait any more: waiting attempts get no slot, later calls to `acquire` reject with ClientClosedError. */
  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) {
      w.signal.removeEventListener('abort', w.onAbort);
      w.grant(undefined);
    }
  }

  private take(): ReleaseSlot {
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.next();
    };
  }

  private next(): void {
    if (this.closed || this.running >= this.concurrency) return;
    const waiter = this.waiting.shift();
    if (!waiter) return;
    waiter.signal.removeEventListener('abort', waiter.onAbort);
    waiter.grant(this.take());
  }
}
