/** waitForTransaction(): 404 means "not yet": poll until indexed or the deadline. */
import { AbortedError, RestApiError, TransactionNotIndexedError } from '../../src/errors';
import { RestClient, waitForTransaction } from '../../src/rest';
import { HttpStub, type StubReply } from '../helpers/HttpStub';
import { TRANSACTION } from './fixtures';

let stub: HttpStub;
let rest: RestClient;

beforeAll(async () => {
  stub = await HttpStub.start();
  rest = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 0 } });
});
afterEach(() => stub.reset());
afterAll(() => stub.close());

const PATH = '/transactions/5TxHash';
const NOT_FOUND: StubReply = { status: 404, json: { code: 'NOT_FOUND', error: 'unknown transaction hash' } };

test('keeps polling through 404s and resolves with the committed record', async () => {
  stub.script(PATH, [NOT_FOUND, NOT_FOUND, { json: TRANSACTION }]);
  const tx = await waitForTransaction(rest, '5TxHash', { intervalMs: 5, timeoutMs: 20_000 });
  expect(tx).toEqual(TRANSACTION);
  expect(stub.requestsTo(PATH)).toHaveLength(3);
});

test('resolves with a failed transaction, its reason in error', async () => {
  const failed = { ...TRANSACTION, status: 'failed', success: false, error: 'insufficient margin' };
  stub.script(PATH, [NOT_FOUND, { json: failed }]);
  const tx = await waitForTransaction(rest, '5TxHash', { intervalMs: 5 });
  expect(tx).toMatchObject({ status: 'failed', success: false, error: 'insufficient margin' });
});

test('rejects with TransactionNotIndexedError once the deadline passes', async () => {
  stub.route(PATH, () => NOT_FOUND);
  const e = await waitForTransaction(rest, '5TxHash', { intervalMs: 10, timeoutMs: 150 }).catch((err: unknown) => err);
  expect(e).toBeInstanceOf(TransactionNotIndexedError);
  expect(e).toMatchObject({ code: 'ERR_TRANSACTION_NOT_INDEXED', hash: '5TxHash' });
  expect(stub.requestsTo(PATH).length).toBeGreaterThanOrEqual(1);
});

test('other errors propagate at once', async () => {
  stub.route(PATH, () => ({ status: 400, json: { code: 'INVALID_PARAMETER', error: "invalid parameter 'hash'" } }));
  await expect(waitForTransaction(rest, '5TxHash', { intervalMs: 5 })).rejects.toBeInstanceOf(RestApiError);
  expect(stub.requestsTo(PATH)).toHaveLength(1);
  await expect(waitForTransaction(rest, '', { intervalMs: 5 })).rejects.toMatchObject({ param: 'hash' });
});

test('the signal stops the wait between polls', async () => {
  stub.route(PATH, () => NOT_FOUND);
  const ac = new AbortController();
  const wait = waitForTransaction(rest, '5TxHash', { intervalMs: 60_000, timeoutMs: 120_000, signal: ac.signal });
  await stub.waitForRequests(1);
  ac.abort();
  await expect(wait).rejects.toBeInstanceOf(AbortedError);
});

test('options are checked', async () => {
  await expect(waitForTransaction(rest, 'h', { intervalMs: 0 })).rejects.toMatchObject({ param: 'intervalMs' });
  expect(stub.requests).toHaveLength(0);
});

test('runs on the given clock: the deadline and the pauses are clock time, not wall time', async () => {
  const { ManualClock } = await import('../helpers/ManualClock');
  const clock = new ManualClock();
  stub.route(PATH, () => NOT_FOUND);
  const done = waitForTransaction(rest, '5TxHash', { intervalMs: 1_000, timeoutMs: 60_000, clock }).catch((err: unknown) => err);
  // Each lookup answers 404 over a real socket; each pause is one clock timer.
  for (let i = 0; i < 60 && clock.pendingTimers === 0; i++) await new Promise((r) => setImmediate(r));
  const polls = async (n: number) => {
    for (let k = 0; k < n; k++) {
      while (clock.pendingTimers === 0) await new Promise((r) => setImmediate(r));
      await clock.advance(1_000);
    }
  };
  await polls(60);
  const e = await done;
  expect(e).toBeInstanceOf(TransactionNotIndexedError);
  expect((e as Error).message).toContain('within 60000 ms');
  expect(stub.requestsTo(PATH)).toHaveLength(61);
});
