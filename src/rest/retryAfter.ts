/**
 * The `Retry-After` header of a 429 or 503 answer (RFC 9110, 10.2.3): how long the server
 * asks the client to wait before the next attempt. @internal
 */

/** Statuses whose `Retry-After` the client honours: rate limited, and unavailable. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** delta-seconds: digits only (no sign, fraction or exponent). */
const DELTA_SECONDS = /^\s*(\d+)\s*$/;
/**
 * HTTP-date: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) or the obsolete RFC 850 form
 * (`Sunday, 06-Nov-94 08:49:37 GMT`). Checked before `Date.parse`, which would also read
 * strings such as `1.5` or `-1` as dates.
 */
const HTTP_DATE = /^\s*[A-Za-z]{3,9}, \d{2}[ -][A-Za-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT\s*$/;

/**
 * The wait a `Retry-After` value asks for, in milliseconds: delta-seconds, or the time left
 * until an HTTP-date (0 for a date already past).
 * @param nowMs the current Unix time in milliseconds (the client's clock, for an HTTP-date).
 * @returns undefined when there is no header or it is neither form (then it is ignored).
 * @example parseRetryAfter('30', Date.now()) // 30000
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (value == null) return undefined;
  const delta = DELTA_SECONDS.exec(value);
  if (delta) return Number(delta[1]) * 1000;
  if (!HTTP_DATE.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
