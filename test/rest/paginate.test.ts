/** paginate(): follows next_cursor across pages, stops at null or at maxPages. */
import { CursorRepeatedError, InvalidParameterError } from '../../src/errors';
import { paginate, RestClient } from '../../src/rest';
import { HttpStub } from '../helpers/HttpStub';
import { TRADE, TS } from './fixtures';

let stub: HttpStub;
let rest: RestClient;

beforeAll(async () => {
  stub = await HttpStub.start();
  rest = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 0 } });
});
afterEach(() => stub.reset());
afterAll(() => stub.close());

const PARAMS = { market_type: 'perp', market_id: 0, limit: 2 } as const;

/** A keyset-paged trade history of `total` trades, newest first; the cursor is the next sequence to return. */
function serveTrades(total: number): void {
  stub.route('/v1/trades', (req) => {
    const limit = Number(req.query.get('limit'));
    const from = req.query.has('cursor') ? Number(req.query.get('cursor')) : total;
    const seqs: number[] = [];
    for (let s = from; s > 0 && seqs.length < limit; s--) seqs.push(s);
    const last = seqs[seqs.length - 1] ?? 0;
    return { json: { data: seqs.map((s) => ({ ...TRADE, sequence: String(s) })), timestamp_ns: TS, next_cursor: last > 1 ? String(last - 1) : null, sequence: '99' } };
  });
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

test('walks every page until next_cursor is null, in order, without repeats', async () => {
  serveTrades(7);
  const pages = await collect(paginate(rest, 'trades', PARAMS));
  expect(pages.map((p) => p.data.map((t) => t.sequence))).toEqual([['7', '6'], ['5', '4'], ['3', '2'], ['1']]);
  expect(pages.at(-1)!.next_cursor).toBeNull();
  expect(pages.every((p) => p.sequence === '99')).toBe(true);
  expect(stub.requests.map((r) => r.query.get('cursor'))).toEqual([null, '5', '3', '1']);
  expect(stub.requests.every((r) => r.query.get('limit') === '2')).toBe(true);
});

test('stops after maxPages; the last page still offers its cursor', async () => {
  serveTrades(100);
  const pages = await collect(paginate(rest, 'trades', PARAMS, { maxPages: 3 }));
  expect(pages).toHaveLength(3);
  expect(stub.requests).toHaveLength(3);
  expect(pages[2]!.next_cursor).toBe('94');
});

test('the default bound is 100 pages', async () => {
  stub.route('/v1/trades', (req) => ({ json: { data: [], timestamp_ns: TS, next_cursor: String(Number(req.query.get('cursor') ?? 0) + 1), sequence: '1' } }));
  const pages = await collect(paginate(rest, 'trades', PARAMS));
  expect(pages).toHaveLength(100);
});

test('starts from a given cursor', async () => {
  serveTrades(7);
  const pages = await collect(paginate(rest, 'trades', { ...PARAMS, cursor: '3' }));
  expect(pages.map((p) => p.data.map((t) => t.sequence))).toEqual([['3', '2'], ['1']]);
});

test('breaking out of the loop sends no further request', async () => {
  serveTrades(50);
  for await (const page of paginate(rest, 'trades', PARAMS)) {
    expect(page.data).toHaveLength(2);
    break;
  }
  expect(stub.requests).toHaveLength(1);
});

test('a cursor that does not advance is a protocol error, not an endless loop', async () => {
  stub.route('/v1/trades', () => ({ json: { data: [], timestamp_ns: TS, next_cursor: 'same', sequence: '1' } }));
  await expect(collect(paginate(rest, 'trades', PARAMS))).rejects.toBeInstanceOf(CursorRepeatedError);
  expect(stub.requests).toHaveLength(2);
});

test('operations that do not page and bad bounds are refused at once, before any request', () => {
  expect(() => paginate(rest, 'bbo' as never, { market_type: 'perp', market_id: 0 } as never)).toThrow(InvalidParameterError);
  expect(() => paginate(rest, 'trades', PARAMS, { maxPages: 0 })).toThrow(/maxPages/);
  expect(stub.requests).toHaveLength(0);
});

test('a bad parameter rejects on the first page with nothing sent', async () => {
  serveTrades(3);
  await expect(collect(paginate(rest, 'trades', { ...PARAMS, limit: 1000 }))).rejects.toMatchObject({ param: 'limit' });
  expect(stub.requests).toHaveLength(0);
});
