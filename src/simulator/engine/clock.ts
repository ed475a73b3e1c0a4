/** The engine's default clock: wall-clock Unix nanoseconds, monotonic within the process. @internal */
const anchorNs = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

export function defaultNowNs(): bigint {
  return anchorNs + process.hrtime.bigint();
}
