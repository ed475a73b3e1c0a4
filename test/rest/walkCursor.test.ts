/** walkCursor(): the one cursor loop; a cursor already sent fails at once, whatever the cycle length. */
import { CursorRepeatedError, ExchangeReplicaError, InvalidParameterError } from '../../src/errors';
import { walkCursor, type CursorPage } from '../../src/rest/walkCursor';

interface Page extends CursorPage {
  readonly rows: readonly number[];
}

/** A fake listing: `next[cursor ?? '']` is the cursor each page answers; records every cursor asked for. */
function listing(next: Record<string, string | null>) {
  const asked: Array<string | undefined> = [];
  const fetchPage = (cursor: string | undefined): Promise<Page> => {
    asked.push(cursor);
    const key = cursor ?? '';
    if (!(key in next)) return Promise.reject(new Error(`no page for cursor ${key}`));
    return Promise.resolve({ rows: [asked.length], next_cursor: next[key]! });
  };
  return { asked, fetchPage };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const OPTIONS = { maxPages: 100, listing: 'the test listing', context: { operation: 'trades' } } as const;

async function failure(it: AsyncIterable<unknown>): Promise<CursorRepeatedError> {
  const error = await collect(it).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CursorRepeatedError);
  return error as CursorRepeatedError;
}

test('follows next_cursor until null, each cursor once, in order', async () => {
  const l = listing({ '': 'a', a: 'b', b: 'c', c: null });
  const pages = await collect(walkCursor(l.fetchPage, OPTIONS));
  expect(pages.map((p) => p.rows)).toEqual([[1], [2], [3], [4]]);
  expect(l.asked).toEqual([undefined, 'a', 'b', 'c']);
});

test('an absent next_cursor also ends the walk', async () => {
  const pages = await collect(walkCursor((): Promise<Page> => Promise.resolve({ rows: [1] }), OPTIONS));
  expect(pages).toHaveLength(1);
});

test('self-cycle: a page answering the cursor it was fetched with fails before asking again', async () => {
  const l = listing({ '': 'a', a: 'a' });
  const error = await failure(walkCursor(l.fetchPage, OPTIONS));
  expect(l.asked).toEqual([undefined, 'a']);
  expect(error).toBeInstanceOf(ExchangeReplicaError);
  expect(error.code).toBe('ERR_CURSOR_REPEATED');
  expect(error.cursor).toBe('a');
  expect(error.context).toEqual({ operation: 'trades' });
  expect(error.message).toMatch(/^the test listing: page 2 answered next_cursor "a", the cursor this very page was fetched with/);
  expect(error.message).toMatch(/must answer a cursor not sent before in the walk, or null on its last page/);
});

test('2-cycle (a -> b -> a) fails after 3 requests, naming the cycle', async () => {
  const l = listing({ '': 'a', a: 'b', b: 'a' });
  const error = await failure(walkCursor(l.fetchPage, OPTIONS));
  expect(l.asked).toEqual([undefined, 'a', 'b']);
  expect(error.message).toMatch(/page 3 answered next_cursor "a", the cursor already sent for page 2 \(a cycle of 2 pages\)/);
});

test('3-cycle (a -> b -> c -> a) fails after 4 requests', async () => {
  const l = listing({ '': 'a', a: 'b', b: 'c', c: 'a' });
  const error = await failure(walkCursor(l.fetchPage, OPTIONS));
  expect(l.asked).toEqual([undefined, 'a', 'b', 'c']);
  expect(error.message).toMatch(/a cycle of 3 pages/);
});

test('a cycle back to the start cursor counts too', async () => {
  const l = listing({ s: 'a', a: 's' });
  const error = await failure(walkCursor(l.fetchPage, { ...OPTIONS, startCursor: 's' }));
  expect(l.asked).toEqual(['s', 'a']);
  expect(error.message).toMatch(/already sent for page 1/);
});

test('a long cursor is quoted shortened in the message, kept whole on the error', async () => {
  const long = 'x'.repeat(500);
  const error = await failure(walkCursor(listing({ '': long, [long]: long }).fetchPage, OPTIONS));
  expect(error.cursor).toBe(long);
  expect(error.message.length).toBeLessThan(400);
});

test('maxPages: stops after that many pages; the last page still offers its cursor', async () => {
  let n = 0;
  const fetchPage = (): Promise<Page> => Promise.resolve({ rows: [n], next_cursor: `c${++n}` });
  const pages = await collect(walkCursor(fetchPage, { ...OPTIONS, maxPages: 3 }));
  expect(pages).toHaveLength(3);
  expect(n).toBe(3);
  expect(pages[2]!.next_cursor).toBe('c3');
});

test('an invalid maxPages is refused before any request', async () => {
  const l = listing({ '': null });
  for (const maxPages of [0, -1, 1.5, Number.NaN]) {
    await expect(collect(walkCursor(l.fetchPage, { ...OPTIONS, maxPages }))).rejects.toBeInstanceOf(InvalidParameterError);
  }
  expect(l.asked).toHaveLength(0);
});

test('early stop: a consumer that breaks sends no further request', async () => {
  const l = listing({ '': 'a', a: 'b', b: 'c', c: null });
  for await (const page of walkCursor(l.fetchPage, OPTIONS)) {
    if (page.rows[0] === 2) break;
  }
  expect(l.asked).toEqual([undefined, 'a']);
});

test('early stop before a cycle: the repeated cursor is never seen, no error', async () => {
  const l = listing({ '': 'a', a: 'a' });
  for await (const page of walkCursor(l.fetchPage, OPTIONS)) {
    if (page.rows[0] === 2) break;
  }
  expect(l.asked).toEqual([undefined, 'a']);
});

test('a failing page request is passed through unchanged', async () => {
  const boom = new ExchangeReplicaError('ERR_TRANSPORT', 'down');
  const fetchPage = (cursor: string | undefined): Promise<Page> => (cursor === undefined ? Promise.resolve({ rows: [1], next_cursor: 'a' }) : Promise.reject(boom));
  await expect(collect(walkCursor(fetchPage, OPTIONS))).rejects.toBe(boom);
});

test('duplicates: a walk never fetches one cursor twice, so no page is yielded twice', async () => {
  // A 2-cycle serving the same rows again: what the unbounded loops returned as duplicates.
  const rowsOf: Record<string, number[]> = { '': [1, 2], a: [3, 4], b: [5, 6] };
  const next: Record<string, string> = { '': 'a', a: 'b', b: 'a' };
  const fetchPage = (cursor: string | undefined) => Promise.resolve({ rows: rowsOf[cursor ?? '']!, next_cursor: next[cursor ?? '']! });
  const rows: number[] = [];
  await expect(
    (async () => {
      for await (const page of walkCursor(fetchPage, OPTIONS)) for (const r of page.rows) rows.push(r);
    })(),
  ).rejects.toBeInstanceOf(CursorRepeatedError);
  expect(rows).toEqual([1, 2, 3, 4, 5, 6]);
  expect(new Set(rows).size).toBe(rows.length);
});
