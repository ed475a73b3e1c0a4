/**
 * One pull-based consumer's queue of event items (see EventFeed.iterate): bounded; when full,
 * newer items are dropped and replaced by ONE gap marker (`reason: 'overflow'`) naming the
 * range dropped, delivered in order once the consumer catches up.
 */
import type { EventItem, GapMarker } from './EventItem';

function range(item: EventItem<unknown>): [bigint, bigint] {
  return item.kind === 'gap' ? [item.fromSequence, item.toSequence] : [item.sequence, item.sequence];
}

/** A consumer's queue; `onDone` runs when the consumer stops (`stop()`). */
export class BoundedQueue<T> {
  private items: EventItem<T>[] = [];
  private head = 0;
  private overflow?: GapMarker;
  private waiter?: { resolve: (result: IteratorResult<EventItem<T>>) => void; reject: (error: unknown) => void };
  private ended = false;
  private failure?: { error: unknown };

  constructor(
    /** Items held before overflow (the overflow marker counts as one). */
    private readonly capacity: number,
    private readonly onDone: () => void,
  ) {}

  push(item: EventItem<T>): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: item, done: false });
      return;
    }
    if (this.size() >= this.capacity) {
      const [from, to] = range(item);
      this.overflow = this.overflow
        ? { kind: 'gap', fromSequence: min(this.overflow.fromSequence, from), toSequence: max(this.overflow.toSequence, to), reason: 'overflow' }
        : { kind: 'gap', fromSequence: from, toSequence: to, reason: 'overflow' };
      return;
    }
    if (this.overflow) {
      this.items.push(this.overflow);
      this.overflow = undefined;
    }
    this.items.push(item);
  }

  next(): Promise<IteratorResult<EventItem<T>>> {
    const item = this.take();
    if (item) return Promise.resolve({ value: item, done: false });
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error);
    }
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Ends the queue once what it holds is consumed. */
  end(): void {
    this.ended = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: undefined, done: true });
    }
  }

  /** Ends the queue with `error`: what it holds is consumed first, then `next()` rejects once, then it is done. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.reject(error);
      return;
    }
    this.failure = { error };
  }

  /** The consumer stopped: drop everything. */
  stop(): void {
    this.items = [];
    this.head = 0;
    this.overflow = undefined;
    this.end();
    this.onDone();
  }

  private size(): number {
    return this.items.length - this.head + (this.overflow ? 1 : 0);
  }

  private take(): EventItem<T> | undefined {
    if (this.head < this.items.length) {
      const item = this.items[this.head++]!;
      if (this.head === this.items.length) {
        this.items = [];
        this.head = 0;
      }
      return item;
    }
    const gap = this.overflow;
    this.overflow = undefined;
    return gap;
  }
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);
