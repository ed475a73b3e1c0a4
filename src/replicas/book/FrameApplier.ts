/**
 * Applying one `book` update to both sides, all or nothing: an invalid value leaves the
 * sides as they were. Owns the buffers every frame of a book reuses.
 */
import type { PriceLevel } from '../../protocol';
import type { BookSide } from './BookSide';
import { parseLevels } from './parseLevels';
import { parseSafeUint } from './parseUint';

export class FrameApplier {
  /** (price, replaced size) per level set by the hot path, to undo a frame it cannot finish. */
  private undo = new Float64Array(32);
  /** Parsed (price, size) pairs of the general path: bids first, then asks. */
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
   * The hot path, for two number-path sides: parses and applies level by level, logging the
   * size each level replaces. On a value it cannot take here (invalid, or above 2^53 - 1) it
   * restores every level it set, newest first, and returns false.
   */
  private applyFast(bids: readonly PriceLevel[], asks: readonly PriceLevel[]): boolean {
    const nb = bids.length;
    const na = asks.length;
    if (this.undo.length < 2 * (nb + na)) this.undo = new Float64Array(4 * (nb + na));
    const undo = this.undo;
    const b = this.b;
    for (let j = 0; j < nb; j++) {
      const l = bids[j]!;
      const p = parseSafeUint(l?.price_ticks);
      const s = parseSafeUint(l?.size_base_lots);
      if (p < 0 || s < 0) {
        undoLevels(b, undo, 0, j);
        return false;
      }
      undo[2 * j] = p;
      undo[2 * j + 1] = b.set(p, s);
    }
    const a = this.a;
    const off = 2 * nb;
    for (let j = 0; j < na; j++) {
      const l = asks[j]!;
      const p = parseSafeUint(l?.price_ticks);
      const s = parseSafeUint(l?.size_base_lots);
      if (p < 0 || s < 0) {
        undoLevels(a, undo, off, j);
        undoLevels(b, undo, 0, nb);
        return false;
      }
      undo[off + 2 * j] = p;
      undo[off + 2 * j + 1] = a.set(p, s);
    }
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

/** Restores, newest first, the sizes that levels [0, count) of a side's undo log replaced. */
function undoLevels(side: BookSide, undo: Float64Array, off: number, count: number): void {
  for (let j = count - 1; j >= 0; j--) side.set(undo[off + 2 * j]!, undo[off + 2 * j + 1]!);
}

/** Applies one side's parsed levels (every value already valid). */
function applyParsed(side: BookSide, big: boolean, scratch: Float64Array, off: number, count: number, bigVals: bigint[]): void {
  if (!big) {
    for (let j = 0; j < count; j++) side.set(scratch[off + 2 * j]!, scratch[off + 2 * j + 1]!);
    return;
  }
  side.toBig();
  for (let j = 0; j < bigVals.length; j += 2) side.setBig(bigVals[j]!, bigVals[j + 1]!);
}
