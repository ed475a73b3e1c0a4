/**
 * The publishes an `OrderedPublisher` has not sent yet, first in first out. A publish taken
 * out is no longer referenced here. (The publisher's array kept each one it had sent, payload
 * and callbacks, until 1024 had gone by: about a second of batches at 10k updates/s, long
 * enough for the relay's young-generation collections to copy them and then promote them. In
 * the bus benchmark at 10k/s the relay's heap grew to 56-85 MB between full collections and
 * its scavenges took 2.5-2.9 ms (median); with this queue 41-52 MB and 1.1-2.0 ms.)
 */
export class PublishQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  /** Publishes waiting. */
  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest, taken out; undefined when none waits. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }

  /** Puts `items` ahead of those waiting, in their order. */
  unshift(items: readonly T[]): void {
    this.items.splice(this.head, 0, ...items);
  }

  /** Every publish waiting, oldest first, taken out. */
  takeAll(): T[] {
    const out = this.items.slice(this.head) as T[];
    this.items = [];
    this.head = 0;
    return out;
  }
}
