/**
 * The frames a timed pass of the book benchmark hands to the books, made (untimed) just
 * before the pass, one chunk at a time, as a live client hands its book freshly decoded
 * frames.
 *
 * Why not one array of frames made once: 20,000 frames of objects and strings (megabytes)
 * are read from main memory on every pass, about 120 ns a frame on the reference machine,
 * the same for every book: a cost of the harness that compressed every ratio toward 1 (see
 * benchmarks/README.md). A chunk of {@link CHUNK} frames made just before its pass is in the
 * cache, as a frame is when the decoder has just built it.
 *
 * - `wire`: every value is a new string sliced out of one text, the way the library's feed
 *   decoder slices them (`fastDecodeRecords.ts`: `text.slice`): not internalized, no cached
 *   hash, exactly what `OrderBook.applyLevels` receives in the client. (`JSON.parse` would
 *   internalize these short strings and cache their integer value, which makes `+s` and
 *   `Number(s)` nearly free: not what the client's books see.)
 * - `numbers`: the same changes pre-parsed, as fresh `[side, price, size, ...]` arrays
 *   (`BenchFrame.flat`: side 0 bid, 1 ask; size 0 removes); `bids` / `asks` are left empty.
 */
import type { PriceLevel } from '../../src/protocol';
import type { BenchFrame } from '../bookMicro';

/** What the books are handed: decimal strings (`bids` / `asks`) or pre-parsed numbers (`flat`). */
export type FrameInput = 'wire' | 'numbers';

/** Frames per chunk: a few tens of kilobytes, well within the caches. */
export const CHUNK = 250;

/** Fresh frames `[from, to)` of `frames` in the form of `input` (see the file comment). */
export function makeHotChunk(frames: readonly BenchFrame[], from: number, to: number, input: FrameInput): BenchFrame[] {
  return input === 'wire' ? wireChunk(frames, from, to) : numbersChunk(frames, from, to);
}

function numbersChunk(frames: readonly BenchFrame[], from: number, to: number): BenchFrame[] {
  const out: BenchFrame[] = [];
  for (let i = from; i < to; i++) out.push({ bids: [], asks: [], flat: frames[i]!.flat.slice() });
  return out;
}

function wireChunk(frames: readonly BenchFrame[], from: number, to: number): BenchFrame[] {
  // One text holding every value of the chunk, then a slice per value, in frame order.
  const parts: string[] = [];
  for (let i = from; i < to; i++) {
    for (const l of frames[i]!.bids) parts.push(l.price_ticks, l.size_base_lots);
    for (const l of frames[i]!.asks) parts.push(l.price_ticks, l.size_base_lots);
  }
  const text = parts.join(',');
  let pos = 0;
  const next = () => {
    const end = text.indexOf(',', pos);
    const stop = end < 0 ? text.length : end;
    const s = text.slice(pos, stop);
    pos = stop + 1;
    return s;
  };
  const level = (): PriceLevel => {
    const price_ticks = next();
    return { price_ticks, size_base_lots: next() };
  };
  const out: BenchFrame[] = [];
  for (let i = from; i < to; i++) {
    const f = frames[i]!;
    const bids = f.bids.map(level);
    const asks = f.asks.map(level);
    out.push({ bids, asks, flat: [] });
  }
  return out;
}
