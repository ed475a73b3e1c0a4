/**
 * One HTTP GET with a per-request timeout, the caller's AbortSignal, a bound on the body
 * size and the redirect policy (redirectPolicy.ts: same-origin redirects only). Classifies
 * every failure as a library error: the caller's abort, the timeout, a body over the limit,
 * a refused redirect, or a transport failure.
 * @internal
 */
import { systemClock, type Clock } from '../clock/Clock';
import { AbortedError, ExchangeReplicaError, ResponseTooLargeError, RestTimeoutError, RestTransportError } from '../errors';
import { utf8ByteLength } from '../util/utf8ByteLength';
import { originOf, redirectTarget } from './redirectPolicy';
import { parseRetryAfter, RETRY_AFTER_STATUSES } from './retryAfter';

/** The part of a body stream reader the client uses (a WHATWG `ReadableStreamDefaultReader`). */
export interface BodyReaderLike {
  read(): Promise<{ readonly done: boolean; readonly value?: Uint8Array }>;
  cancel(reason?: unknown): Promise<void>;
}

/**
 * The subset of `fetch` the client uses; inject another implementation for tests or proxies.
 * `body` and `headers` are optional: without `body` the answer is read with `text()` and its
 * size checked afterwards (the limit then bounds what is accepted, not what is buffered).
 * The client asks for `redirect: 'manual'` and follows same-origin redirects itself (it reads
 * `Location` from `headers`); a fetch that follows anyway should report it with `redirected`
 * and `url`, so that an answer from another origin is refused. `Retry-After` is read from
 * `headers` on a 429 or 503.
 */
export type FetchLike = (input: string, init: { method: 'GET'; headers: Record<string, string>; signal: AbortSignal; redirect: 'manual' }) => Promise<{
  readonly status: number;
  text(): Promise<string>;
  readonly headers?: { get(name: string): string | null };
  readonly body?: { getReader(): BodyReaderLike } | null;
  /** `opaqueredirect` for a redirect a browser hides from `redirect: 'manual'` (refused). */
  readonly type?: string;
  /** True when the fetch followed a redirect itself. */
  readonly redirected?: boolean;
  /** The URL the answer came from. */
  readonly url?: string;
}>;

/** Status and raw body text of an HTTP answer. */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  /** The wait a 429 or 503 asked for (`Retry-After`), in milliseconds; absent otherwise. */
  readonly retryAfterMs?: number;
}

export interface FetchTextOptions {
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly headers: Record<string, string>;
  readonly operation: string;
  readonly signal?: AbortSignal;
  /** Largest body accepted, in bytes (after any content decoding). */
  readonly maxResponseBytes: number;
  /** Time source of the timeout, and the wall time an HTTP-date `Retry-After` is read against. @default systemClock */
  readonly clock?: Clock;
  /** Same-origin redirects followed in one call; 0 refuses every redirect. @default 5 */
  readonly maxRedirects?: number;
}

/** Default of {@link FetchTextOptions.maxRedirects}. */
export const DEFAULT_MAX_REDIRECTS = 5;

/**
 * GETs `url` and reads its whole body as text, both within `timeoutMs` (redirects included).
 * The body is read as a stream and the request aborted as soon as it passes
 * `maxResponseBytes` (or at once when its Content-Length says it will). A same-origin
 * redirect is followed (at most `maxRedirects`); any other is refused before anything is
 * sent to its target.
 * @throws AbortedError when `signal` fires, RestTimeoutError on timeout, ResponseTooLargeError
 * past the size limit, ExchangeReplicaError `ERR_REDIRECT_REFUSED` for a refused redirect,
 * RestTransportError otherwise.
 */
export async function fetchText(url: string, o: FetchTextOptions): Promise<HttpAnswer> {
  const context = { operation: o.operation };
  if (o.signal?.aborted) throw new AbortedError(`${o.operation}: aborted by the caller`, context, { cause: o.signal.reason });
  const clock = o.clock ?? systemClock;
  const controller = new AbortController();
  let timedOut = false;
  const timer = clock.setTimer(() => {
    timedOut = true;
    controller.abort();
  }, o.timeoutMs);
  const onAbort = () => controller.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const origin = originOf(url);
    let requested = url;
    let res = await o.fetch(requested, { method: 'GET', headers: o.headers, signal: controller.signal, redirect: 'manual' });
    for (let followed = 0; ; followed++) {
      const next = redirectTarget(res, requested, origin, followed, o.maxRedirects ?? DEFAULT_MAX_REDIRECTS, o.operation);
      if (next === undefined) break;
      discardBody(res.body);
      requested = next;
      res = await o.fetch(requested, { method: 'GET', headers: o.headers, signal: controller.signal, redirect: 'manual' });
    }
    const waitAsked = RETRY_AFTER_STATUSES.has(res.status) ? parseRetryAfter(res.headers?.get('retry-after'), Number(clock.nowNs() / 1_000_000n)) : undefined;
    const answer = (text: string): HttpAnswer => (waitAsked === undefined ? { status: res.status, text } : { status: res.status, text, retryAfterMs: waitAsked });
    const limit = o.maxResponseBytes;
    const tooLarge = (size: string) => {
      controller.abort();
      return new ResponseTooLargeError(
        `${o.operation}: HTTP ${res.status} answer ${size}, over maxResponseBytes (${limit} bytes): request aborted. Raise the REST option 'maxResponseBytes' if such answers are expected`,
        { operation: o.operation, status: res.status },
        limit,
      );
    };
    // A declared length over the limit fails before any byte is read (only when it is the
    // length of the decoded body, i.e. no content coding).
    const declared = res.headers?.get('content-length');
    if (declared != null && !res.headers?.get('content-encoding') && Number(declared) > limit) throw tooLarge(`declares Content-Length ${declared}`);
    // Reading the body stays under the same timeout: a server that stalls mid-body is a timeout too.
    const body = res.body;
    if (body == null) {
      const text = await res.text();
      // UTF-8 takes 1 to 3 bytes per UTF-16 unit: the exact count only when it can matter.
      if (text.length * 3 > limit) {
        const bytes = text.length > limit ? text.length : utf8ByteLength(text);
        if (bytes > limit) throw tooLarge(`has ${text.length > limit ? 'over ' : ''}${bytes} bytes`);
      }
      return answer(text);
    }
    return answer(await readLimited(body.getReader(), limit, tooLarge));
  } catch (e) {
    if (o.signal?.aborted) throw new AbortedError(`${o.operation}: aborted by the caller`, context, { cause: o.signal.reason });
    // Our own verdicts (too large, redirect refused) stand as they are.
    if (e instanceof ExchangeReplicaError) throw e;
    if (timedOut) throw new RestTimeoutError(`${o.operation}: no complete answer within ${o.timeoutMs} ms`, context, { cause: e });
    throw new RestTransportError(`${o.operation}: request failed: ${describe(e)}`, context, { cause: e });
  } finally {
    timer.cancel();
    o.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Reads a body stream to the end as UTF-8 text (decoded chunk by chunk: a character split
 * across two chunks is decoded whole), counting bytes; past `limit` it cancels the stream
 * and throws `tooLarge(...)` without reading further.
 */
async function readLimited(reader: BodyReaderLike, limit: number, tooLarge: (size: string) => Error): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let received = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value === undefined) continue;
    received += value.byteLength;
    if (received > limit) {
      const error = tooLarge(`passed ${received} bytes`);
      reader.cancel(error).catch(() => undefined);
      throw error;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** Lets go of a redirect's body without reading it (its connection is freed). */
function discardBody(body: { getReader(): BodyReaderLike } | null | undefined): void {
  body?.getReader().cancel().catch(() => undefined);
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause;
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED, socket closed) in cause.
  return cause instanceof Error ? `${e.message} (${cause.message})` : e.message;
}
