/**
 * Surgery on recording files, for the integrity tests: what a disk, a hand edit with gzip
 * tools, or a forger with this library's own encoder can do to a file.
 */
import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import { Recording } from '../../src/record';
import { chunkHeader, encodeChunk } from '../../src/record/chunks';

/** The decompressed text of every chunk of a file (gzip's own reader: no check of ours). */
export function chunkTexts(bytes: Buffer): string[] {
  return new Recording(bytes).chunks.map((c) => gunzipSync(bytes.subarray(c.offset, c.offset + c.size)).toString('utf8'));
}

/** A file of chunks holding `texts` (JSON lines, each ending with a newline), as this library writes them. */
export function encodeFile(texts: readonly string[]): Buffer {
  const out: Buffer[] = [];
  let previous = 0;
  for (const text of texts) {
    const chunk = encodeChunk(Buffer.from(text, 'utf8'), text.split('\n').length - 1, 6, previous);
    previous = chunkHeader(chunk, 0)?.checksum ?? 0;
    out.push(chunk);
  }
  return Buffer.concat(out);
}

/**
 * Chunk `member` with its text replaced, as a hand edit with gzip tools leaves it: the same
 * header bytes (the member size field, the first of the `ER` subfield, updated), new deflate
 * data, and gzip's CRC-32 and length of the new text: a valid gzip member.
 */
export function regzip(member: Buffer, text: string): Buffer {
  const headerBytes = 12 + member.readUInt16LE(10);
  const payload = Buffer.from(text, 'utf8');
  const deflated = deflateRawSync(payload);
  const out = Buffer.concat([member.subarray(0, headerBytes), deflated, Buffer.alloc(8)]);
  out.writeUInt32LE(out.length, 16);
  out.writeUInt32LE(crc32(payload) >>> 0, out.length - 8);
  out.writeUInt32LE(payload.length >>> 0, out.length - 4);
  return out;
}

/** `bytes` with chunk `index` replaced by `member`. */
export function replaceChunk(bytes: Buffer, index: number, member: Buffer): Buffer {
  const c = new Recording(bytes).chunks[index]!;
  return Buffer.concat([bytes.subarray(0, c.offset), member, bytes.subarray(c.offset + c.size)]);
}

/** A chunk of format version 1 (no checksum: `ER` subfield of 8 bytes), as releases before 2 wrote. */
export function versionOneChunk(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const deflated = deflateRawSync(payload);
  const header = Buffer.from([0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 255, 12, 0, 0x45, 0x52, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  const out = Buffer.concat([header, deflated, Buffer.alloc(8)]);
  out.writeUInt32LE(out.length, 16);
  out.writeUInt32LE(text.split('\n').length - 1, 20);
  out.writeUInt32LE(crc32(payload) >>> 0, out.length - 8);
  out.writeUInt32LE(payload.length >>> 0, out.length - 4);
  return out;
}
