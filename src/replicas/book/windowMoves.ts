/**
 * Moving a side's price window along the market (number path). Every deep level lies below
 * the window: raising it spills the slots that fall out to the top end of the deep store,
 * lowering it pulls deep levels back in. Moves are multiples of 32 slots, which keeps the
 * bitset's words aligned.
 */
import type { PriceWindow } from './PriceWindow';
import type { SortedLevels } from './SortedLevels';

/**
 * Moves the window so that the key at `rel` slots from its base (above it, or anywhere when it
 * is empty) sits at slot `target`. (A slot offset, not the key: an ask's key is a double
 * above 2^31, which a caller passing it would box on every call of its hot path.)
 */
export function raiseWindow(win: PriceWindow, deep: SortedLevels, rel: number, target: number): void {
  if (win.count === 0) {
    win.reset(win.base + rel - target);
    return;
  }
  const shift = Math.ceil((rel - target) / 32) * 32;
  // The slots that fall below the new base are better than every deep level: append them.
  const end = Math.min(shift, win.size);
  let moved = 0;
  for (let s = win.atOrAbove(0, end); s >= 0; s = win.atOrAbove(s + 1, end)) {
    deep.pushTop(win.base + s, win.sizes[s]!);
    moved++;
  }
  if (moved === win.count) {
    // Not `k - target`: the new base must stay above every level just spilled.
    win.reset(win.base + shift);
  } else {
    win.count -= moved;
    win.shiftUp(shift);
  }
}

/** Lowers the window so its best sits near slot `target`, pulling deep levels back in. */
export function lowerWindow(win: PriceWindow, deep: SortedLevels, target: number): void {
  if (win.count === 0) {
    if (deep.n === 0) return;
    win.reset(deep.keys[deep.n - 1]! - target);
  } else {
    const shift = ((target - win.top) >>> 5) << 5;
    if (shift === 0) return;
    win.shiftDown(shift);
  }
  const base = win.base;
  const keys = deep.keys;
  while (deep.n > 0 && keys[deep.n - 1]! >= base) {
    const j = --deep.n;
    win.set(keys[j]! - base, deep.sizes[j]!);
  }
}
