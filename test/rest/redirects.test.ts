/**
 * Redirects: an answer is the exchange's only when it comes from the exchange's origin, and
 * the caller's headers (credentials) never leave that origin. Two stubs on 127.0.0.1 and
 * different ports are two origins.
 */
import { ExchangeReplicaError, InvalidParameterError } from '../../src/errors';
import { RestClient, type FetchLike } from '../../src/rest';
import { HttpStub, type StubReply } from '../helpers/HttpStub';
import { TS } from './fixtures';

let exchange: HttpStub;
let other: HttpStub;

beforeAll(async () => {
  [exchange, other] = await Promise.all([HttpStub.start(), HttpStub.start()]);
});
afterEach(() => {
  exchange.reset();
  other.reset();
});
afterAll(() => Promise.all([exchange.close(), other.close()]));

const STATUS_OK: StubReply = { json: { data: { status: 'ok', feed: true, rollup_height: '1', timestamp_ns: TS }, timestamp_ns: TS } };
const redirect = (location: string, status = 302): StubReply => ({ status, text: '', headers: { location } });
const client = (extra: { maxRedirects?: number } = {}) =>
  new RestClient({ baseUrl: exchange.baseUrl, headers: { 'x-api-key': 'secret' }, retry: { retries: 3, initialDelayMs: 1, maxDelayMs: 2 }, ...extra });

async function failure(p: Promise<unknown>): Promise<ExchangeReplicaError> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: ExchangeReplicaError) => e,
  );
}

describe('REST redirects', () => {
  test.each([301, 302, 303, 307, 308])('a %i to another origin is refused: the other host gets nothing, the caller gets ERR_REDIRECT_REFUSED naming the Location', async (status) => {
    const location = `${other.baseUrl}/v1/status`;
    exchange.route('/v1/status', () => redirect(location, status));
    other.route('/v1/status', () => STATUS_OK);
    const outcome = await client().status().then((answer) => ({ answer }), (e: unknown) => e);
    // Nothing reached the other origin: neither the caller's headers nor any request at all.
    expect(other.requests.map((r) => r.headers['x-api-key'])).toEqual([]);
    // Its answer was not taken: the call failed, naming where it was sent.
    expect(outcome).toBeInstanceOf(ExchangeReplicaError);
    expect(outcome).toMatchObject({ code: 'ERR_REDIRECT_REFUSED', context: { operation: 'status', status, location } });
    expect((outcome as ExchangeReplicaError).message).toContain(location);
    // Not retried: the exchange asked once.
    expect(exchange.requests).toHaveLength(1);
    expect(exchange.requests[0]!.headers['x-api-key']).toBe('secret');
  });

  test('another scheme or host on the same port is another origin too', async () => {
    const port = new URL(exchange.baseUrl).port;
    for (const location of [`https://127.0.0.1:${port}/v1/status`, `http://localhost:${port}/v1/status`]) {
      exchange.route('/v1/status', () => redirect(location));
      await expect(client().status()).rejects.toMatchObject({ code: 'ERR_REDIRECT_REFUSED', context: { location } });
    }
    expect(exchange.requests).toHaveLength(2);
  });

  test('a same-origin redirect (relative Location) is followed with the same headers', async () => {
    exchange.route('/v1/status', () => redirect('/v1/status-moved', 307));
    exchange.route('/v1/status-moved', () => STATUS_OK);
    await expect(client().status()).resolves.toMatchObject({ data: { status: 'ok' } });
    expect(exchange.requests.map((r) => [r.path, r.headers['x-api-key']])).toEqual([
      ['/v1/status', 'secret'],
      ['/v1/status-moved', 'secret'],
    ]);
  });

  test('same-origin redirects are bounded by maxRedirects: a loop is refused, not retried', async () => {
    exchange.route('/v1/status', () => redirect('/v1/status'));
    const e = await failure(client({ maxRedirects: 2 }).status());
    expect(e).toMatchObject({ code: 'ERR_REDIRECT_REFUSED', context: { status: 302 } });
    expect(e.message).toMatch(/maxRedirects \(2\)/);
    // The first request and its 2 redirects, once.
    expect(exchange.requests).toHaveLength(3);
  });

  test('maxRedirects 0 refuses every redirect', async () => {
    exchange.route('/v1/status', () => redirect('/v1/status-moved'));
    exchange.route('/v1/status-moved', () => STATUS_OK);
    await expect(client({ maxRedirects: 0 }).status()).rejects.toMatchObject({ code: 'ERR_REDIRECT_REFUSED' });
    expect(exchange.requests.map((r) => r.path)).toEqual(['/v1/status']);
  });

  test('a same-origin hop then a cross-origin one: refused at the cross-origin hop', async () => {
    exchange.route('/v1/status', () => redirect('/v1/hop'));
    exchange.route('/v1/hop', () => redirect(`${other.baseUrl}/v1/status`));
    other.route('/v1/status', () => STATUS_OK);
    await expect(client().status()).rejects.toMatchObject({ code: 'ERR_REDIRECT_REFUSED' });
    expect(other.requests).toEqual([]);
  });

  test('an answer a fetch reports from another origin (it followed a redirect itself, or a browser hid one) is never taken', async () => {
    const body = JSON.stringify(STATUS_OK.json);
    const followed: FetchLike = async () => ({ status: 200, redirected: true, url: 'http://elsewhere.invalid/v1/status', text: async () => body });
    await expect(new RestClient({ baseUrl: 'http://exchange.invalid', fetch: followed }).status()).rejects.toMatchObject({ code: 'ERR_REDIRECT_REFUSED', context: { location: 'http://elsewhere.invalid/v1/status' } });
    const opaque: FetchLike = async () => ({ status: 0, type: 'opaqueredirect', text: async () => '' });
    await expect(new RestClient({ baseUrl: 'http://exchange.invalid', fetch: opaque }).status()).rejects.toMatchObject({ code: 'ERR_REDIRECT_REFUSED' });
    // The fetch is asked not to follow redirects.
    let asked: unknown;
    const spy: FetchLike = async (_url, init) => {
      asked = init.redirect;
      return { status: 200, text: async () => body };
    };
    await new RestClient({ baseUrl: 'http://exchange.invalid', fetch: spy }).status();
    expect(asked).toBe('manual');
  });

  test('maxRedirects is checked', () => {
    for (const bad of [-1, 1.5, Number.NaN, '2']) {
      expect(() => new RestClient({ baseUrl: exchange.baseUrl, maxRedirects: bad as number })).toThrow(InvalidParameterError);
    }
    expect(new RestClient({ baseUrl: exchange.baseUrl }).options.maxRedirects).toBe(5);
  });
});
