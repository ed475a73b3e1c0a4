/**
 * One HTTP GET with a per-request timeout and the caller's AbortSignal. Classifies every
 * failure as a library error: the caller's abort, the timeout, or a transport failure.
 * @internal
 */
import { AbortedError, RestTimeoutError, RestTransportError } from '../errors';

/** The subset of `fetch` the client uses; inject another implementation for tests or proxies. */
export type FetchLike = (input: string, init: { method: 'GET'; headers: Record<string, string>; signal: AbortSignal }) => Promise<{
  readonly status: number;
  text(): Promise<string>;
}>;

/** Status and raw body text of an HTTP answer. */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

export interface FetchTextOptions {
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly headers: Record<string, string>;
  readonly operation: string;
  readonly signal?: AbortSignal;
}

/**
 * GETs `url` and reads its whole body as text, both within `timeoutMs`.
 * @throws AbortedError when `signal` fires, RestTimeoutError on timeout, RestTransportError otherwise.
 */
export async function fetchText(url: string, o: FetchTextOptions): Promise<HttpAnswer> {
  const context = { operation: o.operation };
  if (o.signal?.aborted) throw new AbortedError(`${o.operation}: aborted by the caller`, context, { cause: o.signal.reason });
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, o.timeoutMs);
  const onAbort = () => controller.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await o.fetch(url, { method: 'GET', headers: o.headers, signal: controller.signal });
    // Reading the body stays under the same timeout: a server that stalls mid-body is a timeout too.
    const text = await res.text();
    return { status: res.status, text };
  } catch (e) {
    if (o.signal?.aborted) throw new AbortedError(`${o.operation}: aborted by the caller`, context, { cause: o.signal.reason });
    if (timedOut) throw new RestTimeoutError(`${o.operation}: no complete answer within ${o.timeoutMs} ms`, context, { cause: e });
    throw new RestTransportError(`${o.operation}: request failed: ${describe(e)}`, context, { cause: e });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  }
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED, socket closed) in cause.
  return cause instanceof Error ? `${e.message} (${cause.message})` : e.message;
}
