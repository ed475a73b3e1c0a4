/**
 * Orders placed by hand on the paused simulator (`sim.placeOrder`) show up in the account
 * replica: the fills (exactly once), the position, the open order and its cancellation,
 * each reported as a change, and the whole account equal to the truth after each step.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import type { AccountChange, AccountReplicaState, Bbo } from '../../src';
import { startPair, type Pair } from './harness';
import { ReplicaFleet } from './ReplicaFleet';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
let fleet: ReplicaFleet;
afterEach(async () => {
  fleet?.stop();
  await pair?.close();
});

test('placed and cancelled orders and their fills reach the account replica exactly', async () => {
  pair = await startPair({ paused: true, seed: 44 });
  const { sim, client } = pair;
  // The treasury's subaccount 0 does not trade in the order flow: every fill here is ours.
  const me = { address: sim.engine.accounts[5]!.address, subaccount_id: 0 };
  fleet = new ReplicaFleet(client, { markets: [{ market_type: 'perp', market_id: 0 }], resolutions: [], markResolutions: [], accounts: [me] }).start();
  const changes: AccountChange[] = [];
  let latest: AccountReplicaState | undefined;
  const sub = client.account(me).subscribe((s) => {
    latest = s;
    changes.push(...s.changes);
  });
  const seen = (what: string, pred: (c: AccountChange[]) => boolean) =>
    firstValueFrom(client.account(me).pipe(filter(() => pred(changes)), timeout({ first: WAIT_MS, with: () => { throw new Error(`timed out waiting for ${what}; changes: ${changes.map((c) => c.kind).join(',')}`); } })));
  await firstValueFrom(fleet.changed$.pipe(filter(() => fleet.allLive()), timeout(WAIT_MS)));
  const exact = async (label: string) => {
    const r = await fleet.checkpoint(sim, WAIT_MS);
    expect({ label, notConverged: r.notConverged, divergences: r.divergences, dup: r.events.duplicates, missing: r.events.missing, mismatched: r.events.mismatched }).toEqual({ label, notConverged: [], divergences: [], dup: 0, missing: 0, mismatched: 0 });
  };
  await exact('before any order');

  // 1. A bid through the ask of the perp market: fills at once and opens a long position.
  const bbo = sim.truth('bbo', { market_type: 'perp', market_id: 0 }).body as { data: Bbo };
  const taken = sim.placeOrder({ ...me, market_type: 'perp', market_id: 0, side: 'bid', price_ticks: BigInt(bbo.data.ask!.price_ticks) + 20n, size_base_lots: '7' });
  expect(taken.fills.length).toBeGreaterThan(0);
  await seen('the fills and the position', (c) => taken.fills.every((f) => c.some((x) => x.kind === 'fill' && x.fill.sequence === f.sequence)) && c.some((x) => x.kind === 'position' && x.market_id === 0));
  const fillChanges = changes.filter((c) => c.kind === 'fill');
  expect(fillChanges.map((c) => (c as { fill: { order_id: string } }).fill.order_id)).toEqual(taken.fills.map(() => taken.order.order_id));
  expect(latest!.state.positions.get(0)).toMatchObject({ side: 'long' });
  await exact('after a crossing order');

  // 2. A resting bid far below the spot book: an open order.
  const spot = sim.truth('bbo', { market_type: 'spot', market_id: 3 }).body as { data: Bbo };
  const resting = sim.placeOrder({ ...me, market_type: 'spot', market_id: 3, side: 'bid', price_ticks: BigInt(spot.data.bid!.price_ticks) - 500n, size_base_lots: '50' });
  expect(resting.fills).toEqual([]);
  await seen('the open order', (c) => c.some((x) => x.kind === 'order' && x.order_id === resting.order.order_id && x.after?.status === 'open'));
  expect(latest!.state.openOrders.get(resting.order.order_id)).toMatchObject({ status: 'open', remaining_size_base_lots: '50' });
  await exact('after a resting order');

  // 3. Cancelled: gone from the open orders.
  sim.cancelOrder({ ...me, order_id: resting.order.order_id });
  await seen('the cancellation', (c) => c.some((x) => x.kind === 'order' && x.order_id === resting.order.order_id && x.after === undefined));
  expect(latest!.state.openOrders.has(resting.order.order_id)).toBe(false);
  await exact('after a cancel');

  // Every fill exactly once in the changes.
  const seqs = changes.filter((c) => c.kind === 'fill').map((c) => (c as { fill: { sequence: string } }).fill.sequence);
  expect(new Set(seqs).size).toBe(seqs.length);
  sub.unsubscribe();
});
