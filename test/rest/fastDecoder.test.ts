/**
 * The REST client's per-operation fast decoder (the `orderBook` snapshot): answers, errors and
 * drift reports are those of the schema path, strict or not; single-attempt calls make exactly one attempt.
 */
import { AbortedError, ResponseValidationError, RestApiError, RestTransportError } from '../../src/errors';
import { RestClient, withRetry, type DriftEvent } from '../../src/rest';
import { DriftDeduper } from '../../src/rest/DriftDeduper';
import { interpretResponse } from '../../src/rest/interpretResponse';
import { HttpStub } from '../helpers/HttpStub';
import { TS } from './fixtures';

let stub: HttpStub;

beforeAll(async () => {
  stub = await HttpStub.start();
});
afterEach(() => stub.reset());
afterAll(async () => {
  await stub.close();
});

const PARAMS = { market_type: 'perp', market_id: 0, depth: 500 } as const;
const lv = (p: number, s = '3') => `{"price_ticks":"${p}","size_base_lots":"${s}"}`;
const book = (bids: string[], asks: string[]) => `{"bids":[${bids.join(',')}],"asks":[${asks.join(',')}]}`;
const BODIES: [name: string, status: number, text: string][] = [
  ['compact, sequence first (the simulator)', 200, `{"data":${book([lv(10), lv(9)], [lv(11)])},"sequence":"42","timestamp_ns":"${TS}"}`],
  ['compact, timestamp first', 200, `{"data":${book([], [lv(11, '18446744073709551615')])},"timestamp_ns":"${TS}","sequence":"42"}`],
  ['empty book', 200, `{"data":${book([], [])},"sequence":"0","timestamp_ns":"${TS}"}`],
  ['extra key in a level', 200, `{"data":${book([lv(10), '{"price_ticks":"9","size_base_lots":"1","orders":"2"}'], [])},"sequence":"42","timestamp_ns":"${TS}"}`],
  ['extra key in data', 200, `{"data":{"bids":[],"asks":[],"mid":"1"},"sequence":"42","timestamp_ns":"${TS}"}`],
  ['extra key in the envelope', 200, `{"data":${book([], [])},"sequence":"42","timestamp_ns":"${TS}","next_cursor":null}`],
  ['whitespace', 200, `{ "data":${book([lv(10)], [])},"sequence":"42","timestamp_ns":"${TS}"}`],
  ['value above 2^64 - 1', 200, `{"data":${book([lv(10, '18446744073709551616')], [])},"sequence":"42","timestamp_ns":"${TS}"}`],
  ['number instead of a string', 200, `{"data":{"bids":[{"price_ticks":10,"size_base_lots":"1"}],"asks":[]},"sequence":"42","timestamp_ns":"${TS}"}`],
  ['missing sequence', 200, `{"data":${book([], [])},"timestamp_ns":"${TS}"}`],
  ['truncated', 200, `{"data":${book([lv(10)], [])},"sequence":"42","timestamp_ns":"${TS}`],
  ['a valid book on a 404', 404, `{"data":${book([], [])},"sequence":"42","timestamp_ns":"${TS}"}`],
  ['an error body', 400, '{"code":"INVALID_PARAMETER","error":"bad depth"}'],
];

type Outcome = { value?: unknown; error?: { name: string; message: string; code: string }; drift: DriftEvent[] };

async function viaClient(strict: boolean, status: number, text: string): Promise<Outcome> {
  stub.route('/v1/orderBook', () => ({ status, text }));
  const drift: DriftEvent[] = [];
  const rest = new RestClient({ baseUrl: stub.baseUrl, strict, retry: { retries: 0 }, onDrift: (d) => drift.push(d) });
  try {
    return { value: await rest.orderBook(PARAMS), drift };
  } catch (e) {
    const err = e as Error & { code: string };
    return { error: { name: err.constructor.name, message: err.message, code: err.code }, drift };
  }
}

/** The schema path alone (no fast decoder), drift reports through the client's de-duplication. */
function viaSchemas(strict: boolean, status: number, text: string): Outcome {
  const drift: DriftEvent[] = [];
  const dedup = new DriftDeduper();
  const onDrift = (r: { path: string; keys: readonly string[] }) => {
    const e = dedup.filter('orderBook', r);
    if (e) drift.push(e);
  };
  try {
    const value = interpretResponse('orderBook', { status, text }, { strict, onDrift }, null);
    return { value, drift };
  } catch (e) {
    const err = e as Error & { code: string };
    return { error: { name: err.constructor.name, message: err.message, code: err.code }, drift };
  }
}

describe('orderBook fast decoder in the REST client', () => {
  test.each(BODIES)('%s: same value, error and drift as the schema path, strict or not', async (_name, status, text) => {
    for (const strict of [false, true]) {
      const got = await viaClient(strict, status, text);
      const want = viaSchemas(strict, status, text);
      expect(got).toEqual(want);
    }
  });

  test('the valid compact answers decode to the values JSON.parse gives', async () => {
    for (const [, status, text] of BODIES.slice(0, 3)) {
      expect((await viaClient(true, status, text)).value).toEqual(JSON.parse(text));
    }
  });

  test('drift of an extra key is reported once per key, as before', async () => {
    const got = await viaClient(false, 200, BODIES[4]![2]);
    expect(got.drift).toEqual([{ operation: 'orderBook', path: 'data', keys: ['mid'] }]);
    expect((await viaClient(true, 200, BODIES[4]![2])).error).toMatchObject({ name: 'ResponseValidationError' });
  });

  test('interpretResponse uses the given decoder on 2xx only, and falls back when it declines', () => {
    const sentinel = { taken: true };
    const body = `{"data":${book([], [])},"sequence":"1","timestamp_ns":"${TS}"}`;
    expect(interpretResponse('orderBook', { status: 200, text: body }, {}, () => sentinel)).toBe(sentinel);
    expect(interpretResponse('orderBook', { status: 200, text: body }, {}, () => undefined)).toEqual(JSON.parse(body));
    expect(() => interpretResponse('orderBook', { status: 500, text: '{"code":"INTERNAL_ERROR","error":"x"}' }, {}, () => sentinel)).toThrow(RestApiError);
    expect(() => interpretResponse('orderBook', { status: 200, text: 'nope' }, {}, () => undefined)).toThrow(ResponseValidationError);
  });
});

describe('withRetry with retries: 0 (one attempt)', () => {
  test('one attempt; its failure as is, a non-Error as a TypeError', async () => {
    let calls = 0;
    const boom = new RestTransportError('down', { operation: 'x' });
    await expect(
      withRetry(async (attempt) => {
        calls++;
        expect(attempt).toBe(1);
        throw boom;
      }, { retries: 0 }),
    ).rejects.toBe(boom);
    expect(calls).toBe(1);
    await expect(withRetry(() => Promise.reject('str'), { retries: 0 })).rejects.toBeInstanceOf(TypeError);
    await expect(withRetry(async () => 5, { retries: 0 })).resolves.toBe(5);
  });

  test('an abort during the attempt wins', async () => {
    const c = new AbortController();
    const p = withRetry(async () => {
      c.abort();
      return 1;
    }, { retries: 0 }, c.signal);
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    const c2 = new AbortController();
    c2.abort();
    await expect(withRetry(async () => 1, { retries: 0 }, c2.signal)).rejects.toBeInstanceOf(AbortedError);
  });
});
