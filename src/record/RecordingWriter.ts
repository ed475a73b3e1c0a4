/**
 * Appends chunks of entries to a recording file: each chunk compressed and written with one
 * synchronous `write` (crash-safe: a process that dies leaves at most one torn chunk, at the
 * end), bounded in bytes. Opening an existing file appends to it, after cutting off a torn
 * tail left by a process that died (so the new chunks are readable after the old ones).
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { CHUNK_HEADER_BYTES, chunkHeader, decodeChunk, encodeChunk, type ChunkRef, type TornTail } from './chunks';
import { RecordingFormatError } from './errors';

export interface RecordingWriterOptions {
  /** Most bytes this writer adds to the file; past it, `add` refuses entries. */
  readonly maxBytes: number;
  /** A chunk is written once this many bytes of entries are pending. */
  readonly flushBytes: number;
  /** zlib level, 0 to 9. */
  readonly compressionLevel: number;
  /** fsync after each chunk (survives a machine crash, not only a process crash). */
  readonly fsync: boolean;
}

/** Room kept for the end-of-session chunk when the size bound is reached. */
export const END_RESERVE_BYTES = 512;

export class RecordingWriter {
  /** The torn tail found (and cut off) when the file was opened. */
  readonly repaired: TornTail | undefined;
  /** Bytes written by this writer. */
  written = 0;
  /** Chunks written by this writer. */
  chunks = 0;
  /** True once an entry was refused because of `maxBytes` (or the file was closed). */
  full = false;
  private fd: number | undefined;
  private lines: string[] = [];
  private pendingBytes = 0;

  /**
   * @throws RecordingFormatError when the file exists and is not a recording; the file
   * system's error when it cannot be opened.
   */
  constructor(
    readonly path: string,
    private readonly options: RecordingWriterOptions,
  ) {
    this.fd = openSync(path, 'a+');
    try {
      this.repaired = repairTail(this.fd, path);
    } catch (e) {
      closeSync(this.fd);
      this.fd = undefined;
      throw e;
    }
  }

  /** Entries waiting for the next chunk. */
  get pending(): number {
    return this.lines.length;
  }

  /**
   * Queues one entry (a JSON line without its newline); writes a chunk when enough are pending.
   * @returns false when the entry was refused (size bound reached, or closed)
   */
  add(line: string): boolean {
    if (this.full) return false;
    this.lines.push(line);
    this.pendingBytes += line.length + 1;
    if (this.pendingBytes >= this.options.flushBytes) this.flush();
    return !this.full;
  }

  /**
   * Writes the pending entries as one chunk. When the chunk would pass `maxBytes`, writes the
   * longest prefix of them that fits, drops the rest and refuses every later entry (`full`).
   */
  flush(): void {
    if (this.lines.length === 0 || this.fd === undefined) return;
    const room = this.options.maxBytes - END_RESERVE_BYTES - this.written;
    let n = this.lines.length;
    for (;;) {
      const chunk = this.encode(this.lines, n);
      if (chunk.length <= room) {
        this.write(chunk);
        break;
      }
      if (n === 1) {
        n = 0;
        break;
      }
      n = Math.floor(n / 2);
    }
    if (n < this.lines.length) this.full = true;
    this.lines = [];
    this.pendingBytes = 0;
  }

  /** Writes `lines` as one last chunk, whatever the bound (they must be small: an end marker), after the pending ones. */
  writeFinal(lines: readonly string[]): void {
    this.flush();
    if (this.fd === undefined || lines.length === 0) return;
    this.write(this.encode(lines, lines.length));
  }

  /** Closes the file; pending entries are dropped (call `flush` or `writeFinal` first). Idempotent. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    this.full = true;
    this.lines = [];
    closeSync(fd);
  }

  private encode(lines: readonly string[], n: number): Buffer {
    const text = n === lines.length ? `${lines.join('\n')}\n` : `${lines.slice(0, n).join('\n')}\n`;
    return encodeChunk(Buffer.from(text, 'utf8'), n, this.options.compressionLevel);
  }

  private write(chunk: Buffer): void {
    const fd = this.fd!;
    let off = 0;
    while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
    if (this.options.fsync) fsyncSync(fd);
    this.written += chunk.length;
    this.chunks++;
  }
}

/**
 * Checks an existing file before appending: walks its chunk headers (24 bytes each, nothing
 * else is read) and decompresses the last chunk (a process that died mid-write leaves it
 * short; a disk that lied, damaged). Cuts off what follows the last good chunk.
 */
function repairTail(fd: number, path: string): TornTail | undefined {
  const size = fstatSync(fd).size;
  if (size === 0) return undefined;
  const read = (offset: number, length: number): Buffer => {
    const buf = Buffer.allocUnsafe(length);
    let n = 0;
    while (n < length) {
      const got = readSync(fd, buf, n, length - n, offset + n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  };
  let offset = 0;
  let last: ChunkRef | undefined;
  let torn: TornTail | undefined;
  while (offset < size) {
    const head = read(offset, Math.min(CHUNK_HEADER_BYTES, size - offset));
    const header = head.length === CHUNK_HEADER_BYTES ? chunkHeader(head, 0) : undefined;
    if (header === undefined || header.size < CHUNK_HEADER_BYTES + 8 || offset + header.size > size) {
      // Never cut a file that is not a recording: only a torn first chunk of one.
      const notOurs = header === undefined && (head.length === CHUNK_HEADER_BYTES || head[0] !== 0x1f || (head.length > 1 && head[1] !== 0x8b));
      if (offset === 0 && notOurs) throw new RecordingFormatError(`${path} is not a recording of exchange-replica`);
      const reason = header === undefined ? (head.length < CHUNK_HEADER_BYTES ? `incomplete chunk header (${head.length} bytes)` : 'bytes that are not a chunk') : `incomplete chunk (${size - offset} of ${header.size} bytes)`;
      torn = { offset, bytes: size - offset, reason };
      break;
    }
    const declared = header.size;
    last = { offset, size: declared, entries: header.entries };
    offset += declared;
  }
  if (torn === undefined && last !== undefined) {
    try {
      decodeChunk(read(last.offset, last.size), { ...last, offset: 0 });
    } catch (e) {
      torn = { offset: last.offset, bytes: size - last.offset, reason: `damaged last chunk: ${(e as Error).message}` };
    }
  }
  if (torn !== undefined) ftruncateSync(fd, torn.offset);
  return torn;
}
