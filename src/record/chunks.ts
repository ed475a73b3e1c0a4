/**
 * The file format: a sequence of chunks, each one complete gzip member (RFC 1952), so the
 * whole file is a valid gzip file (`zcat` prints its JSON lines). Each member carries, in its
 * header's FEXTRA field (subfield `ER`, as BGZF does with `BC`), its own size in bytes and
 * the number of entries it holds; inside, the entries are JSON lines. A chunk is written with
 * one `write`, so a process that dies mid-write leaves at most one incomplete chunk, at the
 * end: its size says it is incomplete (or its CRC-32 fails), and readers skip it.
 *
 *   1f 8b 08 04 | mtime 0 (4) | xfl 0 | os 255 | xlen 12 (2) | 'E' 'R' | slen 8 (2) |
 *   member size u32le | entry count u32le | raw deflate data | crc32 u32le | size mod 2^32 u32le
 */
import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { RecordingFormatError } from './errors';

/** Bytes of a chunk's header, FEXTRA included. */
export const CHUNK_HEADER_BYTES = 24;
const TRAILER_BYTES = 8;
const FEXTRA = 0x04;

/** Where a chunk is in the file. */
export interface ChunkRef {
  readonly offset: number;
  readonly size: number;
  readonly entries: number;
}

/** An incomplete or damaged end of file: skipped by readers, cut off by a writer that appends. */
export interface TornTail {
  /** Where the unreadable part starts (the end of the last good chunk). */
  readonly offset: number;
  /** Its length. */
  readonly bytes: number;
  readonly reason: string;
}

/** One chunk holding `payload` (the entries' JSON lines, UTF-8) and its entry count. */
export function encodeChunk(payload: Buffer, entries: number, level: number): Buffer {
  const deflated = deflateRawSync(payload, { level });
  const size = CHUNK_HEADER_BYTES + deflated.length + TRAILER_BYTES;
  const out = Buffer.allocUnsafe(size);
  out[0] = 0x1f;
  out[1] = 0x8b;
  out[2] = 8; // deflate
  out[3] = FEXTRA;
  out.writeUInt32LE(0, 4); // no mtime
  out[8] = 0;
  out[9] = 255; // OS unknown
  out.writeUInt16LE(12, 10); // XLEN
  out[12] = 0x45; // 'E'
  out[13] = 0x52; // 'R'
  out.writeUInt16LE(8, 14); // SLEN
  out.writeUInt32LE(size, 16);
  out.writeUInt32LE(entries, 20);
  deflated.copy(out, CHUNK_HEADER_BYTES);
  out.writeUInt32LE(crc32(payload) >>> 0, size - 8);
  out.writeUInt32LE(payload.length >>> 0, size - 4);
  return out;
}

/** Reads the size and entry count of the chunk at `offset`; undefined when these bytes are not one of our chunk headers. */
export function chunkHeader(buf: Buffer, offset: number): { size: number; entries: number } | undefined {
  if (buf[offset] !== 0x1f || buf[offset + 1] !== 0x8b || buf[offset + 2] !== 8 || buf[offset + 3] !== FEXTRA) return undefined;
  if (buf.readUInt16LE(offset + 10) !== 12 || buf[offset + 12] !== 0x45 || buf[offset + 13] !== 0x52 || buf.readUInt16LE(offset + 14) !== 8) return undefined;
  return { size: buf.readUInt32LE(offset + 16), entries: buf.readUInt32LE(offset + 20) };
}

/**
 * Lists the chunks of a file's bytes (headers only: nothing is decompressed), and the torn
 * tail after the last complete one, if any.
 * @throws RecordingFormatError when the file does not start with a chunk.
 */
export function scanChunks(buf: Buffer, name = 'the file'): { chunks: ChunkRef[]; torn: TornTail | undefined } {
  const chunks: ChunkRef[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const left = buf.length - offset;
    const torn = (reason: string) => ({ chunks, torn: { offset, bytes: left, reason } });
    if (left < CHUNK_HEADER_BYTES) {
      if (offset === 0 && (buf[0] !== 0x1f || (left > 1 && buf[1] !== 0x8b))) throw notARecording(name);
      return torn(`incomplete chunk header (${left} bytes)`);
    }
    const header = chunkHeader(buf, offset);
    if (header === undefined) {
      if (offset === 0) throw notARecording(name);
      return torn('bytes that are not a chunk');
    }
    if (header.size < CHUNK_HEADER_BYTES + TRAILER_BYTES) return torn(`a chunk header with an impossible size (${header.size})`);
    if (header.size > left) return torn(`incomplete chunk (${left} of ${header.size} bytes)`);
    chunks.push({ offset, size: header.size, entries: header.entries });
    offset += header.size;
  }
  return { chunks, torn: undefined };
}

function notARecording(name: string): RecordingFormatError {
  return new RecordingFormatError(`${name} is not a recording of exchange-replica (it does not start with a recording chunk)`);
}

/**
 * The JSON lines of one chunk, checked (gzip CRC-32 and length, entry count).
 * @throws Error with the reason when the chunk is damaged.
 */
export function decodeChunk(buf: Buffer, chunk: ChunkRef): string[] {
  const lines = decodeChunkText(buf, chunk).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length !== chunk.entries) throw new Error(`the chunk holds ${lines.length} entries, its header says ${chunk.entries}`);
  return lines;
}

/** The text of one chunk (its JSON lines, each ending with a newline), checked (gzip CRC-32 and length). */
export function decodeChunkText(buf: Buffer, chunk: ChunkRef): string {
  return gunzipSync(buf.subarray(chunk.offset, chunk.offset + chunk.size)).toString('utf8');
}

/**
 * The entries of one chunk, parsed at once (JSON lines never hold a raw newline: joined with
 * commas, they are one JSON array).
 * @throws Error with the reason when the chunk is damaged or its entries are not JSON.
 */
export function decodeChunkValues(buf: Buffer, chunk: ChunkRef): unknown[] {
  const text = decodeChunkText(buf, chunk);
  const values = JSON.parse(`[${text.endsWith('\n') ? text.slice(0, -1).replaceAll('\n', ',') : text.replaceAll('\n', ',')}]`) as unknown[];
  if (values.length !== chunk.entries) throw new Error(`the chunk holds ${values.length} entries, its header says ${chunk.entries}`);
  return values;
}
