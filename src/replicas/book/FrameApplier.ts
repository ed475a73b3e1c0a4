/**
 * Applying one `book` update to both sides, all or nothing: an invalid value leaves the
 * sides as they were. Owns the buffers every frame of a book reuses.
 */
import type { PriceLevel } from '../../protocol';
import type { BookSideStore } from './BookSide';
import { BULK } from './NumberLevels';
import { parseLevels } from './parseLevels';
import { parseSafeUint } from './parseSafeUint';

export class FrameApplier {
  /** Parsed (price, size) pairs of a frame: bids first, then asks. */
  private scratch = new Float64Array(32);
  private readonly bigBids: bigint[] = [];
  private readonly bigAsks: bigint[] = [];

  /** @param afterFrame called once the levels of a frame are set (the book counts and checks it). */
  constructor(
    private readonly b: BookSideStore,
    private readonly a: BookSideStore,
    private readonly afterFrame: () => void,
  ) {}

  /**
   * Sets every level of the update on its side, then calls `afterFrame`.
   *
   * The hot path, for two number-path sides, parses the whole frame first, then sets the
   * levels; on a value it cannot take (invalid, or above 2^53 - 1) it has changed nothing and
   * the general path takes over. Parsing in a pass of its own lets the loads of the frame's
   * strings overlap (they are what a frame costs most), and needs no undo.
   *
   * Kept as one method on purpose, for the optimizing compiler (V8): it does not inline a
   * function of more than 460 bytes of bytecode (this one has about 500) into its callers,
   * so the frame is compiled as a unit of its own whoever calls it (`applyLevels`, a
   * reducer, a benchmark loop), and that unit's inlining budget (about 900 bytes) goes to
   * the per-level calls: one parser site for price and one for size (one loop over both
   * sides) and one `set` site for both sides. Split into smaller methods, the pieces were
   * inlined into the caller, whose budget then sometimes ran out before the per-level `set`:
   * 97-120 ns a frame from run to run in `bookMicro`, against a steady 98-102 as one method.
   * @throws ReplicaIntegrityError for a value that is not a Uint64 string (sides unchanged),
   *   and whatever `afterFrame` throws.
   */
  apply(bids: readonly PriceLevel[], asks: readonly PriceLevel[]): void {
    const b = this.b;
    const a = this.a;
    const nb = bids.length;
    const na = asks.length;
    const off = 2 * nb;
    const need = off + 2 * na;
    if (this.scratch.length < need) this.scratch = new Float64Array(2 * need);
    const sc = this.scratch;
    fast: if (!b.isBigint && !a.isBigint) {
      for (let j = 0; j < nb + na; j++) {
        const l = j < nb ? bids[j]! : asks[j - nb]!;
        const p = parseSafeUint(l?.price_ticks);
        const s = parseSafeUint(l?.size_base_lots);
        if (p < 0 || s < 0) break fast;
        sc[2 * j] = p;
        sc[2 * j + 1] = s;
      }
      if (nb < BULK && na < BULK) {
        for (let j = 0; j < need; j += 2) (j < off ? b : a).set(sc[j]!, sc[j + 1]!);
      } else {
        b.setLevels(sc, 0, nb);
        a.setLevels(sc, off, na);
      }
      this.afterFrame();
      return;
    }
    // The general path: parses every level first (exactly where a side is or must become
    // exact), then applies. Reports an invalid value before changing anything.
    const bidsBig = parseLevels(b.isBigint, bids, sc, 0, this.bigBids, 'bids');
    const asksBig = parseLevels(a.isBigint, asks, sc, off, this.bigAsks, 'asks');
    applyParsed(b, bidsBig, sc, 0, nb, this.bigBids);
    applyParsed(a, asksBig, sc, off, na, this.bigAsks);
    this.afterFrame();
  }
}

/** Applies one side's parsed levels (every value already valid). */
function applyParsed(side: BookSideStore, big: boolean, scratch: Float64Array, off: number, count: number, bigVals: bigint[]): void {
  if (!big) side.setLevels(scratch, off, count);
  else {
    side.toBig();
    side.setLevelsBig(bigVals);
  }
}
