/** Every operation of the table: one valid call against the stub, one refused call that sends nothing. */
import { InvalidParameterError } from '../../src/errors';
import { OPERATION_NAMES, OPERATIONS, type OperationName, type ParamSpecs } from '../../src/protocol';
import { RestClient } from '../../src/rest';
import { HttpStub } from '../helpers/HttpStub';
import { ADDRESS, CASES, TS } from './fixtures';

let stub: HttpStub;
let rest: RestClient;

beforeAll(async () => {
  stub = await HttpStub.start();
  rest = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 0 }, timeoutMs: 5000 });
});
afterEach(() => stub.reset());
afterAll(() => stub.close());

/** The body a server would send: the envelope for versioned operations, else the bare record. */
function bodyFor(name: OperationName, data: unknown): unknown {
  const op = OPERATIONS[name];
  if (!op.versioned) return data;
  return { data, timestamp_ns: TS, ...(op.pages ? { next_cursor: null } : {}), ...(op.snapshotOf ? { sequence: '18446744073709551615' } : {}) };
}

type AnyMethod = (params?: unknown, opts?: unknown) => Promise<unknown>;

test('the fixtures cover all 32 operations', () => {
  expect(OPERATION_NAMES).toHaveLength(32);
  expect(Object.keys(CASES).sort()).toEqual([...OPERATION_NAMES].sort());
});

describe.each(OPERATION_NAMES)('%s', (name) => {
  const c = CASES[name];
  const op = OPERATIONS[name];

  test('a valid call sends the documented request and resolves with the validated answer', async () => {
    stub.route(c.path, () => ({ json: bodyFor(name, c.data) }));
    const method = (rest as unknown as Record<string, AnyMethod>)[name]!;
    const result = (await method.call(rest, c.params)) as Record<string, unknown>;

    expect(stub.requests).toHaveLength(1);
    const req = stub.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe(c.path);
    const expectedQuery = Object.entries(c.params ?? {}).filter(([k]) => (op.params as ParamSpecs)[k]?.in !== 'path');
    expect([...req.query.entries()].sort()).toEqual(expectedQuery.map(([k, v]) => [k, String(v)]).sort());

    if (op.versioned) {
      expect(result.data).toEqual(c.data);
      expect(result.timestamp_ns).toBe(TS);
      if (op.snapshotOf) expect(result.sequence).toBe('18446744073709551615');
      else expect(result).not.toHaveProperty('sequence');
      if (op.pages) expect(result.next_cursor).toBeNull();
    } else {
      expect(result).toEqual(c.data);
    }
    // The generic form is the same call.
    await expect(rest.call(name, c.params)).resolves.toEqual(result);
  });

  test('a bad parameter rejects with InvalidParameterError naming it, and nothing is sent', async () => {
    stub.route(c.path, () => ({ json: bodyFor(name, c.data) }));
    const method = (rest as unknown as Record<string, AnyMethod>)[name]!;
    const call = method.call(rest, c.bad.params);
    expect(call).toBeInstanceOf(Promise); // rejects, never throws synchronously
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidParameterError);
    const e = err as InvalidParameterError;
    expect(e.param).toBe(c.bad.param);
    expect(e.code).toBe('ERR_INVALID_PARAMETER');
    expect(e.context.operation).toBe(name);
    expect(e.message).toContain(c.bad.param);
    expect(stub.requests).toHaveLength(0);
  });
});

test('bad-parameter messages say what is accepted', async () => {
  await expect(rest.orderBook({ market_type: 'perp', market_id: 0, depth: 501 })).rejects.toThrow(/depth.*from 1 to 500.*got 501/);
  await expect(rest.bbo({ market_type: 'both' as never, market_id: 0 })).rejects.toThrow(/'spot', 'perp'/);
  expect(stub.requests).toHaveLength(0);
});

test('an unknown operation name is refused without a request', async () => {
  await expect(rest.call('nope' as OperationName, {})).rejects.toMatchObject({ code: 'ERR_INVALID_PARAMETER', param: 'operation' });
  expect(stub.requests).toHaveLength(0);
});

test('uint64 parameters accept bigint and int64 parameters keep values beyond int32', async () => {
  stub.route('/v1/orders', () => ({ json: { data: [], timestamp_ns: TS, next_cursor: null, sequence: '1' } }));
  stub.route('/v1/candles', () => ({ json: { data: [], timestamp_ns: TS, sequence: '1' } }));
  await rest.orders({ address: ADDRESS, subaccount_id: 0, status: 'all', client_order_id: 18446744073709551615n });
  await rest.candles({ market_type: 'spot', market_id: 1, resolution: '1d', start_timestamp: 1_732_200_000_000, end_timestamp: 1_732_300_000_000, count_back: 500 });
  expect(stub.requests[0]!.query.get('client_order_id')).toBe('18446744073709551615');
  expect(stub.requests[0]!.query.has('limit')).toBe(false);
  expect(stub.requests[1]!.query.get('start_timestamp')).toBe('1732200000000');
});

test('a base URL with a path prefix and trailing slash is honoured', async () => {
  const prefixed = new RestClient({ baseUrl: `${stub.baseUrl}/api/`, retry: { retries: 0 } });
  stub.route('/api/v1/status', () => ({ json: { data: CASES.status.data, timestamp_ns: TS } }));
  await expect(prefixed.status()).resolves.toMatchObject({ data: { status: 'ok' } });
  expect(stub.requests[0]!.path).toBe('/api/v1/status');
});

test('the options are checked once, at construction', () => {
  expect(() => new RestClient({ baseUrl: 'not a url' })).toThrow(InvalidParameterError);
  expect(() => new RestClient({ baseUrl: 'ftp://x' })).toThrow(/http/);
  expect(() => new RestClient({ baseUrl: 'http://x', timeoutMs: 0 })).toThrow(/timeoutMs/);
  expect(() => new RestClient({ baseUrl: 'http://x', retry: { retries: -1 } })).toThrow(/retries/);
  const r = new RestClient({ baseUrl: 'http://x/' });
  expect(r.options).toMatchObject({ baseUrl: 'http://x', timeoutMs: 10000, strict: false, retry: { retries: 3, initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5 } });
});

/** Type-level checks: compiled by `tsc`, never run. */
async function typeChecks(r: RestClient): Promise<void> {
  const book = await r.orderBook({ market_type: 'perp', market_id: 0, depth: 10 }, { timeoutMs: 100 });
  const seq: string = book.sequence;
  const bid: string | undefined = book.data.bids[0]?.price_ticks;
  const trades = await r.trades({ market_type: 'spot', market_id: 1, limit: 5 });
  const cursor: string | null = trades.next_cursor;
  const tx = await r.transaction({ hash: 'h' });
  const status: 'committed' | 'failed' = tx.status;
  const legacy = await r.marketsUnversioned();
  const sym: string | undefined = legacy[0]?.symbol;
  const blp = await r.blp();
  // @ts-expect-error blp is not a channel snapshot: no sequence
  void blp.sequence;
  // @ts-expect-error parameter names are exactly as documented
  await r.orderBook({ marketType: 'perp', market_id: 0, depth: 10 });
  // @ts-expect-error required parameters are required
  await r.bbo();
  void [seq, bid, cursor, status, sym];
}
void typeChecks;
