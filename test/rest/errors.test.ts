/** Error mapping of the REST client: server error bodies, malformed answers, transport, timeout, abort, drift. */
import { $ZodError } from 'zod/v4/core';
import { AbortedError, ResponseValidationError, RestApiError, RestTimeoutError, RestTransportError } from '../../src/errors';
import { LIBRARY_ERROR_CODES } from '../../src/errors/ErrorCode';
import { RestClient, type DriftEvent, type FetchLike } from '../../src/rest';
import { interpretResponse } from '../../src/rest/interpretResponse';
import { HttpStub } from '../helpers/HttpStub';
import { TS } from './fixtures';

let stub: HttpStub;
let rest: RestClient;
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  stub = await HttpStub.start();
  rest = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 0 } });
});
afterEach(() => stub.reset());
afterAll(async () => {
  await stub.close();
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

const BBO = { market_type: 'perp', market_id: 0 } as const;
const bboBody = (extra: Record<string, unknown> = {}) => ({ data: { bid: null, ask: { price_ticks: '5', size_base_lots: '1' } }, timestamp_ns: TS, sequence: '7', ...extra });

async function failure(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: Error) => e,
  );
}

describe('server error bodies', () => {
  test('{code: string, error: string} becomes RestApiError: code ERR_REST_API, the server code in serverCode, status and operation', async () => {
    stub.route('/v1/bbo', () => ({ status: 400, json: { code: 'INVALID_PARAMETER', error: "invalid parameter 'market_id': expected an integer" } }));
    const e = await failure(rest.bbo(BBO));
    expect(e).toBeInstanceOf(RestApiError);
    expect(e).toMatchObject({ code: 'ERR_REST_API', serverCode: 'INVALID_PARAMETER', status: 400, operation: 'bbo' });
    expect(e.message).toContain("invalid parameter 'market_id'");
  });

  test('{code: integer, message: string} becomes RestApiError exposing the integer code as serverCode', async () => {
    stub.route('/v1/bbo', () => ({ status: 404, json: { code: 40401, message: 'market not found' } }));
    const e = (await failure(rest.bbo(BBO))) as RestApiError;
    expect(e).toBeInstanceOf(RestApiError);
    expect(e.serverCode).toBe(40401);
    expect(e.code).toBe('ERR_REST_API');
    expect(e.status).toBe(404);
    expect(e.message).toContain('market not found');
  });

  test('a server code spelling a library code (ERR_ABORTED) stays the server\'s: never taken for a real abort', async () => {
    stub.route('/v1/bbo', () => ({ status: 400, json: { code: 'ERR_ABORTED', error: 'aborted by the caller' } }));
    const e = await failure(rest.bbo(BBO));
    expect(e).toBeInstanceOf(RestApiError);
    expect(e).not.toBeInstanceOf(AbortedError);
    expect(e).toMatchObject({ code: 'ERR_REST_API', serverCode: 'ERR_ABORTED', status: 400 });
  });

  test.each(LIBRARY_ERROR_CODES.map((c) => [c]))('an error body saying %s gives code ERR_REST_API, the body\'s code as serverCode', (libraryCode) => {
    // Only the string shape can spell a library code (the other one's code is an integer).
    for (const status of [400, 404, 429, 500, 503]) {
      const thrown = (() => {
        try {
          interpretResponse('bbo', { status, text: JSON.stringify({ code: libraryCode, error: 'x' }) }, {});
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(thrown).toBeInstanceOf(RestApiError);
      expect(thrown).toMatchObject({ code: 'ERR_REST_API', serverCode: libraryCode, status });
    }
  });

  test('an error body of unknown shape or not JSON is a ResponseValidationError carrying the status', async () => {
    stub.route('/v1/bbo', () => ({ status: 400, json: { oops: true } }));
    const a = await failure(rest.bbo(BBO));
    expect(a).toBeInstanceOf(ResponseValidationError);
    expect((a as ResponseValidationError).context.status).toBe(400);
    stub.route('/v1/bbo', () => ({ status: 502, text: '<html>Bad Gateway</html>' }));
    const b = await failure(rest.bbo(BBO));
    expect(b).toBeInstanceOf(ResponseValidationError);
    expect(b.cause).toBeInstanceOf(SyntaxError);
    expect((b as ResponseValidationError).context).toMatchObject({ status: 502, operation: 'bbo' });
  });
});

describe('malformed successful answers', () => {
  test('invalid JSON is a ResponseValidationError with the parse error as cause', async () => {
    stub.route('/v1/bbo', () => ({ text: '{"data": ' }));
    const e = await failure(rest.bbo(BBO));
    expect(e).toBeInstanceOf(ResponseValidationError);
    expect(e.cause).toBeInstanceOf(SyntaxError);
  });

  test('a wrong shape is a ResponseValidationError naming the path, with the schema error as cause', async () => {
    stub.route('/v1/bbo', () => ({ json: { data: { bid: null, ask: { price_ticks: 5, size_base_lots: '1' } }, timestamp_ns: TS, sequence: '7' } }));
    const e = await failure(rest.bbo(BBO));
    expect(e).toBeInstanceOf(ResponseValidationError);
    expect(e.cause).toBeInstanceOf($ZodError);
    expect(e.message).toContain('data.ask.price_ticks');
    stub.route('/v1/bbo', () => ({ json: { data: { bid: null, ask: null }, timestamp_ns: TS } }));
    await expect(rest.bbo(BBO)).rejects.toThrow(/sequence/);
    stub.route('/v1/bbo', () => ({ json: [1, 2] }));
    await expect(rest.bbo(BBO)).rejects.toBeInstanceOf(ResponseValidationError);
  });

  test('a u64 out of range in an answer is refused', async () => {
    stub.route('/v1/bbo', () => ({ json: bboBody({ sequence: '18446744073709551616' }) }));
    await expect(rest.bbo(BBO)).rejects.toBeInstanceOf(ResponseValidationError);
  });
});

describe('transport, timeout and abort', () => {
  test('a dropped connection is a RestTransportError with the cause', async () => {
    stub.route('/v1/bbo', () => ({ drop: true }));
    const e = await failure(rest.bbo(BBO));
    expect(e).toBeInstanceOf(RestTransportError);
    expect(e.cause).toBeDefined();
    expect((e as RestTransportError).context.operation).toBe('bbo');
  });

  test('a refused connection is a RestTransportError', async () => {
    const closed = await HttpStub.start();
    const url = closed.baseUrl;
    await closed.close();
    const r = new RestClient({ baseUrl: url, retry: { retries: 0 } });
    await expect(r.status()).rejects.toBeInstanceOf(RestTransportError);
  });

  test('no answer within timeoutMs is a RestTimeoutError (client default and per call)', async () => {
    stub.route('/v1/bbo', () => ({ hang: true }));
    const slow = new RestClient({ baseUrl: stub.baseUrl, timeoutMs: 50, retry: { retries: 0 } });
    await expect(slow.bbo(BBO)).rejects.toBeInstanceOf(RestTimeoutError);
    await expect(rest.bbo(BBO, { timeoutMs: 50 })).rejects.toMatchObject({ code: 'ERR_TIMEOUT', context: { operation: 'bbo' } });
  });

  test('the caller aborting an in-flight request rejects with AbortedError', async () => {
    stub.route('/v1/bbo', () => ({ hang: true }));
    const ac = new AbortController();
    const call = rest.bbo(BBO, { signal: ac.signal });
    await stub.waitForRequests(1);
    ac.abort(new Error('user cancelled'));
    const e = await failure(call);
    expect(e).toBeInstanceOf(AbortedError);
    expect(e.cause).toEqual(new Error('user cancelled'));
  });

  test('an already-aborted signal sends nothing', async () => {
    stub.route('/v1/bbo', () => ({ json: bboBody() }));
    const ac = new AbortController();
    ac.abort();
    await expect(rest.bbo(BBO, { signal: ac.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('drift', () => {
  test('unexpected keys are dropped and reported once per (operation, record path)', async () => {
    const seen: DriftEvent[] = [];
    const events: DriftEvent[] = [];
    const r = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 0 }, onDrift: (d) => seen.push(d) });
    r.events.on('drift', (d) => events.push(d));
    const level = (p: string) => ({ price_ticks: p, size_base_lots: '1', venue: 'x' });
    stub.route('/v1/orderBook', () => ({ json: { data: { bids: [level('2'), level('1')], asks: [level('3')] }, timestamp_ns: TS, sequence: '1', server: 'v2' } }));
    const params = { market_type: 'perp', market_id: 0, depth: 5 } as const;
    const first = await r.orderBook(params);
    const second = await r.orderBook(params);
    expect(first.data.bids).toEqual([{ price_ticks: '2', size_base_lots: '1' }, { price_ticks: '1', size_base_lots: '1' }]);
    expect(first).not.toHaveProperty('server');
    expect(second).toEqual(first);
    const byPath = Object.fromEntries(events.map((d) => [d.path, d.keys]));
    expect(byPath).toEqual({ '(root)': ['server'], 'data.bids[]': ['venue'], 'data.asks[]': ['venue'] });
    expect(events.every((d) => d.operation === 'orderBook')).toBe(true);
    expect(seen).toEqual(events);
  });

  test('strict mode rejects unexpected keys', async () => {
    const r = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 0 }, strict: true });
    const drifts: DriftEvent[] = [];
    r.events.on('drift', (d) => drifts.push(d));
    stub.route('/v1/bbo', () => ({ json: bboBody({ extra: 1 }) }));
    const e = await failure(r.bbo(BBO));
    expect(e).toBeInstanceOf(ResponseValidationError);
    expect((e.cause as $ZodError).issues[0]!.code).toBe('unrecognized_keys');
    expect(drifts).toEqual([]);
  });
});

describe('injectable fetch', () => {
  test('the given fetch is used with the URL, GET and headers', async () => {
    const calls: Array<{ url: string; headers: Record<string, string> }> = [];
    const fetch: FetchLike = async (url, init) => {
      calls.push({ url, headers: init.headers });
      return { status: 200, text: async () => JSON.stringify(bboBody()) };
    };
    const r = new RestClient({ baseUrl: 'http://exchange.invalid', fetch, headers: { 'x-api-key': 'k' } });
    await expect(r.bbo({ market_type: 'spot', market_id: 4 })).resolves.toMatchObject({ sequence: '7' });
    expect(calls).toEqual([{ url: 'http://exchange.invalid/v1/bbo?market_type=spot&market_id=4', headers: { accept: 'application/json', 'x-api-key': 'k' } }]);
  });

  test('a fetch that throws is a RestTransportError; one that throws non-errors too', async () => {
    const r1 = new RestClient({ baseUrl: 'http://x', retry: { retries: 0 }, fetch: async () => Promise.reject(new TypeError('fetch failed')) });
    await expect(r1.status()).rejects.toBeInstanceOf(RestTransportError);
    const r2 = new RestClient({ baseUrl: 'http://x', retry: { retries: 0 }, fetch: async () => Promise.reject('boom') });
    await expect(r2.status()).rejects.toThrow(/boom/);
  });
});
