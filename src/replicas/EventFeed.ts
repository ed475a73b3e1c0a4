/**
 * Hands event items to consumers.
 *
 * - `events$` pushes each item synchronously to every subscriber, so none can fall behind
 *   and nothing is held: lossless with no buffer at all.
 * - `iterate()` serves consumers that await between items: each iterator has its own
 *   buffer, bounded in items (default 10,000) and in bytes (default 16 MiB, each item
 *   counted at its record's estimated size: a record's strings may be as long as the frame
 *   that carried it). When either is full, newer items are dropped and replaced by ONE gap
 *   marker (`reason: 'overflow'`) naming the range dropped, delivered in order once the
 *   consumer catches up. Memory stays bounded whatever the consumer does.
 */
import type { Observable } from 'rxjs';
import { Multicast } from '../util/Multicast';
import { positiveInteger } from '../util/positiveInteger';
import { BoundedQueue } from './BoundedQueue';
import type { EventItem } from './EventItem';

/** Items buffered per iterator. @default 10000 */
export const DEFAULT_EVENT_BUFFER = 10_000;

/** Bytes buffered per iterator (items counted at their estimated size). @default 16777216 (16 MiB) */
export const DEFAULT_EVENT_BUFFER_BYTES = 16 * 1024 * 1024;

export interface EventIteratorOptions {
  /** Items held for this consumer before overflow. @default DEFAULT_EVENT_BUFFER */
  readonly bufferSize?: number;
  /**
   * Bytes held for this consumer before overflow, each item counted at its record's estimated
   * size (its strings' lengths, 8 bytes a scalar, 16 an object, plus 48 an item); an item
   * alone is always held. @default DEFAULT_EVENT_BUFFER_BYTES (16 MiB)
   */
  readonly bufferBytes?: number;
}

/**
 * @example
 * for await (const item of feed.iterate()) {
 *   if (item.kind === 'gap') warn(item); else await store(item.record);
 * }
 */
export class EventFeed<T> {
  /** Every item, pushed synchronously (hot: no replay). Completes on `close()`. */
  readonly events$: Observable<EventItem<T>>;
  private readonly items = new Multicast<EventItem<T>>();
  private readonly queues = new Set<BoundedQueue<T>>();
  private readonly bufferSize: number;
  private readonly bufferBytes: number;
  private closed = false;

  /**
   * @param options.bufferSize default items held by an `iterate()` consumer @default DEFAULT_EVENT_BUFFER
   * @param options.bufferBytes default bytes held by an `iterate()` consumer @default DEFAULT_EVENT_BUFFER_BYTES
   * @throws InvalidParameterError when an option is not a positive integer.
   */
  constructor(options: EventIteratorOptions = {}) {
    this.bufferSize = positiveInteger(options.bufferSize ?? DEFAULT_EVENT_BUFFER, 'bufferSize');
    this.bufferBytes = positiveInteger(options.bufferBytes ?? DEFAULT_EVENT_BUFFER_BYTES, 'bufferBytes');
    this.events$ = this.items.observable;
  }

  /** Delivers one item to every consumer. */
  push(item: EventItem<T>): void {
    if (this.closed) return;
    for (const q of this.queues) q.push(item);
    this.items.next(item);
  }

  /**
   * A pull-based consumer with its own bounded buffer, from now on. Ends after `close()`
   * once its buffer is drained; `return()` (or `break` in `for await`) detaches it.
   * @throws InvalidParameterError when `bufferSize` or `bufferBytes` is not a positive integer.
   */
  iterate(options: EventIteratorOptions = {}): AsyncIterableIterator<EventItem<T>> {
    const capacity = positiveInteger(options.bufferSize ?? this.bufferSize, 'bufferSize');
    const maxBytes = positiveInteger(options.bufferBytes ?? this.bufferBytes, 'bufferBytes');
    const queue: BoundedQueue<T> = new BoundedQueue<T>(capacity, () => this.queues.delete(queue), maxBytes);
    if (this.closed) queue.end();
    else this.queues.add(queue);
    const iterator: AsyncIterableIterator<EventItem<T>> = {
      next: () => queue.next(),
      return: () => {
        queue.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** The stream failed for good: `events$` errors with `error`; every iterator rejects with it after what it holds. */
  fail(error: unknown): void {
    if (this.closed) return;
    this.closed = true;
    for (const q of this.queues) q.fail(error);
    this.queues.clear();
    this.items.error(error);
  }

  /** Ends `events$` and every iterator (after what they hold). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const q of this.queues) q.end();
    this.queues.clear();
    this.items.complete();
  }
}
