/** Event streams expose their status through the recent log, sharing one replica with the item stream. */
import { startPair, waitFor, type Pair } from './harness';

jest.setTimeout(30_000);

let pair: Pair;
beforeEach(async () => {
  pair = await startPair({ eventsPerSecond: 400 });
});
afterEach(async () => {
  await pair.close();
});

it('recentTrades and trades share one replica; the log carries the status and heals after a drop', async () => {
  const m = { market_type: 'perp', market_id: 0 } as const;
  const items: bigint[] = [];
  const a = pair.client.trades(m).subscribe((i) => i.kind === 'record' && items.push(i.sequence));
  const log$ = pair.client.recentTrades(m);
  const b = log$.subscribe();
  expect(pair.client.activity().replicas).toBe(1);
  const live = await waitFor(log$, (e) => e.status === 'live' && e.state.recent.length > 0, 'trade log live');
  expect(live.state.recent.length).toBeGreaterThan(0);
  pair.sim.faults.dropAll();
  await waitFor(log$, (e) => e.status !== 'live', 'trade log not live after a drop');
  await waitFor(log$, (e) => e.status === 'live' && e.snapshotId >= 2, 'trade log live again');
  // Delivered exactly once, in order.
  for (let i = 1; i < items.length; i++) expect(items[i]! > items[i - 1]!).toBe(true);
  a.unsubscribe();
  b.unsubscribe();
  expect(pair.client.activity()).toMatchObject({ replicas: 0, serverSubscriptions: 0 });
});
