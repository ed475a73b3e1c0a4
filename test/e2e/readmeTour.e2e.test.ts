/** The README's five-minute tour, run as written (against the embedded simulator). */
import { ExchangeClient } from '../../src';
import { Simulator } from '../../src/simulator';
import { waitFor } from './harness';

jest.setTimeout(30_000);

it('runs the tour: subscribe, read, watch status, heal after a fault', async () => {
  const sim = await Simulator.start({ seed: 1 });
  const client = new ExchangeClient({ restUrl: sim.restUrl, connection: { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } } });
  // An expectation that fails inside the subscriber is caught by the client (a subscriber never
  // takes the process down) and reported on errors$: collect them so the test fails.
  const subscriberErrors: unknown[] = [];
  client.errors$.subscribe((e) => e.code === 'ERR_SUBSCRIBER_THREW' && subscriberErrors.push(e.cause));
  const seen: string[] = [];
  const sub = client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe((e) => {
    seen.push(e.status);
    if (e.status !== 'live') return;
    const book = e.state;
    expect(book.bestBid()!).toBeLessThan(book.bestAsk()!);
    let n = 0;
    book.forEachLevel('bid', 5, () => void n++);
    expect(n).toBe(5);
  });
  const book$ = client.orderBook({ market_type: 'perp', market_id: 0 });
  await waitFor(book$, (e) => e.status === 'live', 'live');
  sim.faults.dropAll();
  await waitFor(book$, (e) => e.snapshotId >= 2 && e.status === 'live', 'healed after dropAll');
  expect(seen).toContain('stale');
  expect(client.resyncCounts().disconnected).toBeGreaterThanOrEqual(1);
  sub.unsubscribe();
  expect(subscriberErrors).toEqual([]);
  await client.close();
  await sim.stop();
});
