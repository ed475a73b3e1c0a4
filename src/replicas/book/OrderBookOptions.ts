/** The options of `OrderBook`, their defaults and their checks, applied in one place. */
import { InvalidParameterError } from '../../errors';

/** Options of `OrderBook`. */
export interface OrderBookOptions {
  /**
   * Levels per side the snapshot was requested with. A snapshot side holding at least this
   * many levels is treated as truncated at its deepest price. A positive integer or Infinity.
   * @default 500
   */
  depthLimit?: number;
  /**
   * Ticks spanned by each side's price window, the part of the book kept indexed by tick
   * near the best price (updates there cost an index, deeper ones a search). A power of two
   * from 64 to 2^20; each side allocates 8 bytes per tick.
   * @default 4096
   */
  windowTicks?: number;
  /**
   * Most best levels per side kept in rank order in dense arrays, updated with every change.
   * A side keeps as many as the deepest number read (`topView`, `forEachLevel`, `priceAt`)
   * within this limit asked for, and none until one does; reads within them are plain
   * indexing. A change among them moves at most that many entries. Deeper reads walk the
   * book instead. An integer from 1 to 1024.
   * @default 64
   */
  topLevels?: number;
}

const DEFAULTS: Required<OrderBookOptions> = { depthLimit: 500, windowTicks: 4096, topLevels: 64 };

/**
 * The options in force: defaults for what is missing (or undefined), every value checked.
 * @throws InvalidParameterError when `windowTicks` is not a power of two from 64 to 2^20,
 *   `depthLimit` is not a positive integer (or Infinity), or `topLevels` is not an integer
 *   from 1 to 1024.
 */
export function resolveBookOptions(opts: OrderBookOptions): Readonly<Required<OrderBookOptions>> {
  const o: Required<OrderBookOptions> = { ...DEFAULTS };
  for (const [k, v] of Object.entries(opts)) if (v !== undefined) (o as unknown as Record<string, unknown>)[k] = v;
  const w = o.windowTicks;
  if (!(Number.isInteger(w) && w >= 64 && w <= 1 << 20 && (w & (w - 1)) === 0)) {
    throw new InvalidParameterError(`windowTicks must be a power of two from 64 to 1048576, got ${w}`, { param: 'windowTicks' });
  }
  const d = o.depthLimit;
  if (!(d >= 1 && (Number.isInteger(d) || d === Infinity))) {
    throw new InvalidParameterError(`depthLimit must be a positive integer or Infinity, got ${d}`, { param: 'depthLimit' });
  }
  const t = o.topLevels;
  if (!(Number.isInteger(t) && t >= 1 && t <= 1024)) {
    throw new InvalidParameterError(`topLevels must be an integer from 1 to 1024, got ${t}`, { param: 'topLevels' });
  }
  return o;
}
