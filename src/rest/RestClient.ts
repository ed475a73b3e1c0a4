/**
 * The typed REST client. Every operation of the operations table is a method of the same
 * name, built from the table (parameters, path, response schema); nothing is written per
 * operation. Parameters are checked before anything is sent; answers are validated with
 * the drift policy; transient failures are retried with the shared retry policy (honouring
 * `Retry-After`); only answers from the exchange's origin are taken (redirectPolicy.ts).
 */
import { EventEmitter } from 'eventemitter3';
import { encodeQuery, fillPath, OPERATION_NAMES, OPERATIONS, validateParams, type OperationName } from '../protocol';
import { InvalidParameterError } from '../errors';
import { asExchangeReplicaError } from '../errors/asExchangeReplicaError';
import { messageOf } from '../errors/messageOf';
import { positiveInteger } from '../util/positiveInteger';
import { DriftDeduper, type DriftEvent } from './DriftDeduper';
import { DEFAULT_MAX_REDIRECTS, fetchText, type FetchLike } from './fetchText';
import { interpretResponse } from './interpretResponse';
import type { OperationArgs, OperationMethods, OperationResponse, RequestOptions } from './operationTypes';
import type { BackoffOptions } from '../clock/Backoff';
import { systemClock, type Clock } from '../clock/Clock';
import { DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_RETRY_POLICY, resolveRetryPolicy, withRetry, type RetryPolicy } from './retryPolicy';

/** Options of {@link RestClient}. */
export interface RestClientOptions {
  /** Base URL of the REST API (scheme, host, port and an optional path prefix), e.g. `http://127.0.0.1:8080`. Required. */
  readonly baseUrl: string | URL;
  /** Timeout of each attempt (request and whole body), in milliseconds. @default 10000 */
  readonly timeoutMs?: number;
  /**
   * Retry policy, in the library's one backoff shape; fields left out keep their defaults.
   * @default { retries: 3, initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5 }
   */
  readonly retry?: BackoffOptions;
  /** The `fetch` implementation. @default globalThis.fetch */
  readonly fetch?: FetchLike;
  /** Reject answers carrying keys the protocol does not list, instead of dropping them. @default false */
  readonly strict?: boolean;
  /** Called once per (operation, record path, key) when unexpected keys were dropped. @default undefined */
  readonly onDrift?: (event: DriftEvent) => void;
  /** Extra request headers (e.g. credentials of a deployment that needs them). @default {} */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Largest answer body accepted, in bytes (after content decoding). The body is read as a
   * stream and the request aborted as soon as it passes the limit (at once when its
   * Content-Length does): the call rejects with `ResponseTooLargeError`
   * (`ERR_RESPONSE_TOO_LARGE`), not retried. Documented answers are far smaller (a 500-level
   * book is under 100 KB, lists are paged by 100, the unpaged market lists hold one record
   * per market); the default still fits a 900k-level book (about 40 MB of JSON), while one
   * call never buffers more than this much body.
   * @default 67108864 (64 MiB)
   */
  readonly maxResponseBytes?: number;
  /**
   * Same-origin redirects (301, 302, 303, 307, 308 to the scheme, host and port of
   * `baseUrl`) followed in one attempt, with the same headers; one more is refused
   * (`ERR_REDIRECT_REFUSED`), 0 refuses every redirect. A redirect to another origin is
   * always refused before anything is sent there: the `headers` (credentials) never leave
   * the exchange's origin, and another host's answer is never taken for the exchange's. Not
   * retried.
   * @default 5
   */
  readonly maxRedirects?: number;
  /**
   * Longest wait honoured when a 429 or 503 says how long to wait (`Retry-After`, in
   * delta-seconds or an HTTP-date), in ms. Within it the retry waits what the server asked
   * (or the backoff delay when longer), still counted in `retry.retries`; asked for more, the
   * call gives up at once with that answer's error (its `context.retryAfterMs` is what was
   * asked). A 429 is retried (with the backoff delay when it gives no `Retry-After`).
   * @default 60000
   */
  readonly maxRetryAfterMs?: number;
  /** Time source of the request timeouts and of the retry delays (and the wall time an HTTP-date `Retry-After` is read against). @default systemClock */
  readonly clock?: Clock;
  /** Source of the retry jitter, uniform in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/** Options after defaults were applied. */
export interface ResolvedRestClientOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly fetch: FetchLike;
  readonly strict: boolean;
  readonly onDrift: ((event: DriftEvent) => void) | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly maxResponseBytes: number;
  readonly maxRedirects: number;
  readonly maxRetryAfterMs: number;
  readonly clock: Clock;
  readonly random: () => number;
}

/** Default of {@link RestClientOptions.maxResponseBytes}: 64 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** A retry is about to happen. */
export interface RetryEvent {
  readonly operation: string;
  /** The attempt that failed (1 = the first). */
  readonly attempt: number;
  readonly retriesLeft: number;
  readonly error: Error;
  /** The wait before the retry, in ms: the backoff delay, or the server's `Retry-After` when longer. */
  readonly delayMs: number;
}

/** Events of {@link RestClient.events}. */
export interface RestClientEvents {
  /** Unexpected keys were dropped from an answer (once per operation, path and key). */
  drift: [event: DriftEvent];
  /** A failed attempt is being retried. */
  retry: [event: RetryEvent];
}

function checkTimeout(v: unknown, param: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new InvalidParameterError(`invalid '${param}': expected a positive number of milliseconds, got ${String(v)}`, { param });
  }
  return v;
}

function checkNonNegative(v: unknown, param: string, integer: boolean): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (integer && !Number.isSafeInteger(v))) {
    throw new InvalidParameterError(`invalid '${param}': expected ${integer ? 'an integer' : 'a finite number'} >= 0, got ${String(v)}`, { param });
  }
  return v;
}

/** Applies the defaults of {@link RestClientOptions} (the one place they live). */
export function resolveRestClientOptions(o: RestClientOptions): ResolvedRestClientOptions {
  let url: URL;
  try {
    url = new URL(String(o?.baseUrl));
  } catch {
    throw new InvalidParameterError(`invalid 'baseUrl': expected an absolute http(s) URL, got ${JSON.stringify(o?.baseUrl)}`, { param: 'baseUrl' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidParameterError(`invalid 'baseUrl': expected an http(s) URL, got ${url.protocol}`, { param: 'baseUrl' });
  }
  return {
    baseUrl: url.href.replace(/\/+$/, ''),
    timeoutMs: checkTimeout(o.timeoutMs ?? 10_000, 'timeoutMs'),
    retry: resolveRetryPolicy(o.retry ?? {}, DEFAULT_RETRY_POLICY),
    // Resolved per call so a fetch installed later (or replaced in tests) is used.
    fetch: o.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    strict: o.strict ?? false,
    onDrift: o.onDrift,
    headers: { accept: 'application/json', ...(o.headers ?? {}) },
    maxResponseBytes: positiveInteger(o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, 'maxResponseBytes'),
    maxRedirects: checkNonNegative(o.maxRedirects ?? DEFAULT_MAX_REDIRECTS, 'maxRedirects', true),
    maxRetryAfterMs: checkNonNegative(o.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS, 'maxRetryAfterMs', false),
    clock: o.clock ?? systemClock,
    random: o.random ?? Math.random,
  };
}

/**
 * Typed client of the exchange's REST API.
 *
 * @example
 * const rest = new RestClient({ baseUrl: 'http://127.0.0.1:8080' });
 * const { data, sequence } = await rest.orderBook({ market_type: 'perp', market_id: 0, depth: 10 });
 * const tx = await rest.transaction({ hash });              // unversioned: the bare record
 * rest.events.on('retry', (e) => log(e.operation, e.error.message));
 *
 * Every method rejects (never throws synchronously) with an `ExchangeReplicaError`:
 * `InvalidParameterError` (nothing sent), `RestApiError` (`code` `ERR_REST_API`; the server's
 * code as `serverCode`, and the status), `ResponseValidationError`, `ResponseTooLargeError`,
 * `ERR_REDIRECT_REFUSED` (a redirect to another origin, or past `maxRedirects`),
 * `RestTransportError`, `RestTimeoutError` or `AbortedError`.
 */
export class RestClient {
  readonly options: ResolvedRestClientOptions;
  /** `drift` and `retry` events. */
  readonly events = new EventEmitter<RestClientEvents>();
  readonly #drift = new DriftDeduper();

  /** @throws InvalidParameterError when an option is invalid (e.g. no `baseUrl`). */
  constructor(options: RestClientOptions) {
    this.options = resolveRestClientOptions(options);
  }

  /**
   * Calls any operation by name, its parameters and answer typed by the name (each typed
   * method is this with the name fixed).
   * @example await rest.request('trades', { market_type: 'spot', market_id: 1, limit: 50 })
   */
  request<N extends OperationName>(name: N, ...[params, opts]: OperationArgs<N>): Promise<OperationResponse<N>> {
    return this.call(name, params, opts);
  }

  /**
   * Calls an operation named at run time (a command line, a replica's snapshot load): the
   * parameters are checked against the operations table before anything is sent, exactly as
   * for `request`; the answer is typed as the union of the answers of the operations `name`
   * may be (e.g. every snapshot envelope, with its `sequence`, for a `SnapshotOperationName`).
   * @example const page = await rest.call(CHANNELS.bbo.snapshot, { market_type: 'perp', market_id: 0 }, { signal });
   */
  async call<N extends OperationName>(name: N, params?: Readonly<Record<string, unknown>>, opts: RequestOptions = {}): Promise<OperationResponse<N>> {
    if (!Object.hasOwn(OPERATIONS, name)) {
      throw new InvalidParameterError(`unknown operation ${JSON.stringify(name)}: accepted operations are ${OPERATION_NAMES.join(', ')}`, { param: 'operation' });
    }
    const op = OPERATIONS[name];
    const checked = validateParams(op.params, op.rules, params);
    if (!checked.ok) throw new InvalidParameterError(`${name}: ${checked.issue.message}`, { operation: name, param: checked.issue.param });
    const timeoutMs = opts.timeoutMs === undefined ? this.options.timeoutMs : checkTimeout(opts.timeoutMs, 'timeoutMs');
    const policy = opts.retry ? resolveRetryPolicy(opts.retry, this.options.retry) : this.options.retry;
    const url = this.options.baseUrl + fillPath(op.path, checked.value) + encodeQuery(op.params, checked.value);
    const validate = { strict: this.options.strict, onDrift: (r: { path: string; keys: readonly string[] }) => this.#reportDrift(name, r) };
    const attempt = async () => {
      const answer = await fetchText(url, {
        fetch: this.options.fetch,
        timeoutMs,
        headers: { ...this.options.headers },
        operation: name,
        signal: opts.signal,
        maxResponseBytes: this.options.maxResponseBytes,
        maxRedirects: this.options.maxRedirects,
        clock: this.options.clock,
      });
      try {
        return interpretResponse(name, answer, validate) as OperationResponse<N>;
      } catch (e) {
        // A decoder's own failure (a bug, not the answer's) still reaches the caller as the library's error.
        throw asExchangeReplicaError(e, `${name}: ${messageOf(e)}`, { operation: name });
      }
    };
    return withRetry(attempt, policy, opts.signal, {
      context: { operation: name },
      clock: this.options.clock,
      random: this.options.random,
      maxRetryAfterMs: this.options.maxRetryAfterMs,
      onRetry: (info) => this.events.emit('retry', { operation: name, ...info }),
    });
  }

  #reportDrift(operation: string, report: { path: string; keys: readonly string[] }): void {
    const event = this.#drift.filter(operation, report);
    if (!event) return;
    this.options.onDrift?.(event);
    this.events.emit('drift', event);
  }
}

// The typed methods: one per row of the operations table, all delegating to `call`.
export interface RestClient extends OperationMethods {}

type ReservedMember = 'request' | 'call' | 'events' | 'options';
// Compile-time guard: an operation may never shadow a member of the client.
const noClash: [Extract<OperationName, ReservedMember>] extends [never] ? true : never = true;
void noClash;

for (const name of OPERATION_NAMES) {
  Object.defineProperty(RestClient.prototype, name, {
    configurable: true,
    writable: true,
    value: function (this: RestClient, params?: Readonly<Record<string, unknown>>, opts?: RequestOptions) {
      return this.call(name, params, opts);
    },
  });
}
