/**
 * `text.slice(start, end)` as a string that does not hold on to `text`. V8 makes a slice of 13
 * characters or more a view into its parent, so a decoded value kept by a replica (an order's
 * timestamps and ids, a trade's sequence) kept its whole frame text alive: every retained record
 * pinned a few hundred bytes, which the young-generation GC copied and promoted with it.
 * Prefixing one character makes V8 flatten a fresh copy, and the slice of that is a view into
 * the copy only (~40 ns a value; the shorter slices are copies already).
 * @internal
 */
export function ownSlice(text: string, start: number, end: number): string {
  return end - start < 13 ? text.slice(start, end) : (' ' + text.slice(start, end)).slice(1);
}
