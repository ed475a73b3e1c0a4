/**
 * The chunks of a file, each checked against its checksum (nothing is inflated), and the one
 * damage a reader tolerates: a torn tail.
 *
 * A process that dies mid-write leaves an incomplete last chunk; a machine that crashes may
 * leave a damaged last chunk or zeros (the file's size reached the disk, not its data).
 * Either way nothing after the damage looks like a chunk: that is a torn tail, reported, and
 * everything before it is read. Damage with a chunk after it comes from something else (a
 * disk, a copy, a hand edit) and may hide anything: the file is refused, naming the chunk.
 */
import type { ByteSource } from './byteSource';
import { CHUNK_HEADER_BYTES, CHUNK_SIGNATURE, CHUNK_TRAILER_BYTES, chunkChecksum, chunkHeader, isVersionOneChunk, type ChunkRef, type TornTail } from './chunks';
import { RecordingFormatError } from './errors';

/**
 * Lists the chunks of a file, checking each one's checksum, and the torn tail after the last
 * good one, if any.
 * @param name the file, for messages
 * @throws RecordingFormatError when the file does not start with a chunk, is of format
 * version 1, or is damaged (or was edited) anywhere but at its end.
 */
export function scanChunks(source: ByteSource, name: string): { chunks: ChunkRef[]; torn: TornTail | undefined } {
  const chunks: ChunkRef[] = [];
  let offset = 0;
  let previous = 0;
  while (offset < source.size) {
    const left = source.size - offset;
    const head = source.read(offset, Math.min(CHUNK_HEADER_BYTES, left));
    const header = chunkHeader(head, 0);
    let problem: string;
    if (header === undefined) {
      if (isVersionOneChunk(head, 0)) throw versionOne(name, chunks.length, offset);
      if (offset === 0 && !isTornStart(head)) throw new RecordingFormatError(`${name} is not a recording of exchange-replica (it does not start with a recording chunk)`);
      problem = head.length < CHUNK_HEADER_BYTES ? `incomplete chunk header (${left} bytes)` : 'bytes that are not a chunk';
    } else if (header.size < CHUNK_HEADER_BYTES + CHUNK_TRAILER_BYTES) {
      problem = `a chunk header with an impossible size (${header.size})`;
    } else if (header.size > left) {
      problem = `incomplete chunk (${left} of ${header.size} bytes)`;
    } else if (chunkChecksum(source.read(offset, header.size), previous) !== header.checksum) {
      problem = 'damaged chunk: its checksum does not match';
    } else {
      chunks.push({ index: chunks.length, offset, size: header.size, entries: header.entries, checksum: header.checksum });
      previous = header.checksum;
      offset += header.size;
      continue;
    }
    const next = source.indexOf(CHUNK_SIGNATURE, offset + 1);
    if (next === -1) return { chunks, torn: { offset, bytes: left, reason: problem } };
    throw new RecordingFormatError(`${name}: chunk ${chunks.length} (byte ${offset}) is damaged or was edited (${problem}), and a chunk follows it (byte ${next}): the file is refused, not read in part`, {}, { chunk: chunks.length, offset });
  }
  return { chunks, torn: undefined };
}

/** True for the first bytes of a chunk, cut short: a recorder that died writing its first chunk. */
function isTornStart(head: Buffer): boolean {
  if (head.length >= CHUNK_HEADER_BYTES) return false;
  const n = Math.min(head.length, CHUNK_SIGNATURE.length);
  return head.compare(CHUNK_SIGNATURE, 0, n, 0, n) === 0;
}

function versionOne(name: string, chunk: number, offset: number): RecordingFormatError {
  const where = offset === 0 ? '' : ` from chunk ${chunk} (byte ${offset}) on`;
  return new RecordingFormatError(
    `${name} is${where} a recording of format version 1 (its chunks carry no checksum): this version of exchange-replica reads format 2 only; record it again`,
    {},
    { chunk, offset },
  );
}
