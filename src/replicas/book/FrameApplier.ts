/**
 * Applying one `book` update to both sides, all or nothing: an invalid value leaves the
 * sides as they were. Owns the buffers every frame of a book reuses.
 */
import type { PriceLevel } from '../../protocol';
import type { BookSide } from './BookSide';
import { parseLevels } from './parseLevels';
import { parseSafeUint } from './parseUint';

/**
 * From this many changes on a side, a frame's changes are set together ({@link BookSide.setMany}:
 * sorted, then merged in one pass) rather than one by one. One by one, every new level
 * below the window moves the deep levels above it: a frame of k such levels moved them k
 * times, quadratic in a large frame (a 250,000-level update took seconds). Together they
 * move once. Below this, frames (nearly all carry 1-3 changes) keep the per-level path,
 * whose cost per change is an index or a short move near the best.
 */
export const BULK = 32;

export class FrameApplier {
  /** Parsed (price, size) pairs of a frame: bids first, then asks. */
  private scratch = new Float64Array(32);
  private readonly bigBids: bigint[] = [];
  private readonly bigAsks: bigint[] = [];

  constructor(
    private readonly b: BookSide,
    private readonly a: BookSide,
  ) {}

  /**
   * Sets every level of the update on its side.
   * @throws ReplicaIntegrityError for a value that is not a Uint64 string (sides unchanged).
   */
  apply(bids: readonly PriceLevel[], asks: readonly PriceLevel[]): void {
    if (this.b.big || this.a.big || !this.applyFast(bids, asks)) this.applyChecked(bids, asks);
  }

  /**
   * The hot path, for two number-path sides: parses the whole frame first, then sets the
   * levels; returns false, having changed nothing, on a value it cannot take here (invalid,
   * or above 2^53 - 1). Parsing in a pass of its own lets the loads of the frame's strings
   * overlap (they are what a frame costs most), and needs no undo.
   */
  private applyFast(bids: readonly PriceLevel[], asks: readonly PriceLevel[]): boolean {
    const nb = bids.length;
    const na = asks.length;
    const need = 2 * (nb + na);
    if (this.scratch.length < need) this.scratch = new Float64Array(2 * need);
    const sc = this.scratch;
    for (let j = 0; j < nb; j++) {
      const l = bids[j]!;
      const p = parseSafeUint(l?.price_ticks);
      const s = parseSafeUint(l?.size_base_lots);
      if (p < 0 || s < 0) return false;
      sc[2 * j] = p;
      sc[2 * j + 1] = s;
    }
    const off = 2 * nb;
    for (let j = 0; j < na; j++) {
      const l = asks[j]!;
      const p = parseSafeUint(l?.price_ticks);
      const s = parseSafeUint(l?.size_base_lots);
      if (p < 0 || s < 0) return false;
      sc[off + 2 * j] = p;
      sc[off + 2 * j + 1] = s;
    }
    const b = this.b;
    if (nb < BULK) for (let j = 0; j < off; j += 2) b.set(sc[j]!, sc[j + 1]!);
    else b.setMany(sc, 0, nb);
    const a = this.a;
    if (na < BULK) for (let j = off; j < need; j += 2) a.set(sc[j]!, sc[j + 1]!);
    else a.setMany(sc, off, na);
    return true;
  }

  /**
   * The general path: parses every level first (exactly where a side is or must become
   * exact), then applies. Reports an invalid value before changing anything.
   */
  private applyChecked(bids: readonly PriceLevel[], asks: readonly PriceLevel[]): void {
    const nb = bids.length;
    const need = 2 * (nb + asks.length);
    if (this.scratch.length < need) this.scratch = new Float64Array(need * 2);
    const scratch = this.scratch;
    const bidsBig = parseLevels(this.b.big, bids, scratch, 0, this.bigBids, 'bids');
    const asksBig = parseLevels(this.a.big, asks, scratch, 2 * nb, this.bigAsks, 'asks');
    applyParsed(this.b, bidsBig, scratch, 0, nb, this.bigBids);
    applyParsed(this.a, asksBig, scratch, 2 * nb, asks.length, this.bigAsks);
  }
}

/** Applies one side's parsed levels (every value already valid). */
function applyParsed(side: BookSide, big: boolean, scratch: Float64Array, off: number, count: number, bigVals: bigint[]): void {
  if (!big) {
    if (count >= BULK) side.setMany(scratch, off, count);
    else for (let j = 0; j < count; j++) side.set(scratch[off + 2 * j]!, scratch[off + 2 * j + 1]!);
    return;
  }
  side.toBig();
  if (count >= BULK) side.setManyBig(bigVals);
  else for (let j = 0; j < bigVals.length; j += 2) side.setBig(bigVals[j]!, bigVals[j + 1]!);
}
