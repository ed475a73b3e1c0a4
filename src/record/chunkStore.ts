/**
 * The chunks of a recording as a replay from it reads them: each chunk's lines, inflated once,
 * kept in a bounded cache (least recently used dropped first). What a subscription's frames
 * decode to is not kept: each playback decodes a frame when it comes to it. @internal
 */
import type { Recording } from './Recording';

/** What a chunk holds for one reader: its lines. */
export interface CachedChunk {
  readonly lines: readonly string[];
}

export class ChunkStore {
  private readonly cache = new Map<number, CachedChunk>();

  /** @param capacity chunks kept in memory at most */
  constructor(
    readonly recording: Recording,
    private readonly capacity: number,
  ) {}

  /**
   * Chunk `i`, inflated (or from the cache); undefined past the last chunk.
   * @throws RecordingFormatError when the chunk cannot be read.
   */
  get(i: number): CachedChunk | undefined {
    const hit = this.cache.get(i);
    if (hit !== undefined) {
      // Most recently used last.
      this.cache.delete(i);
      this.cache.set(i, hit);
      return hit;
    }
    const lines = this.recording.chunkLines(i);
    if (lines === undefined) return undefined;
    const chunk: CachedChunk = { lines };
    this.cache.set(i, chunk);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return chunk;
  }
}
