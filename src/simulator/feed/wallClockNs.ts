/**
 * Wall-clock Unix nanoseconds with sub-millisecond resolution: `Date.now()` anchored once,
 * advanced by the monotonic high-resolution timer (cheap enough to read per frame). @internal
 */
const anchorNs = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

/** The current wall-clock time in Unix nanoseconds. */
export function wallClockNs(): bigint {
  return anchorNs + process.hrtime.bigint();
}
