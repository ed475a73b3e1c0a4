/**
 * Appends chunks of entries to a recording file: each chunk compressed and written with one
 * synchronous `write` (crash-safe: a process that dies leaves at most one torn chunk, at the
 * end), bounded in bytes. Opening an existing file checks every chunk of it and appends,
 * after cutting off a torn tail left by a process that died (so the new chunks are readable
 * after the old ones); a file damaged anywhere else is refused, and left as it is.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { fileSource } from './byteSource';
import { scanChunks } from './chunkScan';
import { chunkHeader, DEFAULT_MAX_CHUNK_BYTES, encodeChunk, type TornTail } from './chunks';

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

/**
 * Most UTF-16 units of entries in one chunk: a chunk is written before it would hold more,
 * so that it inflates to at most a reader's default `maxChunkBytes` (3 UTF-8 bytes a unit at
 * most), whatever `flushBytes` is. A single larger entry still makes a chunk of its own.
 */
const MAX_CHUNK_UNITS = Math.floor(DEFAULT_MAX_CHUNK_BYTES / 3);

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
  /** The checksum of the file's last chunk (each chunk's checksum is seeded with it). */
  private previous: number;

  /**
   * @throws RecordingFormatError when the file exists and is not a recording, or is damaged
   * anywhere but at its end; the file system's error when it cannot be opened.
   */
  constructor(
    readonly path: string,
    private readonly options: RecordingWriterOptions,
  ) {
    this.fd = openSync(path, 'a+');
    try {
      ({ torn: this.repaired, previous: this.previous } = repairTail(this.fd, path));
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
    if (this.pendingBytes + line.length >= MAX_CHUNK_UNITS) this.flush();
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
    return encodeChunk(Buffer.from(text, 'utf8'), n, this.options.compressionLevel, this.previous);
  }

  private write(chunk: Buffer): void {
    const fd = this.fd!;
    let off = 0;
    while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
    if (this.options.fsync) fsyncSync(fd);
    this.previous = chunkHeader(chunk, 0)!.checksum;
    this.written += chunk.length;
    this.chunks++;
  }
}

/**
 * Checks an existing file before appending: every chunk against its checksum, one in memory
 * at a time (nothing is inflated). Cuts off a torn tail; refuses a file that is not a
 * recording, or damaged elsewhere, without touching it.
 */
function repairTail(fd: number, path: string): { torn: TornTail | undefined; previous: number } {
  const { chunks, torn } = scanChunks(fileSource(fd), path);
  if (torn !== undefined) ftruncateSync(fd, torn.offset);
  return { torn, previous: chunks[chunks.length - 1]?.checksum ?? 0 };
}
