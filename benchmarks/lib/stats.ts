/** Small statistics and formatting helpers of the benchmark report. */

/** The median of `xs` (mean of the two middle values for an even count); NaN when empty. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** A number for a table cell: fixed decimals, `-` for NaN or undefined. */
export function fmt(x: number | undefined, digits = 1): string {
  return x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits);
}

/** A ratio for a table cell, e.g. `4.2x`. */
export function fmtRatio(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? '-' : `${x.toFixed(x >= 10 ? 0 : 2)}x`;
}

/** Sleeps without holding the process open past its use. */
export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The `p`-th percentile of `xs` (0 < p <= 100, nearest rank); NaN when empty. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** Median, p99 and max of a sample, for a table row. */
export interface Spread {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function spreadOf(xs: readonly number[]): Spread {
  return { p50: median(xs), p99: percentile(xs, 99), max: xs.length ? Math.max(...xs) : NaN };
}
