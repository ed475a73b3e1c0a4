/**
 * The redirect policy of REST calls: an answer is the exchange's only when it comes from the
 * exchange's origin (scheme, host and port of `baseUrl`). A redirect to the same origin is
 * followed, with the same headers, at most `maxRedirects` times; one to any other origin is
 * refused (`ERR_REDIRECT_REFUSED`) before anything is sent there, so the caller's headers
 * (credentials) never leave the exchange's origin and another host's answer is never taken
 * for the exchange's. @internal
 */
import { ExchangeReplicaError } from '../errors';

/** Statuses that redirect when they carry a `Location`. */
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The part of a fetch answer the policy reads (a WHATWG `Response` has all of it). */
export interface RedirectAnswerLike {
  readonly status: number;
  readonly headers?: { get(name: string): string | null };
  /** `opaqueredirect` when a browser hid a redirect from `redirect: 'manual'`. */
  readonly type?: string;
  /** True when the fetch followed a redirect itself. */
  readonly redirected?: boolean;
  /** The URL the answer came from. */
  readonly url?: string;
}

/**
 * Where a fetch answer leads.
 * @param requested the URL just requested.
 * @param origin the exchange's origin (that of the first URL).
 * @param followed redirects followed so far in this attempt.
 * @returns undefined when `answer` is the answer itself (a 3xx without `Location` included:
 *   its body is judged like any other answer), else the absolute URL of a same-origin
 *   redirect to request next.
 * @throws ExchangeReplicaError `ERR_REDIRECT_REFUSED` (context: `status`, `location`) for a
 *   redirect to another origin, an unreadable `Location`, one redirect more than
 *   `maxRedirects`, an answer a fetch reports from another origin (it followed a redirect
 *   itself), or a redirect the platform hides (a browser's opaque redirect).
 */
export function redirectTarget(answer: RedirectAnswerLike, requested: string, origin: string, followed: number, maxRedirects: number, operation: string): string | undefined {
  const refused = (location: string | undefined, why: string) =>
    new ExchangeReplicaError(
      'ERR_REDIRECT_REFUSED',
      `${operation}: HTTP ${answer.status} redirect${location === undefined ? '' : ` to ${location}`} refused: ${why}`,
      location === undefined ? { operation, status: answer.status } : { operation, status: answer.status, location },
    );
  // A fetch that ignored `redirect: 'manual'` and followed by itself: the answer is not the exchange's.
  if (answer.redirected === true && answer.url && originOf(answer.url) !== origin) {
    throw refused(answer.url, `the fetch followed it to another origin than the exchange's (${origin}); that answer is not taken`);
  }
  if (answer.type === 'opaqueredirect') throw refused(undefined, 'the platform hides its Location (an opaque redirect), so its origin cannot be checked');
  if (!REDIRECT_STATUSES.has(answer.status)) return undefined;
  const location = answer.headers?.get('location');
  if (location == null) return undefined;
  let target: URL;
  try {
    target = new URL(location, requested);
  } catch {
    throw refused(JSON.stringify(location), 'its Location is not a URL');
  }
  if (target.origin !== origin) {
    throw refused(target.href, `another origin than the exchange's (${origin}): nothing is sent there, the request's headers included`);
  }
  if (followed >= maxRedirects) throw refused(target.href, `more than maxRedirects (${maxRedirects}) redirects in one attempt`);
  return target.href;
}

/** The origin of an absolute URL (`null` when it is not one, which matches no origin). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}
