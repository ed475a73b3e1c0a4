/**
 * The REST snapshot race: with slow snapshot answers while the order flow runs fast, many
 * updates arrive while each snapshot is in flight (buffered, then the ones above its
 * sequence folded in); every replica still ends exactly equal to the truth.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { streamKey } from '../../src/protocol';
import { startPair, type Pair } from './harness';
import { ReplicaFleet } from './ReplicaFleet';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
let fleet: ReplicaFleet;
afterEach(async () => {
  fleet?.stop();
  await pair?.close();
});

test('slow snapshots under a fast flow: updates buffered during the fetch, replicas exact', async () => {
  pair = await startPair({ eventsPerSecond: 800, seed: 21 }, { replica: { livenessMs: 0 } });
  const { sim, client } = pair;
  sim.faults.restLatencyMs(300);
  const market = { market_type: 'perp', market_id: 0 } as const;
  // Updates of the book stream received before its replica first went live: buffered while the snapshot was in flight.
  let early = 0;
  let live = false;
  const raw = client.updates('book', { market_id: 0, is_perps: true }).subscribe(() => !live && early++);
  const trader = sim.engine.accounts[2]!.address;
  fleet = new ReplicaFleet(client, { markets: [market, { market_type: 'spot', market_id: 4 }], resolutions: ['1m', '15m'], markResolutions: ['5m'], accounts: [{ address: trader, subaccount_id: 0 }] }).start();
  await firstValueFrom(client.orderBook(market).pipe(filter((e) => e.status === 'live'), timeout(WAIT_MS)));
  live = true;
  expect(early).toBeGreaterThan(0);

  // Resyncs while the answers are still slow: each snapshot again races the flow.
  sim.faults.resyncStream(streamKey('book', { market_id: 0, is_perps: true }), 2);
  sim.faults.resyncStream(streamKey('orders', { address: trader, subaccount_id: 0 }), 1);
  sim.faults.skipSilently(streamKey('candles', { market_id: 4, is_perps: false, interval: '1m' }), 1);
  await firstValueFrom(
    fleet.changed$.pipe(
      filter(() => client.resyncCounts().resync_required >= 1 && fleet.allLive()),
      timeout({ first: WAIT_MS, with: () => { throw new Error(`no resync: ${JSON.stringify(client.resyncCounts())}`); } }),
    ),
  );
  sim.pause();
  const r = await fleet.checkpoint(sim, WAIT_MS);
  expect({ notConverged: r.notConverged, divergences: r.divergences }).toEqual({ notConverged: [], divergences: [] });
  expect({ duplicates: r.events.duplicates, missing: r.events.missing, mismatched: r.events.mismatched, unknown: r.events.unknown }).toEqual({ duplicates: 0, missing: 0, mismatched: 0, unknown: 0 });
  expect(fleet.observableErrors).toEqual([]);
  raw.unsubscribe();
});
