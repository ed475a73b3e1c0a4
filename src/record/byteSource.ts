/**
 * Random access to a file's bytes, from memory (a reader holds the whole file) or from an
 * open file (a writer checking what it appends to, one chunk in memory at a time).
 */
import { fstatSync, readSync } from 'node:fs';

export interface ByteSource {
  readonly size: number;
  /** `length` bytes from `offset` (fewer past the end). */
  read(offset: number, length: number): Buffer;
  /** Where `needle` first starts at or after `from`, or -1. */
  indexOf(needle: Buffer, from: number): number;
}

/** The bytes of `buf` (read returns views, no copy). */
export function bufferSource(buf: Buffer): ByteSource {
  return {
    size: buf.length,
    read: (offset, length) => buf.subarray(offset, offset + length),
    indexOf: (needle, from) => (from >= buf.length ? -1 : buf.indexOf(needle, from)),
  };
}

/** Bytes searched at a time by a file's `indexOf`. */
const WINDOW_BYTES = 1024 * 1024;

/** The bytes of the open file `fd`, as they are now. */
export function fileSource(fd: number): ByteSource {
  const size = fstatSync(fd).size;
  const read = (offset: number, length: number): Buffer => {
    const n = Math.max(0, Math.min(length, size - offset));
    const buf = Buffer.allocUnsafe(n);
    let got = 0;
    while (got < n) {
      const r = readSync(fd, buf, got, n - got, offset + got);
      if (r === 0) break;
      got += r;
    }
    return buf.subarray(0, got);
  };
  return {
    size,
    read,
    indexOf(needle, from) {
      // Windows overlap by the needle's length less one: a needle across two is found.
      for (let at = from; at < size; at += WINDOW_BYTES) {
        const found = read(at, WINDOW_BYTES + needle.length - 1).indexOf(needle);
        if (found !== -1) return at + found;
      }
      return -1;
    },
  };
}
