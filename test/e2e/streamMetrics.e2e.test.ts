/**
 * `streamMetrics()`: each replica times the updates it receives, once per update whatever
 * the number of its subscribers, and an account replica's parts are not timed a second time
 * beside a direct replica of the same stream. Checked against a raw tap of the same stream
 * subscribed first (it sees every update the replica sees, and the ones before it started).
 */
import { streamKey } from '../../src/protocol';
import { startPair, waitFor, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

function countOf(p: Pair, key: string): number {
  return p.client.streamMetrics().find((m) => m.stream === key)?.latency.count ?? 0;
}

it('times each update of a replica once, however many subscribers it has', async () => {
  pair = await startPair({ seed: 5, eventsPerSecond: 400 });
  const p = pair;
  const key = streamKey('book', { market_id: 1, is_perps: true });
  let tapped = 0;
  const tap = p.client.updates('book', { market_id: 1, is_perps: true }).subscribe((e) => {
    if (e.kind === 'update') tapped++;
  });
  const book = p.client.orderBook({ market_type: 'perp', market_id: 1 });
  let applied = 0;
  const a = book.subscribe((e) => {
    if (e.cause === 'update') applied++;
  });
  const b = book.subscribe(() => undefined);
  await waitFor(book, () => applied >= 40, '40 applied book updates');
  // Between two frames: both counters have seen the same frames.
  const timed = countOf(p, key);
  expect(timed).toBeGreaterThanOrEqual(applied);
  expect(timed).toBeLessThanOrEqual(tapped);
  expect(p.client.streamMetrics().find((m) => m.stream === key)?.latency.p50).toBeGreaterThan(0);
  a.unsubscribe();
  b.unsubscribe();
  tap.unsubscribe();
});

it('does not time an account part again beside the direct replica of its stream', async () => {
  pair = await startPair({ seed: 5, eventsPerSecond: 400 });
  const p = pair;
  const trader = p.sim.engine.accounts[1]!;
  const scope = { address: trader.address, subaccount_id: 0 };
  const key = streamKey('orders', scope);
  let tapped = 0;
  const tap = p.client.updates('orders', scope).subscribe((e) => {
    if (e.kind === 'update') tapped++;
  });
  const account = p.client.account(scope).subscribe(() => undefined);
  const orders = p.client.openOrders(scope);
  let applied = 0;
  const o = orders.subscribe((e) => {
    if (e.cause === 'update') applied++;
  });
  await waitFor(orders, () => applied >= 20, '20 applied order updates', WAIT_MS);
  const timed = countOf(p, key);
  expect(timed).toBeGreaterThanOrEqual(applied);
  // Timed by both the account's part and the direct replica, it would pass the tap's count.
  expect(timed).toBeLessThanOrEqual(tapped);
  o.unsubscribe();
  account.unsubscribe();
  tap.unsubscribe();
});
