/**
 * Retry-After on 429 and 503: the retry waits what the server asked (delta-seconds or an
 * HTTP-date), never longer than `maxRetryAfterMs`, and stays bounded by `retry.retries`.
 * Time is the subject: the client runs on a manual clock (the answers still cross real
 * sockets).
 */
import { InvalidParameterError, RestApiError, ResponseValidationError } from '../../src/errors';
import { parseRetryAfter } from '../../src/rest/retryAfter';
import { RestClient, type RetryEvent } from '../../src/rest';
import { HttpStub, type StubReply } from '../helpers/HttpStub';
import { ManualClock } from '../helpers/ManualClock';
import { TS } from './fixtures';

let stub: HttpStub;
beforeAll(async () => {
  stub = await HttpStub.start();
});
afterEach(() => stub.reset());
afterAll(() => stub.close());

const STATUS_OK: StubReply = { json: { data: { status: 'ok', feed: true, rollup_height: '1', timestamp_ns: TS }, timestamp_ns: TS } };
const limited = (retryAfter: string, status = 429): StubReply => ({ status, json: { code: 'RATE_LIMITED', error: 'slow down' }, headers: { 'retry-after': retryAfter } });

interface Harness {
  readonly clock: ManualClock;
  readonly rest: RestClient;
  readonly retries: RetryEvent[];
  /** Clock time (ms) of each request the stub received. */
  readonly at: number[];
}

function harness(options: { maxRetryAfterMs?: number; retries?: number; initialDelayMs?: number } = {}): Harness {
  const clock = new ManualClock();
  const initialDelayMs = options.initialDelayMs ?? 1;
  const rest = new RestClient({
    baseUrl: stub.baseUrl,
    clock,
    random: () => 0,
    retry: { retries: options.retries ?? 3, initialDelayMs, maxDelayMs: Math.max(initialDelayMs, 5), jitter: 0 },
    ...(options.maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs: options.maxRetryAfterMs }),
  });
  const retries: RetryEvent[] = [];
  rest.events.on('retry', (e) => retries.push(e));
  const at: number[] = [];
  return { clock, rest, retries, at };
}

/** Scripts `/v1/status` and stamps each request with the manual clock's time. */
function script(h: Harness, replies: readonly StubReply[]): void {
  let i = 0;
  stub.route('/v1/status', () => {
    h.at.push(h.clock.nowMs());
    return replies[Math.min(i++, replies.length - 1)]!;
  });
}

/** The call's outcome, settled or not: the first retry (or the call's end, whichever comes first). */
async function firstRetryOrEnd(h: Harness, call: Promise<unknown>): Promise<void> {
  await Promise.race([new Promise((resolve) => h.rest.events.once('retry', resolve)), call.then(() => undefined, () => undefined)]);
}

describe('Retry-After', () => {
  test('a 429 with Retry-After: 30 is retried after 30 s, not earlier', async () => {
    const h = harness();
    script(h, [limited('30'), STATUS_OK]);
    const call = h.rest.status();
    await firstRetryOrEnd(h, call);
    expect(h.retries.map((r) => r.delayMs)).toEqual([30_000]);
    await h.clock.advance(29_999);
    expect(h.at).toEqual([0]);
    await h.clock.advance(1);
    await expect(call).resolves.toMatchObject({ data: { status: 'ok' } });
    expect(h.at).toEqual([0, 30_000]);
  });

  test('a 503 with an HTTP-date is retried at that date (read on the clock\'s wall time)', async () => {
    const h = harness();
    const wallMs = Number(h.clock.nowNs() / 1_000_000n);
    script(h, [limited(new Date(wallMs + 7_000).toUTCString(), 503), STATUS_OK]);
    const call = h.rest.status();
    await firstRetryOrEnd(h, call);
    await h.clock.advance(6_999);
    expect(h.at).toEqual([0]);
    await h.clock.advance(1);
    await expect(call).resolves.toMatchObject({ data: { status: 'ok' } });
    expect(h.at).toEqual([0, 7_000]);
  });

  test('a 503 whose body is not JSON honours Retry-After too', async () => {
    const h = harness();
    script(h, [{ status: 503, text: 'Service Unavailable', headers: { 'retry-after': '2' } }, STATUS_OK]);
    const call = h.rest.status();
    await firstRetryOrEnd(h, call);
    expect(h.retries[0]!.error).toBeInstanceOf(ResponseValidationError);
    await h.clock.advance(2_000);
    await expect(call).resolves.toMatchObject({ data: { status: 'ok' } });
    expect(h.at).toEqual([0, 2_000]);
  });

  test('a Retry-After shorter than the backoff delay does not shorten it', async () => {
    const h = harness({ initialDelayMs: 500 });
    script(h, [limited('0', 503), STATUS_OK]);
    const call = h.rest.status();
    await firstRetryOrEnd(h, call);
    await h.clock.advance(500);
    await expect(call).resolves.toMatchObject({ data: { status: 'ok' } });
    expect(h.at).toEqual([0, 500]);
  });

  test('above maxRetryAfterMs the call gives up at once with the server\'s error, carrying the wait asked', async () => {
    const h = harness({ maxRetryAfterMs: 60_000 });
    script(h, [limited('3600'), STATUS_OK]);
    const e = await h.rest.status().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(RestApiError);
    expect(e).toMatchObject({ code: 'ERR_REST_API', serverCode: 'RATE_LIMITED', status: 429, context: { retryAfterMs: 3_600_000 } });
    expect(h.at).toEqual([0]);
    expect(h.retries).toEqual([]);
    expect(h.clock.pendingTimers).toBe(0);
  });

  test('retries stay bounded by retry.retries: the last 429 is the result', async () => {
    const h = harness({ retries: 2 });
    script(h, [limited('1')]);
    const call = h.rest.status().catch((err: unknown) => err);
    await firstRetryOrEnd(h, call);
    await h.clock.advance(1_000);
    await h.clock.advance(1_000);
    const e = await call;
    expect(e).toMatchObject({ code: 'ERR_REST_API', status: 429, context: { retryAfterMs: 1_000 } });
    expect(h.at).toEqual([0, 1_000, 2_000]);
  });

  test('a 429 without Retry-After is retried with the backoff delay', async () => {
    const h = harness({ initialDelayMs: 40 });
    script(h, [{ status: 429, json: { code: 'RATE_LIMITED', error: 'slow down' } }, STATUS_OK]);
    const call = h.rest.status();
    await firstRetryOrEnd(h, call);
    await h.clock.advance(40);
    await expect(call).resolves.toMatchObject({ data: { status: 'ok' } });
    expect(h.at).toEqual([0, 40]);
  });

  test('Retry-After on another status (a 400) is not a reason to retry', async () => {
    const h = harness();
    script(h, [{ status: 400, json: { code: 'INVALID_PARAMETER', error: 'no' }, headers: { 'retry-after': '1' } }, STATUS_OK]);
    const e = await h.rest.status().catch((err: unknown) => err);
    expect(e).toMatchObject({ status: 400, serverCode: 'INVALID_PARAMETER' });
    expect((e as RestApiError).context.retryAfterMs).toBeUndefined();
    expect(h.at).toEqual([0]);
  });

  test('maxRetryAfterMs is checked and defaults to 60 s', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5']) {
      expect(() => new RestClient({ baseUrl: stub.baseUrl, maxRetryAfterMs: bad as number })).toThrow(InvalidParameterError);
    }
    expect(new RestClient({ baseUrl: stub.baseUrl }).options.maxRetryAfterMs).toBe(60_000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  test.each([
    ['30', 30_000],
    [' 5 ', 5_000],
    ['0', 0],
    [new Date(now + 90_000).toUTCString(), 90_000],
    ['Thu, 01 Jan 2026 12:00:10 GMT', 10_000],
    [new Date(now - 5_000).toUTCString(), 0],
  ])('%j -> %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  test.each([null, undefined, '', 'soon', '-1', '1.5', '0x10', '1e3'])('%j is no wait', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
