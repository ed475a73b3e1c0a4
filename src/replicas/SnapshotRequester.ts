/**
 * The snapshot request of one stream: at most one at a time (a new trigger joins the one on
 * its way), through the shared scheduler, cancellable, and asked again later when the
 * scheduler gave up. A result that arrives after `cancel()` is dropped.
 */
import type { ResyncScheduler } from './resyncScheduler';

export interface SnapshotRequesterHandlers<T> {
  /** The job run by the scheduler (one attempt). */
  readonly job: (signal: AbortSignal) => Promise<T>;
  readonly onResult: (result: T) => void;
  readonly onFailure: (error: unknown) => void;
}

export class SnapshotRequester<T> {
  private current?: { readonly token: number; readonly controller: AbortController };
  private tokens = 0;
  private retryTimer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly scheduler: ResyncScheduler,
    /** The scheduler key: one per stream replica. */
    private readonly key: string,
    private readonly handlers: SnapshotRequesterHandlers<T>,
  ) {}

  /** True while a request is queued or running. */
  get pending(): boolean {
    return this.current !== undefined;
  }

  /** Asks for a snapshot unless one is already on its way. */
  request(): void {
    if (this.current) return;
    this.clearRetry();
    const token = ++this.tokens;
    const controller = new AbortController();
    this.current = { token, controller };
    const settle = (deliver: () => void) => {
      if (this.current?.token !== token) return; // cancelled meanwhile
      this.current = undefined;
      deliver();
    };
    this.scheduler.schedule(this.key, this.handlers.job, controller.signal).then(
      (result) => settle(() => this.handlers.onResult(result)),
      (error) => settle(() => this.handlers.onFailure(error)),
    );
  }

  /** Asks again after `delayMs` (unless cancelled or asked sooner). */
  retryAfter(delayMs: number, onDue: () => void): void {
    this.clearRetry();
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      onDue();
    }, delayMs);
    this.retryTimer.unref?.();
  }

  /** Aborts the request on its way and any pending retry. */
  cancel(): void {
    this.clearRetry();
    const current = this.current;
    this.current = undefined;
    current?.controller.abort();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }
}
