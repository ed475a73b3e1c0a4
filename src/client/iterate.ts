/**
 * A replica (any observable of the client) read with `for await`: the subscription lives as
 * long as the loop, and a slow loop body either sees the newest state (conflated) or gets
 * every item up to a bound, never unbounded memory.
 */
import type { Observable, Subscription } from 'rxjs';
import { AbortedError, ConsumerOverflowError, type ExchangeReplicaError } from '../errors';
import { asExchangeReplicaError } from '../errors/asExchangeReplicaError';
import { estimateBytes } from '../replicas/estimateBytes';
import { positiveInteger } from '../util/positiveInteger';

/** Options of {@link iterate}. */
export interface IterateOptions {
  /**
   * Ends the iteration when it fires: the loop throws an `AbortedError` whose `cause` is the
   * signal's reason, and the subscription is released.
   * @default undefined
   */
  readonly signal?: AbortSignal;
  /**
   * Keep only the newest emission while the loop body runs. Right for state replicas
   * (`orderBook`, `bbo`, `balances`, ...), whose state is a live view anyway; wrong for event
   * streams (`trades`, `fills`), where every item counts.
   * @default false
   */
  readonly conflate?: boolean;
  /**
   * Without `conflate`: the most emissions held for a loop body that is behind. One more makes
   * the loop throw a `ConsumerOverflowError` (`ERR_CONSUMER_OVERFLOW`) rather than drop an item
   * silently or grow without bound.
   * @default 10000
   */
  readonly bufferSize?: number;
  /**
   * Without `conflate`: the most bytes held for a loop body that is behind, each emission
   * counted by a rough estimate of the data it carries (a replica's live state, shared by
   * its emissions, counts as a reference). Passing it is the same `ConsumerOverflowError`.
   * @default 67108864 (64 MiB)
   */
  readonly bufferBytes?: number;
}

/**
 * Reads `source` as an async iterable. The subscription starts with the loop's first step and
 * ends when the loop ends (`break`, `return`, an exception, the signal) or the source ends; a
 * replica failure is thrown by the loop (an `ExchangeReplicaError`).
 *
 * @example
 * for await (const e of iterate(client.orderBook({ market_type: 'perp', market_id: 0 }), { conflate: true, signal })) {
 *   if (e.status === 'live') quote(e.state.bestBid(), e.state.bestAsk());
 * }
 * @throws InvalidParameterError at once for a `bufferSize` that is not a positive integer.
 */
export function iterate<T>(source: Observable<T>, options: IterateOptions = {}): AsyncIterable<T> {
  const { signal, conflate = false, bufferSize = 10_000, bufferBytes = 64 * 1024 * 1024 } = options;
  positiveInteger(bufferSize, 'bufferSize', 'iterate');
  positiveInteger(bufferBytes, 'bufferBytes', 'iterate');
  return { [Symbol.asyncIterator]: () => new SubscriptionIterator(source, signal, conflate, bufferSize, bufferBytes) };
}

type Ending = { readonly error?: ExchangeReplicaError };

class SubscriptionIterator<T> implements AsyncIterator<T> {
  private readonly queue: T[] = [];
  /** The estimated bytes of each held emission (same index as `queue`), and their sum. */
  private readonly sizes: number[] = [];
  private heldBytes = 0;
  private head = 0;
  private ending: Ending | undefined;
  private waiting: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;
  private sub: Subscription | undefined;
  private readonly onAbort = () => this.end({ error: new AbortedError('iterate: aborted by the caller', {}, { cause: this.signal?.reason }) });

  constructor(
    private readonly source: Observable<T>,
    private readonly signal: AbortSignal | undefined,
    private readonly conflate: boolean,
    private readonly bufferSize: number,
    private readonly bufferBytes: number,
  ) {}

  next(): Promise<IteratorResult<T>> {
    if (!this.sub && !this.ending) this.start();
    if (this.head < this.queue.length) return Promise.resolve({ value: this.take(), done: false });
    if (this.ending) return this.ending.error ? Promise.reject(this.ending.error) : Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  return(): Promise<IteratorResult<T>> {
    this.end({});
    this.queue.length = 0;
    this.head = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  private start(): void {
    if (this.signal?.aborted) return this.onAbort();
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.sub = this.source.subscribe({
      next: (v) => this.push(v),
      error: (e: unknown) => this.end({ error: asExchangeReplicaError(e) }),
      complete: () => this.end({}),
    });
    // The source may have ended during subscribe(), before `sub` was assigned.
    if (this.ending) this.sub.unsubscribe();
  }

  private push(v: T): void {
    if (this.ending) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = undefined;
      return w.resolve({ value: v, done: false });
    }
    if (this.conflate) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.queue.length - this.head >= this.bufferSize) {
      return this.end({ error: new ConsumerOverflowError(`iterate: the loop fell more than ${this.bufferSize} emissions behind (raise 'bufferSize', or use 'conflate' for a state replica)`) });
    } else {
      const bytes = estimateBytes(v);
      if (this.queue.length > this.head && this.heldBytes + bytes > this.bufferBytes) {
        return this.end({ error: new ConsumerOverflowError(`iterate: the emissions held for a loop that is behind passed ${this.bufferBytes} bytes (raise 'bufferBytes', or use 'conflate' for a state replica)`) });
      }
      this.heldBytes += bytes;
      this.sizes.push(bytes);
    }
    this.queue.push(v);
  }

  private take(): T {
    if (!this.conflate) this.heldBytes -= this.sizes[this.head]!;
    const v = this.queue[this.head++]!;
    // Compact now and then so a long-running loop does not keep consumed slots.
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.sizes.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.sizes.splice(0, this.head);
      this.head = 0;
    }
    return v;
  }

  private end(ending: Ending): void {
    if (this.ending) return;
    this.ending = ending;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.sub?.unsubscribe();
    // An error overtakes what is still queued: the loop must learn of it at its next step.
    if (ending.error) {
      this.queue.length = 0;
      this.head = 0;
    }
    const w = this.waiting;
    this.waiting = undefined;
    if (!w) return;
    if (ending.error) w.reject(ending.error);
    else w.resolve({ value: undefined, done: true });
  }
}
