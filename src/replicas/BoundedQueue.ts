/**
 * One pull-based consumer's queue of event items (see EventFeed.iterate): bounded in count and
 * in bytes; when either is full, newer items are dropped and replaced by ONE gap marker
 * (`reason: 'overflow'`) naming the range dropped, delivered in order once the consumer
 * catches up.
 */
import { estimateBytes } from './estimateBytes';
import type { EventItem, GapMarker } from './EventItem';

function range(item: EventItem<unknown>): [bigint, bigint] {
  return item.kind === 'gap' ? [item.fromSequence, item.toSequence] : [item.sequence, item.sequence];
}

/** Bytes counted for an item besides its record (and for a gap marker). */
const ITEM_BYTES = 48;

/** What holding `item` costs, roughly (see estimateBytes). */
export function itemBytes(item: EventItem<unknown>): number {
  return item.kind === 'record' ? ITEM_BYTES + estimateBytes(item.record) : ITEM_BYTES;
}

/** A consumer's queue; `onDone` runs when the consumer stops (`stop()`). */
export class BoundedQueue<T> {
  private items: EventItem<T>[] = [];
  /** What each held item costs (see itemBytes), index for index with `items`. */
  private sizes: number[] = [];
  private head = 0;
  /** The bytes of the items held (the overflow marker not counted until it is). */
  private heldBytes = 0;
  private overflow?: GapMarker;
  private waiter?: { resolve: (result: IteratorResult<EventItem<T>>) => void; reject: (error: unknown) => void };
  private ended = false;
  private failure?: { error: unknown };

  constructor(
    /** Items held before overflow (the overflow marker counts as one). */
    private readonly capacity: number,
    private readonly onDone: () => void,
    /** Bytes held before overflow (each item counted by itemBytes); one item alone is always held. */
    private readonly maxBytes: number = Number.POSITIVE_INFINITY,
  ) {}

  push(item: EventItem<T>): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: item, done: false });
      return;
    }
    const bytes = itemBytes(item);
    // A marker waiting for room goes in first: it needs room too.
    const needed = bytes + (this.overflow ? ITEM_BYTES : 0);
    if (this.size() >= this.capacity || (this.size() > 0 && this.heldBytes + needed > this.maxBytes)) {
      const [from, to] = range(item);
      this.overflow = this.overflow
        ? { kind: 'gap', fromSequence: min(this.overflow.fromSequence, from), toSequence: max(this.overflow.toSequence, to), reason: 'overflow' }
        : { kind: 'gap', fromSequence: from, toSequence: to, reason: 'overflow' };
      return;
    }
    if (this.overflow) {
      this.hold(this.overflow, ITEM_BYTES);
      this.overflow = undefined;
    }
    this.hold(item, bytes);
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
    this.sizes = [];
    this.head = 0;
    this.heldBytes = 0;
    this.overflow = undefined;
    this.end();
    this.onDone();
  }

  private size(): number {
    return this.items.length - this.head + (this.overflow ? 1 : 0);
  }

  private hold(item: EventItem<T>, bytes: number): void {
    this.items.push(item);
    this.sizes.push(bytes);
    this.heldBytes += bytes;
  }

  private take(): EventItem<T> | undefined {
    if (this.head < this.items.length) {
      const item = this.items[this.head]!;
      this.heldBytes -= this.sizes[this.head]!;
      this.head++;
      if (this.head === this.items.length) {
        this.items = [];
        this.sizes = [];
        this.head = 0;
        this.heldBytes = 0;
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
