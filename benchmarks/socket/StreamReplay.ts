/**
 * The socket benchmark's reference replay, kept OFF the JS heap: the benchmark process is
 * the client being measured, and a few hundred MB of frame objects in its heap would make
 * every garbage collection of the measured scenarios dearer. The frames are packed into
 * typed arrays (side, price, size per level), prices as numbers: the socket stream's prices
 * are small integers (no base offset).
 */
import { topOf, type DeltaStream, type TopLevels } from '../book/deltaStream';

export class StreamReplay {
  private readonly snapshot: { bids: Map<number, number>; asks: Map<number, number> };
  /** Index into `levels` (in triples) where each frame starts; one extra entry at the end. */
  private readonly starts: Int32Array;
  private readonly levels: Float64Array;

  constructor(stream: DeltaStream) {
    const side = (ls: DeltaStream['snapshot']['bids']) => new Map(ls.map((l) => [Number(l.price_ticks), Number(l.size_base_lots)] as const));
    this.snapshot = { bids: side(stream.snapshot.bids), asks: side(stream.snapshot.asks) };
    this.starts = new Int32Array(stream.frames.length + 1);
    let total = 0;
    stream.frames.forEach((f, i) => {
      this.starts[i] = total;
      total += f.flat.length;
    });
    this.starts[stream.frames.length] = total;
    this.levels = new Float64Array(total);
    let k = 0;
    for (const f of stream.frames) for (const x of f.flat) this.levels[k++] = x;
  }

  /** The best `n` levels a side after the first `count` frames, as exact strings. */
  topAfter(count: number, n: number): TopLevels {
    const bids = new Map(this.snapshot.bids);
    const asks = new Map(this.snapshot.asks);
    const end = this.starts[Math.min(count, this.starts.length - 1)]!;
    for (let i = 0; i < end; i += 3) {
      const m = this.levels[i] === 0 ? bids : asks;
      const price = this.levels[i + 1]!;
      const size = this.levels[i + 2]!;
      if (size === 0) m.delete(price);
      else m.set(price, size);
    }
    const asStrings = (m: Map<number, number>) => new Map([...m].map(([p, s]) => [String(p), String(s)]));
    return { bids: topOf(asStrings(bids), n, -1), asks: topOf(asStrings(asks), n, 1) };
  }
}
