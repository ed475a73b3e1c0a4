/**
 * Bytes gathered into one buffer that grows by doubling. What a frame reader keeps between
 * reads (a frame cut by the end of a read, the fragments of a message) then costs its bytes
 * in one allocation, never a Buffer object per piece: kept as a list, a message in 1-byte
 * fragments held about 100 bytes of heap per byte received, and empty fragments held heap
 * for nothing at all. Appending n bytes in any number of pieces copies O(n) bytes in all.
 */

/** Smallest allocation: a few small pieces do not reallocate at each append. */
const MIN_CAPACITY = 256;
// Allocations are `allocUnsafeSlow`: a pooled slice would keep its whole 8 KiB pool alive, so
// `capacity` would understate what is held.
// Made on first use, not at load: this module is in the browser bundle's graph (through the
// default socket's module), where `Buffer` does not exist and no instance is ever made.
let empty: Buffer | undefined;
const EMPTY = (): Buffer => (empty ??= Buffer.alloc(0));

export class GrowingBuffer {
  private buf: Buffer = EMPTY();
  private used = 0;

  /** Bytes gathered. */
  get length(): number {
    return this.used;
  }

  /** Bytes allocated: what is really held, whatever {@link length} is. */
  get capacity(): number {
    return this.buf.length;
  }

  /**
   * Appends `src[start, end)`.
   * @param sizeHint the size the content is expected to reach at most: doubling stops there
   * (the buffer still grows past it if the bytes appended need it)
   */
  append(src: Uint8Array, start: number, end: number, sizeHint: number): void {
    const required = this.used + (end - start);
    if (required > this.buf.length) {
      const next = Math.max(required, Math.min(Math.max(this.buf.length * 2, MIN_CAPACITY), sizeHint));
      const grown = Buffer.allocUnsafeSlow(next);
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    this.buf.set(src.subarray(start, end), this.used);
    this.used = required;
  }

  /** The bytes gathered (a view: valid until the next change). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.used);
  }

  /** Forgets the first `count` bytes; the rest moves to a buffer of its own size (a large one is not kept for a small tail). */
  dropFront(count: number): void {
    const rest = this.used - count;
    if (rest <= 0) return this.clear();
    const kept = Buffer.allocUnsafeSlow(Math.max(rest, MIN_CAPACITY));
    this.buf.copy(kept, 0, count, this.used);
    this.buf = kept;
    this.used = rest;
  }

  /** Forgets every byte and frees the buffer. */
  clear(): void {
    this.buf = EMPTY();
    this.used = 0;
  }
}
