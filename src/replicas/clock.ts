/** Clocks of the replicas, injectable for tests. */

/** Local wall clock in Unix nanoseconds (millisecond resolution). */
export function wallClockNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** Milliseconds for measuring durations (liveness windows). */
export function monotonicMs(): number {
  return Date.now();
}
