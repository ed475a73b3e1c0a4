/**
 * The chunk format (version 2): a file is a sequence of chunks, each one complete gzip member
 * (RFC 1952), so the whole file is a valid gzip file (`zcat` prints its JSON lines). Each
 * member carries, in its header's FEXTRA field (subfield `ER`, as BGZF does with `BC`), its
 * own size in bytes, the number of entries it holds and a checksum; inside, the entries are
 * JSON lines. A chunk is written with one `write`, so a process that dies mid-write leaves at
 * most one incomplete chunk, at the end (see `scanChunks`).
 *
 *   1f 8b 08 04 | mtime 0 (4) | xfl 0 | os 255 | xlen 16 (2) | 'E' 'R' | slen 12 (2) |
 *   member size u32le | entry count u32le | checksum u32le |
 *   raw deflate data | crc32 u32le | size mod 2^32 u32le
 *
 * The checksum is a CRC-32 of every byte of the member but itself, seeded with the checksum
 * of the chunk before it (0 for a file's first chunk). gzip's own CRC-32 covers the text
 * only, and gzip tools recompute it: ours also covers the header, the compressed bytes and
 * the chunk's place in the file, so a damaged, edited, moved or removed chunk fails it. It is
 * not a signature: whoever has this library can write a file that passes.
 *
 * Version 1 (no checksum, `xlen` 12, `slen` 8) is refused with a message that says so.
 */
import { constants as bufferConstants } from 'node:buffer';
import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { RecordingFormatError } from './errors';

/** Bytes of a chunk's header, FEXTRA included. */
export const CHUNK_HEADER_BYTES = 28;
/** Bytes of a chunk's gzip trailer (CRC-32, length). */
export const CHUNK_TRAILER_BYTES = 8;
/** The 16 bytes every chunk starts with: how a reader tells a chunk from other bytes. */
export const CHUNK_SIGNATURE = Buffer.from([0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 255, 16, 0, 0x45, 0x52, 12, 0]);
/** Where the checksum is in a chunk. */
const CHECKSUM_AT = 24;

/**
 * Default of the most bytes a chunk may inflate to: twice the largest REST answer a client
 * reads by default (`rest.maxResponseBytes`, 64 MiB: JSON-escaped in its entry), far above
 * a feed frame's (16 MiB); the recorder never writes more in one chunk (a single larger
 * entry excepted).
 */
export const DEFAULT_MAX_CHUNK_BYTES = 128 * 1024 ** 2;
/** The most `maxChunkBytes` can be: the longest string the text of a chunk can become. */
export const MAX_CHUNK_BYTES_LIMIT = bufferConstants.MAX_STRING_LENGTH - 2;

/** Where a chunk is in the file. */
export interface ChunkRef {
  /** Its place in the file, 0 for the first. */
  readonly index: number;
  readonly offset: number;
  readonly size: number;
  readonly entries: number;
  readonly checksum: number;
}

/** An incomplete or damaged end of file: skipped by readers, cut off by a writer that appends. */
export interface TornTail {
  /** Where the unreadable part starts (the end of the last good chunk). */
  readonly offset: number;
  /** Its length. */
  readonly bytes: number;
  readonly reason: string;
}

/**
 * One chunk holding `payload` (the entries' JSON lines, UTF-8) and its entry count.
 * @param previous the checksum of the chunk it follows in the file, 0 for the first
 */
export function encodeChunk(payload: Buffer, entries: number, level: number, previous: number): Buffer {
  const deflated = deflateRawSync(payload, { level });
  const size = CHUNK_HEADER_BYTES + deflated.length + CHUNK_TRAILER_BYTES;
  const out = Buffer.allocUnsafe(size);
  CHUNK_SIGNATURE.copy(out, 0);
  out.writeUInt32LE(size, 16);
  out.writeUInt32LE(entries, 20);
  deflated.copy(out, CHUNK_HEADER_BYTES);
  out.writeUInt32LE(crc32(payload) >>> 0, size - 8);
  out.writeUInt32LE(payload.length >>> 0, size - 4);
  out.writeUInt32LE(chunkChecksum(out, previous), CHECKSUM_AT);
  return out;
}

/** The checksum of a whole chunk (`member`, its checksum field left out) after the chunk whose checksum is `previous`. */
export function chunkChecksum(member: Buffer, previous: number): number {
  return crc32(member.subarray(CHUNK_HEADER_BYTES), crc32(member.subarray(0, CHECKSUM_AT), previous)) >>> 0;
}

/** Reads the size, entry count and checksum of the chunk at `offset`; undefined when these bytes are not one of our chunk headers. */
export function chunkHeader(buf: Buffer, offset: number): { size: number; entries: number; checksum: number } | undefined {
  if (buf.length - offset < CHUNK_HEADER_BYTES || buf.compare(CHUNK_SIGNATURE, 0, CHUNK_SIGNATURE.length, offset, offset + CHUNK_SIGNATURE.length) !== 0) return undefined;
  return { size: buf.readUInt32LE(offset + 16), entries: buf.readUInt32LE(offset + 20), checksum: buf.readUInt32LE(offset + CHECKSUM_AT) };
}

/** True when the bytes at `offset` start a chunk of format version 1 (written before checksums). */
export function isVersionOneChunk(buf: Buffer, offset: number): boolean {
  return buf.length - offset >= 16 && buf[offset] === 0x1f && buf[offset + 1] === 0x8b && buf[offset + 3] === 4 && buf.readUInt16LE(offset + 10) === 12 && buf[offset + 12] === 0x45 && buf[offset + 13] === 0x52 && buf.readUInt16LE(offset + 14) === 8;
}

/**
 * The text of one chunk (its JSON lines, each ending with a newline), checked (gzip CRC-32
 * and length), inflated to at most `maxBytes`.
 * @throws RecordingFormatError with the reason when the chunk cannot be inflated or inflates to more.
 */
export function decodeChunkText(buf: Buffer, chunk: ChunkRef, maxBytes: number): string {
  try {
    return gunzipSync(buf.subarray(chunk.offset, chunk.offset + chunk.size), { maxOutputLength: maxBytes }).toString('utf8');
  } catch (e) {
    // zlib stops at the bound: a bomb costs `maxBytes`, never what it would inflate to.
    if ((e as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new RecordingFormatError(`it inflates to more than ${maxBytes} bytes (maxChunkBytes)`);
    throw new RecordingFormatError(`it is not valid gzip: ${(e as Error).message}`);
  }
}

/**
 * The JSON lines of one chunk (see {@link decodeChunkText}), as many as its header says.
 * @throws RecordingFormatError with the reason when they are not.
 */
export function decodeChunk(buf: Buffer, chunk: ChunkRef, maxBytes: number): string[] {
  const lines = decodeChunkText(buf, chunk, maxBytes).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length !== chunk.entries) throw new RecordingFormatError(`it holds ${lines.length} entries, its header says ${chunk.entries}`);
  return lines;
}

/**
 * The values of one chunk, parsed at once (JSON lines never hold a raw newline: joined with
 * commas, they are one JSON array), as many as its header says.
 * @throws RecordingFormatError with the reason when the chunk cannot be read or its lines are not JSON.
 */
export function decodeChunkValues(buf: Buffer, chunk: ChunkRef, maxBytes: number): unknown[] {
  const text = decodeChunkText(buf, chunk, maxBytes);
  let values: unknown[];
  try {
    values = JSON.parse(`[${text.endsWith('\n') ? text.slice(0, -1).replaceAll('\n', ',') : text.replaceAll('\n', ',')}]`) as unknown[];
  } catch (e) {
    throw new RecordingFormatError(`its entries are not JSON lines (${(e as Error).message})`);
  }
  if (values.length !== chunk.entries) throw new RecordingFormatError(`it holds ${values.length} entries, its header says ${chunk.entries}`);
  return values;
}
