/**
 * Wall-clock Unix time in nanoseconds with sub-millisecond resolution, comparable with the
 * server's `timestamp_ns` (also wall clock): latency = receive time - server timestamp.
 *
 * It is the monotonic `performance.now()` plus an anchor on the wall clock. The monotonic
 * clock does not follow wall-clock corrections (NTP, sleep), so the anchor is compared with
 * `Date.now()` at most once a second and moved when they disagree by more than 2 ms.
 */
const RECHECK_MS = 1000;
const TOLERANCE_NS = 2_000_000n;

let anchorNs = BigInt(Math.round(performance.timeOrigin * 1000)) * 1000n;
let lastCheckMs = performance.now();

function monotonicNs(ms: number): bigint {
  return BigInt(Math.round(ms * 1000)) * 1000n;
}

/** Current Unix time in nanoseconds (microsecond resolution). */
export function wallClockNs(): bigint {
  const nowMs = performance.now();
  if (nowMs - lastCheckMs >= RECHECK_MS) {
    lastCheckMs = nowMs;
    const candidate = BigInt(Date.now()) * 1_000_000n - monotonicNs(nowMs);
    const diff = candidate - anchorNs;
    if (diff > TOLERANCE_NS || diff < -TOLERANCE_NS) anchorNs = candidate;
  }
  return anchorNs + monotonicNs(nowMs);
}
