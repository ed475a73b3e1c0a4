/**
 * paginate() over a real socket against a server whose cursors cycle (a -> b -> a): the walk
 * fails with ERR_CURSOR_REPEATED after 3 requests instead of following the cycle.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CursorRepeatedError } from '../../src/errors';
import { paginate, RestClient } from '../../src/rest';
import { TRADE, TS } from './fixtures';

let server: Server;
let baseUrl: string;
const cursorsAsked: Array<string | null> = [];

/** `/v1/trades`: page by cursor, each with two distinct trades; cursor 'b' answers 'a' again. */
const NEXT: Record<string, string> = { '': 'a', a: 'b', b: 'a' };
const FIRST_SEQ: Record<string, number> = { '': 100, a: 98, b: 96 };

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/v1/trades') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'NOT_FOUND', message: 'no such path' }));
      return;
    }
    const cursor = url.searchParams.get('cursor');
    cursorsAsked.push(cursor);
    const key = cursor ?? '';
    const seq = FIRST_SEQ[key]!;
    const body = { data: [{ ...TRADE, sequence: String(seq) }, { ...TRADE, sequence: String(seq - 1) }], timestamp_ns: TS, next_cursor: NEXT[key]!, sequence: '100' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a 2-cycle of next_cursor fails with ERR_CURSOR_REPEATED after 3 requests, every trade yielded once', async () => {
  const rest = new RestClient({ baseUrl, retry: { retries: 0 } });
  const seen: string[] = [];
  let error: unknown;
  try {
    for await (const page of paginate(rest, 'trades', { market_type: 'perp', market_id: 0, limit: 2 }, { maxPages: 1000 })) {
      for (const t of page.data) seen.push(t.sequence);
    }
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(CursorRepeatedError);
  expect(error).toMatchObject({ code: 'ERR_CURSOR_REPEATED', cursor: 'a', context: { operation: 'trades' } });
  expect((error as Error).message).toMatch(/^trades: page 3 answered next_cursor "a", the cursor already sent for page 2 \(a cycle of 2 pages\)/);
  expect(cursorsAsked).toEqual([null, 'a', 'b']);
  expect(seen).toEqual(['100', '99', '98', '97', '96', '95']);
});
