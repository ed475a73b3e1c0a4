/**
 * An account replica's state parts are the client's replicas of the part streams: beside
 * `subaccount()`, `balances()`, `positions()` and `openOrders()` of the same subaccount, no
 * second replica runs (each update is applied once; fills stay its own), the account replica
 * that joins running parts starts from their status and states, either side can leave
 * without disturbing the other, and resyncs are counted once.
 */
import { firstValueFrom, filter } from 'rxjs';
import { streamKey } from '../../src/protocol';
import { startPair, waitFor, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

it('shares its parts with the direct replicas of the same streams, in either order of subscribing', async () => {
  pair = await startPair({ seed: 5, eventsPerSecond: 400 });
  const p = pair;
  const trader = p.sim.engine.accounts[1]!;
  const scope = { address: trader.address, subaccount_id: 0 };
  // Direct replicas first, live before the account replica joins them.
  const direct = [p.client.subaccount(scope).subscribe(() => undefined), p.client.balances(scope).subscribe(() => undefined), p.client.positions(scope).subscribe(() => undefined), p.client.openOrders(scope).subscribe(() => undefined)];
  const fills = p.client.fills(scope).subscribe(() => undefined);
  const orders = p.client.openOrders(scope);
  await waitFor(orders, (e) => e.status === 'live', 'orders live');
  expect(p.client.activity().replicas).toBe(5);
  const account = p.client.account(scope);
  const seen: number[] = [];
  const statuses: string[] = [];
  const acc = account.subscribe((e) => {
    seen.push(e.changes.length);
    statuses.push(e.status);
  });
  await waitFor(account, () => seen.length >= 1, 'the first combined state');
  // Its state parts were live: the first combined state is live.
  expect(statuses[0]).toBe('live');
  // One more replica (the combined one, running its own fills part), not five more; one server subscription per stream.
  expect(p.client.activity().replicas).toBe(6);
  expect(p.client.activity().serverSubscriptions).toBe(5);
  // The combined state reads the very maps the direct replica shows, and follows its updates.
  let appliedOrders = 0;
  const o = orders.subscribe((e) => {
    if (e.cause === 'update') appliedOrders++;
  });
  await waitFor(orders, () => appliedOrders >= 10, '10 applied order updates', WAIT_MS);
  const [combined, own] = await Promise.all([firstValueFrom(account), firstValueFrom(orders)]);
  expect(combined.state.openOrders).toBe(own.state);
  await waitFor(account, () => seen.length >= 3, 'the combined state follows its parts');
  // The direct replicas leave: the account replica keeps its parts running and stays live.
  for (const s of direct) s.unsubscribe();
  fills.unsubscribe();
  o.unsubscribe();
  // The four state parts and the combined replica (which runs its own fills part).
  expect(p.client.activity().replicas).toBe(5);
  const before = seen.length;
  await waitFor(account, () => seen.length >= before + 5, '5 more account emissions', WAIT_MS);
  expect((await firstValueFrom(account)).status).toBe('live');
  expect(Object.values(p.client.resyncCounts()).reduce((a, b) => a + b, 0)).toBe(0);
  acc.unsubscribe();
  expect(p.client.activity().replicas).toBe(0);
});

it('counts a resync of a shared part once', async () => {
  pair = await startPair({ seed: 5, eventsPerSecond: 400 });
  const p = pair;
  const trader = p.sim.engine.accounts[1]!;
  const scope = { address: trader.address, subaccount_id: 0 };
  const account = p.client.account(scope);
  const acc = account.subscribe(() => undefined);
  const balances = p.client.balances(scope);
  const b = balances.subscribe(() => undefined);
  await firstValueFrom(account.pipe(filter((e) => e.status === 'live')));
  await waitFor(balances, (e) => e.status === 'live', 'balances live');
  // The combined replica and its four state parts, one of them the balances read here.
  expect(p.client.activity().replicas).toBe(5);
  p.sim.faults.resyncStream(streamKey('balances', scope));
  await waitFor(balances, (e) => e.status === 'live' && e.snapshotId > 1, 'balances rebuilt', WAIT_MS);
  expect(p.client.resyncCounts().resync_required).toBe(1);
  b.unsubscribe();
  acc.unsubscribe();
});
