/**
 * One wall clock for two processes. `process.hrtime` reads CLOCK_MONOTONIC, which every
 * process of the machine shares; anchoring it ONCE (in the benchmark process, handed to the
 * sender) gives both the same Unix-nanosecond clock, so a frame's latency is exact to the
 * clock's resolution instead of off by the millisecond of two separate `Date.now()` anchors.
 */

/** Wall-clock Unix ns minus hrtime ns, taken once. */
export function makeAnchorNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
}

// Latencies are computed modulo 1e15 ns (11.5 days) in doubles: exact, and no BigInt per frame.
const MOD = 1e15;

/**
 * Returns a function giving the latency in ns of a frame stamped `timestampNs` (a decimal
 * string of the shared clock), as of now.
 */
export function latencyClock(anchorNs: bigint): (timestampNs: string) => number {
  const anchorMod = Number(anchorNs % BigInt(MOD));
  return (timestampNs) => {
    const [s, ns] = process.hrtime();
    const nowHr = (s * 1e9 + ns) % MOD;
    const sentHr = (Number(timestampNs.slice(-15)) - anchorMod + MOD) % MOD;
    return (nowHr - sentHr + MOD) % MOD;
  };
}
