/** The shared retry policy: what is retried, how often, with which delays, and how it stops. */
import { AbortedError, InvalidParameterError, ResponseValidationError, RestApiError, RestTransportError } from '../../src/errors';
import { isRateLimitedError, isRetryableError, resolveRetryPolicy, RestClient, withRetry, type RetryEvent } from '../../src/rest';
import { HttpStub, type StubReply } from '../helpers/HttpStub';
import { ManualClock } from '../helpers/ManualClock';
import { TS } from './fixtures';

let stub: HttpStub;
let rest: RestClient;
let retries: RetryEvent[];

beforeAll(async () => {
  stub = await HttpStub.start();
});
beforeEach(() => {
  rest = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 3, initialDelayMs: 1, maxDelayMs: 5 } });
  retries = [];
  rest.events.on('retry', (e) => retries.push(e));
});
afterEach(() => stub.reset());
afterAll(() => stub.close());

const STATUS_OK: StubReply = { json: { data: { status: 'ok', feed: true, rollup_height: '1', timestamp_ns: TS }, timestamp_ns: TS } };
const E500: StubReply = { status: 500, json: { code: 'INTERNAL_ERROR', error: 'internal error' } };

describe('RestClient retries', () => {
  test('a 500 then a 200 succeeds, with one retry event', async () => {
    stub.script('/v1/status', [E500, STATUS_OK]);
    await expect(rest.status()).resolves.toMatchObject({ data: { status: 'ok' } });
    expect(stub.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ operation: 'status', attempt: 1, retriesLeft: 2 });
    expect(retries[0]!.error).toBeInstanceOf(RestApiError);
  });

  test.each([
    [400, { code: 'INVALID_PARAMETER', error: "invalid parameter 'q'" }],
    [404, { code: 'NOT_FOUND', error: 'unknown transaction' }],
    [404, { code: 404, message: 'not found' }],
  ])('HTTP %i %j is never retried', async (status, json) => {
    stub.script('/v1/status', [{ status, json }, STATUS_OK]);
    await expect(rest.status()).rejects.toMatchObject({ status });
    expect(stub.requests).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  test('a malformed 200 is never retried', async () => {
    stub.script('/v1/status', [{ json: { data: {}, timestamp_ns: TS } }, STATUS_OK]);
    await expect(rest.status()).rejects.toBeInstanceOf(ResponseValidationError);
    expect(stub.requests).toHaveLength(1);
  });

  test('the retry count is bounded: the last RestApiError is the result', async () => {
    stub.route('/v1/status', () => E500);
    const r = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 2, initialDelayMs: 1, maxDelayMs: 2 } });
    const seen: RetryEvent[] = [];
    r.events.on('retry', (e) => seen.push(e));
    const e = await r.status().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(RestApiError);
    expect(e).toMatchObject({ status: 500, code: 'ERR_REST_API', serverCode: 'INTERNAL_ERROR' });
    expect(stub.requests).toHaveLength(3);
    expect(seen.map((s) => [s.attempt, s.retriesLeft])).toEqual([[1, 1], [2, 0]]);
  });

  test('network failures, timeouts and 5xx without a JSON body are retried', async () => {
    stub.script('/v1/status', [{ drop: true }, { hang: true }, { status: 503, text: 'Service Unavailable' }, STATUS_OK]);
    // The hang costs timeoutMs; the drop before it must fail within it too, also on a loaded machine.
    await expect(rest.status(undefined, { timeoutMs: 2000 })).resolves.toMatchObject({ data: { status: 'ok' } });
    expect(stub.requests).toHaveLength(4);
    expect(retries.map((r) => r.error.constructor.name)).toEqual(['RestTransportError', 'RestTimeoutError', 'ResponseValidationError']);
  });

  test('a per-call policy overrides the client policy', async () => {
    stub.script('/v1/status', [E500, STATUS_OK]);
    await expect(rest.status(undefined, { retry: { retries: 0 } })).rejects.toBeInstanceOf(RestApiError);
    expect(stub.requests).toHaveLength(1);
  });

  test('aborting during a backoff delay rejects at once with AbortedError', async () => {
    stub.route('/v1/status', () => E500);
    const slow = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 5, initialDelayMs: 60_000, maxDelayMs: 60_000 } });
    const ac = new AbortController();
    slow.events.on('retry', () => ac.abort());
    await expect(slow.status(undefined, { signal: ac.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('withRetry', () => {
  test('retries only retryable failures and reports each retry', async () => {
    const infos: number[] = [];
    let n = 0;
    const out = await withRetry(
      async () => {
        n++;
        if (n < 3) throw new RestTransportError('down', {});
        return 'ok';
      },
      { initialDelayMs: 0, maxDelayMs: 0 },
      undefined,
      { onRetry: (i) => infos.push(i.attempt) },
    );
    expect(out).toBe('ok');
    expect(infos).toEqual([1, 2]);

    const plain = new Error('not ours');
    let calls = 0;
    await expect(withRetry(async () => { calls++; throw plain; }, { initialDelayMs: 0 })).rejects.toBe(plain);
    expect(calls).toBe(1);
  });

  test('a custom shouldRetry decides', async () => {
    let calls = 0;
    await expect(
      withRetry(async () => { calls++; throw new Error('flaky'); }, { retries: 2, initialDelayMs: 0, maxDelayMs: 0 }, undefined, { shouldRetry: () => true }),
    ).rejects.toThrow('flaky');
    expect(calls).toBe(3);
  });

  test('an aborted signal rejects before the first attempt', async () => {
    const ac = new AbortController();
    ac.abort();
    let calls = 0;
    await expect(withRetry(async () => ++calls, {}, ac.signal, { context: { operation: 'orderBook' } })).rejects.toMatchObject({ code: 'ERR_ABORTED', context: { operation: 'orderBook' } });
    expect(calls).toBe(0);
  });

  test('isRetryableError: 5xx, INTERNAL_ERROR, transport and timeout only', () => {
    const ctx = (status: number) => ({ operation: 'x', status });
    expect(isRetryableError(new RestApiError('INTERNAL_ERROR', 'm', ctx(500)))).toBe(true);
    expect(isRetryableError(new RestApiError(1, 'm', ctx(502)))).toBe(true);
    expect(isRetryableError(new RestApiError('INTERNAL_ERROR', 'm', ctx(200)))).toBe(true);
    expect(isRetryableError(new RestApiError('INVALID_PARAMETER', 'm', ctx(400)))).toBe(false);
    expect(isRetryableError(new RestApiError('NOT_FOUND', 'm', ctx(404)))).toBe(false);
    expect(isRetryableError(new ResponseValidationError('m', ctx(200)))).toBe(false);
    expect(isRetryableError(new ResponseValidationError('m', ctx(504)))).toBe(true);
    expect(isRetryableError(new InvalidParameterError('m', { param: 'p' }))).toBe(false);
    expect(isRetryableError(new AbortedError('m'))).toBe(false);
    expect(isRetryableError(new Error('m'))).toBe(false);
  });

  test('a 429 is not isRetryableError (the snapshot loader does not honour Retry-After) but isRateLimitedError, which withRetry retries', () => {
    const limited = new RestApiError('RATE_LIMITED', 'm', { operation: 'x', status: 429 });
    expect(isRetryableError(limited)).toBe(false);
    expect(isRateLimitedError(limited)).toBe(true);
    expect(isRateLimitedError(new ResponseValidationError('m', { status: 429 }))).toBe(true);
    expect(isRateLimitedError(new RestApiError('NOT_FOUND', 'm', { operation: 'x', status: 404 }))).toBe(false);
  });

  test('a policy is checked and completed with the defaults', () => {
    expect(resolveRetryPolicy({ retries: 1 })).toEqual({ retries: 1, initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5 });
    expect(() => resolveRetryPolicy({ retries: 1.5 })).toThrow(InvalidParameterError);
    expect(() => resolveRetryPolicy({ factor: 0.5 })).toThrow(/factor/);
    expect(() => resolveRetryPolicy({ initialDelayMs: 10, maxDelayMs: 5 })).toThrow(/maxDelayMs/);
    expect(() => resolveRetryPolicy({ maxDelayMs: Number.NaN })).toThrow(/maxDelayMs/);
    expect(() => resolveRetryPolicy({ jitter: 1.5 })).toThrow(expect.objectContaining({ param: 'retry.jitter' }));
    expect(() => new RestClient({ baseUrl: 'http://x', retry: { retries: -1 } })).toThrow(expect.objectContaining({ param: 'retry.retries' }));
  });
});

describe('backoff schedule (time is the subject: a manual clock)', () => {
  async function gaps(policy: Parameters<typeof withRetry>[1], attempts: number, random?: () => number): Promise<number[]> {
    const clock = new ManualClock();
    const at: number[] = [];
    const run = withRetry(async () => {
      at.push(clock.nowMs());
      throw new RestTransportError('down', {});
    }, policy, undefined, { clock, random }).catch(() => undefined);
    await clock.advance(60_000);
    await run;
    expect(at).toHaveLength(attempts);
    expect(clock.pendingTimers).toBe(0);
    return at.slice(1).map((t, i) => t - at[i]!);
  }

  test('exponential, capped at maxDelayMs, without jitter', async () => {
    expect(await gaps({ retries: 4, initialDelayMs: 100, factor: 2, maxDelayMs: 300, jitter: 0 }, 5)).toEqual([100, 200, 300, 300]);
  });

  test('with jitter each delay lies in [base * (1 - jitter), base] (base capped at maxDelayMs)', async () => {
    const draws = [0, 0.5, 0.999];
    let i = 0;
    const g = await gaps({ retries: 3, initialDelayMs: 100, factor: 2, maxDelayMs: 350 }, 4, () => draws[i++]!);
    expect(g).toEqual([100, 150, 175]);
    const r = await gaps({ retries: 3, initialDelayMs: 100, factor: 2, maxDelayMs: 350 }, 4);
    const base = [100, 200, 350];
    r.forEach((d, k) => {
      expect(d).toBeGreaterThanOrEqual(base[k]! / 2);
      expect(d).toBeLessThanOrEqual(base[k]!);
    });
  });

  test('an abort during a backoff delay rejects at once with AbortedError, leaving no timer', async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    let calls = 0;
    const run = withRetry(async () => {
      calls++;
      throw new RestTransportError('down', {});
    }, { initialDelayMs: 1_000 }, ac.signal, { clock, context: { operation: 'bbo' } });
    const settled = expect(run).rejects.toMatchObject({ code: 'ERR_ABORTED', context: { operation: 'bbo' } });
    await clock.advance(10);
    ac.abort();
    await settled;
    expect(calls).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });
});
