/** The REST server over a real socket: every operation, the envelope, 400/404/405 rules, faults. */
import { request, type IncomingHttpHeaders } from 'node:http';
import { OPERATION_NAMES, responseSchema, summarizeZodError, ErrorBody, OPERATIONS } from '../../../src/protocol';
import { Engine } from '../../../src/simulator/engine/Engine';
import { firstTransactionHash, roles, validParams } from '../engine/fixtures';
import { serve, type Harness } from './httpHarness';

const engine = new Engine({ seed: 41 });
engine.step(1_500);
const { trader, idle, mm } = roles(engine);
let h: Harness;

beforeAll(async () => {
  h = await serve(engine);
});
afterAll(async () => {
  await h.close();
});

describe('every operation over HTTP', () => {
  const params = validParams(engine);
  it.each(OPERATION_NAMES.map((n) => [n]))('%s: 200, schema-valid envelope', async (name) => {
    const r = await h.call(name, params[name]);
    expect(r.status).toBe(200);
    const v = responseSchema(name).safeParse(r.body);
    if (!v.success) throw new Error(`${name}: ${summarizeZodError(v.error, 5)}`);
    const op = OPERATIONS[name];
    if (op.versioned) {
      expect('next_cursor' in r.body).toBe(op.pages);
      expect('sequence' in r.body).toBe(op.snapshotOf !== undefined);
    }
  });

  it('answers the in-process query with the same body (timestamps aside)', async () => {
    const r = await h.call('orderBook', params.orderBook);
    const local = engine.query('orderBook', params.orderBook).body as { timestamp_ns: string };
    expect({ ...r.body, timestamp_ns: '' }).toEqual({ ...local, timestamp_ns: '' });
  });
});

/** [description, path, parameter the message must name] */
const BAD_REQUESTS: [string, string, string][] = [
  ['depth below range', '/v1/orderBook?market_type=perp&market_id=0&depth=0', 'depth'],
  ['depth above range', '/v1/orderBook?market_type=perp&market_id=0&depth=501', 'depth'],
  ['depth not an integer', '/v1/orderBook?market_type=perp&market_id=0&depth=1.5', 'depth'],
  ['depth missing', '/v1/orderBook?market_type=perp&market_id=0', 'depth'],
  ['bad market_type enum', '/v1/bbo?market_type=futures&market_id=0', 'market_type'],
  ['filter enum on a plain market_type', '/v1/bbo?market_type=all&market_id=0', 'market_type'],
  ['negative market_id', '/v1/bbo?market_type=perp&market_id=-1', 'market_id'],
  ['bad resolution', '/v1/candles?market_type=perp&market_id=0&resolution=2m&start_timestamp=0&end_timestamp=1&count_back=1', 'resolution'],
  ['count_back above 500', '/v1/candles?market_type=perp&market_id=0&resolution=1m&start_timestamp=0&end_timestamp=1&count_back=501', 'count_back'],
  ['limit above 100', '/v1/trades?market_type=perp&market_id=0&limit=101', 'limit'],
  ['limit missing where required', '/v1/trades?market_type=perp&market_id=0', 'limit'],
  ['address not base58', '/v1/account?address=not-an-address', 'address'],
  ['address base58 of 31 bytes', '/v1/account?address=1111111111111111111111111111111', 'address'],
  ['address with a forbidden base58 letter', `/v1/account?address=0${'1'.repeat(31)}`, 'address'],
  ['order status enum', `/v1/orders?address=${'1'.repeat(32)}&subaccount_id=0&status=open&limit=1`, 'status'],
  ['orders without limit or client_order_id', `/v1/orders?address=${'1'.repeat(32)}&subaccount_id=0&status=all`, 'limit'],
  ['liquidations without any filter', '/v1/liquidations?limit=10', 'market_id'],
  ['liquidations subaccount without address', '/v1/liquidations?subaccount_id=0&limit=10', 'address'],
  ['transactions hash with limit', '/v1/transactions?hash=abc&limit=5', 'hash'],
  ['blocks rollup_height with cursor', '/v1/blocks?rollup_height=5&cursor=abc', 'rollup_height'],
  ['empty search', '/v1/search?q=', 'q'],
  ['malformed cursor', '/v1/trades?market_type=perp&market_id=0&limit=5&cursor=%%%', 'cursor'],
  ['undecodable cursor', '/v1/trades?market_type=perp&market_id=0&limit=5&cursor=bm90LWpzb24', 'cursor'],
  ['unknown parameter', '/v1/status?verbose=1', 'verbose'],
  // Names inherited from Object.prototype are not parameters either (own-property check).
  ['inherited name constructor', '/v1/status?constructor=1', 'constructor'],
  ['inherited name toString', '/v1/bbo?market_type=perp&market_id=0&toString=1', 'toString'],
  ['inherited name __proto__', '/v1/trades?market_type=perp&market_id=0&limit=5&__proto__=1', '__proto__'],
  ['repeated parameter', '/v1/bbo?market_type=perp&market_type=spot&market_id=0', 'market_type'],
  ['client_order_id not uint64', `/v1/orders?address=${'1'.repeat(32)}&subaccount_id=0&status=all&client_order_id=-4`, 'client_order_id'],
  ['unversioned market id not an integer', '/markets/abc', 'market_id'],
  ['unversioned market_type enum', '/markets?market_type=all', 'market_type'],
  ['parameters before existence', '/v1/bbo?market_type=bogus&market_id=999', 'market_type'],
];

describe('400 INVALID_PARAMETER names the parameter', () => {
  it.each(BAD_REQUESTS)('%s', async (_d, path, param) => {
    const r = await h.get(path);
    expect(r.status).toBe(400);
    expect(ErrorBody.safeParse(r.body).success).toBe(true);
    expect(r.body.code).toBe('INVALID_PARAMETER');
    expect(r.body.error).toContain(param);
  });

  it('rejects a cursor of another operation or another listing', async () => {
    const fills = await h.call('fills', { address: trader, subaccount_id: 0, role: 'all', limit: 2 });
    expect(fills.body.next_cursor).toEqual(expect.any(String));
    const foreign = await h.call('trades', { market_type: 'perp', market_id: 0, limit: 2, cursor: fills.body.next_cursor });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toContain('cursor');
    const orders = await h.call('orders', { address: mm, subaccount_id: 0, status: 'active', limit: 10 });
    const other = await h.call('orders', { address: mm, subaccount_id: 0, status: 'all', limit: 10, cursor: orders.body.next_cursor });
    expect(other.status).toBe(400);
    expect(other.body.error).toContain('cursor');
  });

  it('mentions the accepted values of enums and ranges', async () => {
    expect((await h.get('/v1/bbo?market_type=futures&market_id=0')).body.error).toMatch(/'spot', 'perp'/);
    expect((await h.get('/v1/orderBook?market_type=perp&market_id=0&depth=0')).body.error).toMatch(/1 to 500/);
  });
});

const UNKNOWN = '1'.repeat(32);
const NOT_FOUND: [string, () => string][] = [
  ['unknown market', () => '/v1/bbo?market_type=perp&market_id=999'],
  ['market of the other type', () => '/v1/orderBook?market_type=spot&market_id=0&depth=5'],
  ['mark candles of a spot market', () => '/v1/markCandles?market_id=3&resolution=1m&start_timestamp=0&end_timestamp=10&count_back=5'],
  ['funding rates of a spot market', () => '/v1/fundingRates?market_id=4&start_timestamp=0&end_timestamp=10&limit=5'],
  ['markets filter naming nothing', () => '/v1/markets?market_type=spot&market_id=0'],
  ['unknown account', () => `/v1/account?address=${UNKNOWN}`],
  ['unknown subaccount', () => `/v1/balances?address=${trader}&subaccount_id=9`],
  ['account subaccount filter', () => `/v1/account?address=${trader}&subaccount_id=9`],
  ['positions market filter', () => `/v1/positions?address=${trader}&subaccount_id=0&market_id=77`],
  ['unknown client order id', () => `/v1/orders?address=${trader}&subaccount_id=0&status=all&client_order_id=123456789012`],
  ['fills market filter', () => `/v1/fills?address=${trader}&subaccount_id=0&role=all&market_id=77&limit=5`],
  ['liquidations unknown address', () => `/v1/liquidations?address=${UNKNOWN}&limit=5`],
  ['unknown vault', () => '/v1/vaults?vault_id=99'],
  ['depositors of an unknown vault', () => '/v1/vaultDepositors?vault_id=99'],
  ['unknown token', () => '/v1/tokens?token_id=DOGE'],
  ['unknown transaction', () => '/v1/transactions?hash=deadbeef'],
  ['transaction rejected at admission', () => `/v1/transactions?hash=${engine.rejectedTransactionHash}`],
  ['unknown block', () => '/v1/blocks?rollup_height=7'],
  ['unversioned unknown market', () => '/markets/99'],
  ['unversioned spot id under the default perp type', () => '/markets/3'],
  ['unversioned transaction rejected at admission', () => `/transactions/${engine.rejectedTransactionHash}`],
  ['unknown path', () => '/v1/nothing'],
  ['unknown unversioned path', () => '/transactions'],
];

describe('404 NOT_FOUND', () => {
  it.each(NOT_FOUND)('%s', async (_d, path) => {
    const r = await h.get(path());
    expect(r.status).toBe(404);
    expect(ErrorBody.safeParse(r.body).success).toBe(true);
    expect(r.body.code).toBe('NOT_FOUND');
  });
});

describe('existing but empty gives []', () => {
  const empty: [string, () => string][] = [
    ['balances', () => `/v1/balances?address=${idle}&subaccount_id=0`],
    ['positions', () => `/v1/positions?address=${idle}&subaccount_id=0`],
    ['orders', () => `/v1/orders?address=${idle}&subaccount_id=0&status=all&limit=100`],
    ['fills', () => `/v1/fills?address=${idle}&subaccount_id=0&role=all&limit=100`],
    ['fundingPayments', () => `/v1/fundingPayments?address=${idle}&subaccount_id=1&limit=100`],
    ['transfers', () => `/v1/transfers?address=${idle}&subaccount_id=0&kind=all&limit=100`],
    ['pnl', () => `/v1/pnl?address=${idle}&subaccount_id=0&resolution=1h&start_timestamp=0&end_timestamp=1&count_back=10`],
    ['liquidations', () => `/v1/liquidations?address=${idle}&limit=100`],
    ['trades of a paused market', () => '/v1/trades?market_type=perp&market_id=2&limit=100'],
    ['candles of a paused market', () => '/v1/candles?market_type=perp&market_id=2&resolution=1m&start_timestamp=0&end_timestamp=9007199254740991&count_back=10'],
    ['vault depositors filtered to a non-depositor', () => `/v1/vaultDepositors?vault_id=1&address=${idle}`],
    ['search for nothing', () => '/v1/search?q=nothing-here'],
  ];
  it.each(empty)('%s', async (_d, path) => {
    const r = await h.get(path());
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    if ('next_cursor' in r.body) expect(r.body.next_cursor).toBeNull();
  });
});

describe('transactions', () => {
  it('GET /transactions/{hash} serves committed and failed transactions, 404 for a rejected one', async () => {
    const ok = await h.get(`/transactions/${firstTransactionHash(engine)}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'committed', success: true });
    expect('error' in ok.body).toBe(false);
    const failed = await h.get(`/transactions/${engine.failedTransactionHash}`);
    expect(failed.status).toBe(200);
    expect(responseSchema('transaction').safeParse(failed.body).success).toBe(true);
    expect(failed.body).toMatchObject({ status: 'failed', success: false, error: expect.stringContaining('reverted') });
    const block = await h.call('blocks', { rollup_height: failed.body.block });
    expect(block.body.data).toHaveLength(1);
    expect((await h.get(`/transactions/${engine.rejectedTransactionHash}`)).status).toBe(404);
    const search = await h.call('search', { q: engine.failedTransactionHash });
    expect(search.body.data).toEqual([{ kind: 'transaction', hash: engine.failedTransactionHash }]);
  });
});

describe('methods and faults', () => {
  it('answers 405 with an error body to non-GET methods', async () => {
    const r = await h.get('/v1/status', { method: 'POST', body: '{}' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
    expect(ErrorBody.safeParse(r.body).success).toBe(true);
  });

  it('consults the fault hook: injected 500 INTERNAL_ERROR, then a delayed answer', async () => {
    h.fault = { fail500: true };
    const failed = await h.get('/v1/info');
    expect(failed.status).toBe(500);
    expect(failed.body.code).toBe('INTERNAL_ERROR');
    h.fault = { delayMs: 30 };
    const delayed = await h.get('/v1/info');
    expect(delayed.status).toBe(200);
    h.fault = {};
    expect(h.hookCalls.slice(-2)).toEqual(['info', 'info']);
  });

  it('does not consult the fault hook for requests it rejects', async () => {
    const before = h.hookCalls.length;
    await h.get('/v1/orderBook?market_type=perp&market_id=0&depth=0');
    await h.get('/v1/nothing');
    expect(h.hookCalls.length).toBe(before);
  });
});

describe('CORS (a browser page of another origin)', () => {
  /** One raw request (fetch would drop the preflight's own headers, which only browsers send). */
  function raw(method: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders }> {
    return new Promise((resolve, reject) => {
      const req = request(h.base + path, { method, headers, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
      req.on('error', reject);
      req.end();
    });
  }

  it('every answer may be read by any origin, errors included', async () => {
    for (const path of ['/v1/info', '/v1/nothing', '/v1/orderBook?market_type=perp&market_id=0&depth=0']) {
      const r = await h.get(path, { headers: { origin: 'http://page.example' } });
      expect({ path, allow: r.headers.get('access-control-allow-origin') }).toEqual({ path, allow: '*' });
    }
  });

  it('a preflight is answered 204 allowing GET and the headers asked for (credentials headers of private endpoints included)', async () => {
    const asked = 'accept, authorization, x-api-key';
    const r = await raw('OPTIONS', '/v1/subaccounts?address=x', { origin: 'http://page.example', 'access-control-request-method': 'GET', 'access-control-request-headers': asked });
    expect(r.status).toBe(204);
    expect(r.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET', 'access-control-allow-headers': asked });
    expect(Number(r.headers['access-control-max-age'])).toBeGreaterThan(0);
  });

  it('an OPTIONS that is not a preflight is refused like any other method', async () => {
    const r = await raw('OPTIONS', '/v1/info', {});
    expect(r.status).toBe(405);
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});
