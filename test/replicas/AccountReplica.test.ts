import type { Balance, ChannelName, Fill, Order, Position, Subaccount } from '../../src/protocol';
import { AccountReplica } from '../../src/replicas/account/AccountReplica';
import type { AccountChange, AccountReplicaState } from '../../src/replicas/account/AccountState';
import fc from 'fast-check';
import { combineStatuses, diffKeyedSet, diffMaps } from '../../src/replicas/account/diffAccount';
import { createKeyedSet, loadKeyedSet, updateKeyedSet } from '../../src/replicas/reducers';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import type { StatusChange } from '../../src/replicas/ReplicaStatus';
import { address, balance, FakeFetcher, FakeStream, fakeSource, fill, order, position, subaccount, waitFor } from './fixtures';
import { fastRetry } from './SyncHarness';

const ADDRESS = address(7);
const PARTS = ['account', 'balances', 'positions', 'orders', 'fills'] as const;

/** The exchange's view of one subaccount, served as REST snapshots. */
class AccountModel {
  sub: Subaccount = subaccount(0, 1000);
  balances: Balance[] = [balance('USDC', 500)];
  positions: Position[] = [position(1, 5)];
  orders: Order[] = [order(1), order(2)];
  fills: Fill[] = [fill(1), fill(2)];
  seq: Record<string, number> = { account: 0, balances: 0, positions: 0, orders: 0, fills: 0 };

  answer(op: string) {
    const sequence = String(this.seq[op] ?? 0);
    switch (op) {
      case 'account':
        return { data: { address: ADDRESS, subaccounts: [this.sub] }, sequence };
      case 'balances':
        return { data: this.balances, sequence };
      case 'positions':
        return { data: this.positions, sequence };
      case 'orders':
        return { data: this.orders.filter((o) => o.status === 'open'), sequence, next_cursor: null };
      case 'fills':
        return { data: [...this.fills].reverse(), sequence, next_cursor: null };
    }
    throw new Error(`unexpected operation ${op}`);
  }
}

function setup() {
  const model = new AccountModel();
  const streams = Object.fromEntries(PARTS.map((p) => [p, new FakeStream()])) as Record<(typeof PARTS)[number], FakeStream>;
  const fetcher = new FakeFetcher();
  fetcher.auto = (op) => model.answer(op);
  const scheduler = new ResyncScheduler({ retry: fastRetry });
  const replica = new AccountReplica({ address: ADDRESS, subaccount_id: 0 }, { source: fakeSource((c: ChannelName) => streams[c as (typeof PARTS)[number]], fetcher), scheduler });
  const emissions: AccountReplicaState[] = [];
  const statuses: StatusChange[] = [];
  replica.states$.subscribe((e) => emissions.push(e));
  replica.status$.subscribe((s) => statuses.push(s));
  replica.start();
  /** The server publishes one update of a part. */
  const publish = (part: (typeof PARTS)[number], data: unknown) => streams[part].update(++model.seq[part]!, data);
  const close = () => {
    replica.close();
    scheduler.close();
  };
  return { model, streams, replica, emissions, statuses, publish, close };
}

describe('AccountReplica', () => {
  let t: ReturnType<typeof setup>;
  afterEach(() => t.close());

  async function live() {
    for (const p of PARTS) t.streams[p].subscribed();
    return waitFor(t.replica.states$, (e) => e.status === 'live');
  }

  it('emits one combined baseline once every part has its snapshot', async () => {
    t = setup();
    const first = await live();
    expect(t.emissions).toHaveLength(1);
    expect(first.changes).toEqual([]);
    expect(first.state.subaccount.equity_quote_lots).toBe('1000');
    expect([...first.state.balances.keys()]).toEqual(['USDC']);
    expect([...first.state.positions.keys()]).toEqual([1]);
    expect(first.state.openOrders.size).toBe(2);
    expect(first.state.recentFills.map((f) => f.sequence)).toEqual(['1', '2']);
    expect(first.snapshotIds).toEqual({ account: 1, balances: 1, positions: 1, orders: 1, fills: 1 });
    expect(t.statuses).toEqual([expect.objectContaining({ from: 'syncing', to: 'live' })]);
  });

  it('reports each update as a list of changes', async () => {
    t = setup();
    await live();
    t.publish('positions', { positions: [position(1, 8)] });
    expect(t.replica.latest!.changes).toEqual([{ kind: 'position', market_id: 1, before: position(1, 5), after: position(1, 8) }]);
    expect(t.replica.latest).toMatchObject({ source: 'positions', cause: 'update', reconciled: false });
    t.publish('orders', { orders: [order(1, 'filled', 0)] });
    expect(t.replica.latest!.changes).toEqual([{ kind: 'order', order_id: order(1).order_id, before: order(1), after: undefined }]);
    t.publish('fills', { fills: [fill(3)] });
    expect(t.replica.latest!.changes).toEqual([{ kind: 'fill', fill: fill(3) }]);
    expect(t.replica.latest!.state.recentFills.map((f) => f.sequence)).toEqual(['1', '2', '3']);
    t.publish('account', subaccount(0, 990));
    expect(t.replica.latest!.changes).toEqual([{ kind: 'subaccount', before: subaccount(0, 1000), after: subaccount(0, 990) }]);
    const count = t.emissions.length;
    t.publish('balances', { balances: [balance('USDC', 500)] }); // no change: no emission
    expect(t.emissions).toHaveLength(count);
  });

  it('reports exactly the net change of each key an update touched, and nothing again on a status emission', async () => {
    t = setup();
    await live();
    // order 1 twice (net: open -> open with 3 left), order 2 re-sent identical (no change), order 9 added then filled (never in the set).
    t.publish('orders', { orders: [order(1, 'open', 4), order(2), order(9), order(1, 'open', 3), order(9, 'filled', 0)] });
    expect(t.replica.latest!.changes).toEqual([{ kind: 'order', order_id: order(1).order_id, before: order(1), after: order(1, 'open', 3) }]);
    const count = t.emissions.length;
    t.streams.orders.disconnected('socket closed');
    expect(t.emissions.length).toBeGreaterThan(count);
    expect(t.replica.latest!.status).toBe('stale');
    expect(t.replica.latest!.changes).toEqual([]);
  });

  it('changes equal a full diff of copies taken before and after each update (random updates)', async () => {
    t = setup();
    await live();
    const orderRec = fc.tuple(fc.nat(6), fc.constantFrom<Order['status']>('open', 'open', 'filled', 'cancelled'), fc.integer({ min: 1, max: 3 })).map(([n, st, rem]) => order(n, st, st === 'open' ? rem : 0));
    const batches = fc.sample(fc.array(orderRec, { minLength: 1, maxLength: 5 }), { numRuns: 60, seed: 77 });
    const byKey = (a: AccountChange, b: AccountChange) => ((a as { order_id: string }).order_id < (b as { order_id: string }).order_id ? -1 : 1);
    for (const batch of batches) {
      const before = new Map(t.replica.latest!.state.openOrders);
      const count = t.emissions.length;
      t.publish('orders', { orders: batch });
      const after = new Map(t.replica.latest!.state.openOrders);
      const expected = diffMaps(before, after, (order_id, b, a): AccountChange => ({ kind: 'order', order_id, before: b, after: a }));
      if (expected.length === 0) expect(t.emissions).toHaveLength(count);
      else expect([...t.replica.latest!.changes].sort(byKey)).toEqual(expected.sort(byKey));
    }
  });

  it('after a reconnect, reconciles every part from REST and emits what changed', async () => {
    t = setup();
    await live();
    for (const p of PARTS) t.streams[p].disconnected('socket closed');
    expect(t.replica.status).toBe('stale');
    expect(t.replica.latest!.status).toBe('stale');
    // What happened while disconnected.
    t.model.positions = [position(2, 3)];
    t.model.orders = [order(1, 'filled', 0), order(2), order(3)];
    t.model.fills = [...t.model.fills, fill(3), fill(4)];
    t.model.balances = [balance('USDC', 420)];
    t.model.sub = subaccount(0, 950);
    for (const p of PARTS) t.model.seq[p]! += 3;
    const before = t.emissions.length;
    for (const p of PARTS) t.streams[p].subscribed();
    await waitFor(t.replica.states$, (e) => e.status === 'live' && Object.values(e.snapshotIds).every((id) => id === 2));
    const reconciled = t.emissions.slice(before).filter((e) => e.reconciled);
    expect(reconciled.map((e) => e.source).sort()).toEqual([...PARTS].sort());
    const changes = reconciled.flatMap((e) => e.changes);
    const expected: AccountChange[] = [
      { kind: 'subaccount', before: subaccount(0, 1000), after: subaccount(0, 950) },
      { kind: 'balance', token_id: 'USDC', before: balance('USDC', 500), after: balance('USDC', 420) },
      { kind: 'position', market_id: 1, before: position(1, 5), after: undefined },
      { kind: 'position', market_id: 2, before: undefined, after: position(2, 3) },
      { kind: 'order', order_id: order(1).order_id, before: order(1), after: undefined },
      { kind: 'order', order_id: order(3).order_id, before: undefined, after: order(3) },
      { kind: 'fill', fill: fill(3) },
      { kind: 'fill', fill: fill(4) },
    ];
    expect(changes).toHaveLength(expected.length);
    expect(changes).toEqual(expect.arrayContaining(expected));
    expect(t.replica.resyncCounts.disconnected).toBe(5);
    expect(t.statuses.map((s) => s.to)).toEqual(['live', 'stale', 'resyncing', 'live']);
  });
});

describe('account helpers', () => {
  it('combineStatuses picks the worst', () => {
    expect(combineStatuses(['live', 'live'])).toBe('live');
    expect(combineStatuses(['live', 'resyncing'])).toBe('resyncing');
    expect(combineStatuses(['resyncing', 'syncing'])).toBe('syncing');
    expect(combineStatuses(['syncing', 'stale'])).toBe('stale');
    expect(combineStatuses(['stale', 'failed', 'live'])).toBe('failed');
  });

  it('diffKeyedSet: an update of the same set reports its lastChanges (deep-equal ones dropped); a new set is diffed whole', () => {
    const keyOf = (p: Position) => p.market_id;
    const removes = (p: Position) => /^0+$/.test(p.size_base_lots);
    const set = loadKeyedSet(createKeyedSet<number, Position>(), [position(1, 5), position(2, 6)], keyOf, removes);
    const change = (k: number, b: Position | undefined, a: Position | undefined) => ({ k, b, a });
    updateKeyedSet(set, [position(2, 6), position(3, 1)], keyOf, removes);
    expect(diffKeyedSet(set, set, 'update', change)).toEqual([{ k: 3, b: undefined, a: position(3, 1) }]);
    expect(diffKeyedSet(set, set, 'status', change)).toEqual([]);
    const fresh = loadKeyedSet(createKeyedSet<number, Position>(), [position(1, 5), position(3, 2)], keyOf, removes);
    expect(diffKeyedSet(set, fresh, 'snapshot', change)).toEqual([
      { k: 2, b: position(2, 6), a: undefined },
      { k: 3, b: position(3, 1), a: position(3, 2) },
    ]);
  });

  it('diffMaps lists removed, changed and added keys', () => {
    const before = new Map([['a', { v: 1 }], ['b', { v: 2 }]]);
    const after = new Map([['b', { v: 3 }], ['c', { v: 4 }]]);
    expect(diffMaps(before, after, (k, b, a) => ({ k, b, a }))).toEqual([
      { k: 'a', b: { v: 1 }, a: undefined },
      { k: 'b', b: { v: 2 }, a: { v: 3 } },
      { k: 'c', b: undefined, a: { v: 4 } },
    ]);
  });
});
