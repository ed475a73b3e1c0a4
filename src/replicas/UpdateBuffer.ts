/**
 * The updates held while a snapshot is on its way: bounded in count and in bytes, oldest
 * dropped first (a later snapshot covers them anyway: the alignment check asks for one that
 * reaches the oldest kept).
 */
export interface BufferedUpdate {
  readonly seq: bigint;
  readonly timestampNs: bigint;
  readonly receivedAtNs: bigint;
  readonly data: unknown;
  /** What holding it costs, in bytes (the length of the frame that carried it); see {@link DEFAULT_UPDATE_SIZE}. */
  readonly size?: number;
}

/** The size counted for an update whose source did not tell it (bytes). */
export const DEFAULT_UPDATE_SIZE = 1024;

export class UpdateBuffer<U extends BufferedUpdate = BufferedUpdate> {
  private items: U[] = [];
  private head = 0;
  private heldBytes = 0;
  private dropped = false;

  /**
   * @param capacity most updates held @default 10000
   * @param maxBytes most bytes held (each update counted at its `size`) @default 67108864 (64 MiB)
   */
  constructor(
    readonly capacity = 10_000,
    readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  get length(): number {
    return this.items.length - this.head;
  }

  /** Bytes held (the sum of the held updates' sizes). */
  get bytes(): number {
    return this.heldBytes;
  }

  /**
   * Holds `update`, dropping the oldest while over a bound (the newest is always kept).
   * @returns true when this push dropped the first update since the last `clear` (to report once)
   */
  push(update: U): boolean {
    this.items.push(update);
    this.heldBytes += sizeOf(update);
    let droppedNow = false;
    while (this.length > 1 && (this.length > this.capacity || this.heldBytes > this.maxBytes)) {
      this.heldBytes -= sizeOf(this.items[this.head]!);
      this.items[this.head++] = undefined as unknown as U; // released at once, not at the next compaction
      droppedNow = true;
    }
    // Compact once the dead prefix dominates, so memory stays bounded by ~2x capacity.
    if (this.head > this.capacity || (this.head > 64 && this.head > this.length)) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    const first = droppedNow && !this.dropped;
    if (droppedNow) this.dropped = true;
    return first;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.heldBytes = 0;
    this.dropped = false;
  }

  /** The held updates, oldest first. */
  toArray(): U[] {
    return this.head === 0 ? this.items.slice() : this.items.slice(this.head);
  }
}

function sizeOf(update: BufferedUpdate): number {
  return update.size ?? DEFAULT_UPDATE_SIZE;
}
