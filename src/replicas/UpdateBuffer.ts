/**
 * The updates held while a snapshot is on its way: bounded, oldest dropped first (a later
 * snapshot covers them anyway: the alignment check asks for one that reaches the oldest kept).
 */
export interface BufferedUpdate {
  readonly seq: bigint;
  readonly timestampNs: bigint;
  readonly receivedAtNs: bigint;
  readonly data: unknown;
}

export class UpdateBuffer<U extends BufferedUpdate = BufferedUpdate> {
  private items: U[] = [];
  private head = 0;

  /** @param capacity most updates held @default 10000 */
  constructor(readonly capacity = 10_000) {}

  get length(): number {
    return this.items.length - this.head;
  }

  push(update: U): void {
    this.items.push(update);
    if (this.length > this.capacity) {
      this.head++;
      // Compact once the dead prefix dominates, so memory stays bounded by ~2x capacity.
      if (this.head > this.capacity) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
    }
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }

  /** The held updates, oldest first. */
  toArray(): U[] {
    return this.head === 0 ? this.items.slice() : this.items.slice(this.head);
  }
}
