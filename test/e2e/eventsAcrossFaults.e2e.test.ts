/**
 * Trades, fills and funding rates across every kind of feed fault: each record delivered
 * exactly once, in order, equal to the truth's history, or covered by an explicit gap
 * marker; state replicas of the same client equal the truth after each fault.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { streamKey } from '../../src/protocol';
import type { ResyncTrigger } from '../../src';
import { startPair, type Pair } from './harness';
import { ReplicaFleet } from './ReplicaFleet';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
let fleet: ReplicaFleet;
afterEach(async () => {
  fleet?.stop();
  await pair?.close();
});

async function checkpoint(label: string): Promise<void> {
  pair.sim.pause();
  const r = await fleet.checkpoint(pair.sim, WAIT_MS);
  expect({ label, notConverged: r.notConverged, divergences: r.divergences }).toEqual({ label, notConverged: [], divergences: [] });
  expect({ label, duplicates: r.events.duplicates, missing: r.events.missing, mismatched: r.events.mismatched, unknown: r.events.unknown, examples: r.events.examples }).toEqual({ label, duplicates: 0, missing: 0, mismatched: 0, unknown: 0, examples: [] });
  expect(r.events.checked).toBeGreaterThan(0);
  pair.sim.resume();
}

/** Waits until the client counted more resyncs of `trigger` than `before`, and everything is live again. */
async function resynced(trigger: ResyncTrigger, before: number, what: string): Promise<void> {
  await firstValueFrom(
    fleet.changed$.pipe(
      filter(() => pair.client.resyncCounts()[trigger] > before && fleet.allLive()),
      timeout({ first: WAIT_MS, with: () => { throw new Error(`${what}: no ${trigger} resync (${JSON.stringify(pair.client.resyncCounts())}); not live: ${fleet.notLive().join(', ')}`); } }),
    ),
  );
}

test('every kind of fault: events exactly once or gap-marked, states exact', async () => {
  pair = await startPair({ eventsPerSecond: 600, seed: 33 }, { replica: { livenessMs: 1000 } });
  const { sim, client } = pair;
  const a = sim.engine.accounts;
  const accounts = [
    { address: a[1]!.address, subaccount_id: 1 },
    { address: a[4]!.address, subaccount_id: 0 },
  ];
  fleet = new ReplicaFleet(client, { markets: [{ market_type: 'perp', market_id: 0 }, { market_type: 'spot', market_id: 4 }], resolutions: ['1m'], markResolutions: [], accounts }).start();
  await firstValueFrom(fleet.changed$.pipe(filter(() => fleet.allLive()), timeout(WAIT_MS)));
  const tradesPerp = streamKey('trades', { market_id: 0, is_perps: true });
  const tradesSpot = streamKey('trades', { market_id: 4, is_perps: false });
  const fills0 = streamKey('fills', accounts[0]!);
  const fills1 = streamKey('fills', accounts[1]!);
  const counts = () => client.resyncCounts();

  let c = counts();
  sim.faults.resyncStream(tradesPerp, 3);
  sim.faults.resyncStream(fills0, 2);
  await resynced('resync_required', c.resync_required + 1, 'resync_required');
  await checkpoint('resync_required');

  c = counts();
  // The event streams may be quiet for longer than the 1 s liveness window, and a liveness
  // resync absorbs their gap before any update shows the jump: the busy perp book is the
  // stream whose jump is always seen; the event streams' gaps must still end exact.
  sim.faults.skipSilently(streamKey('book', { market_id: 0, is_perps: true }), 2);
  sim.faults.skipSilently(tradesSpot, 2);
  sim.faults.skipSilently(fills1, 1);
  await resynced('seq_jump', c.seq_jump, 'silent seq gap');
  await checkpoint('silent seq gap');

  c = counts();
  sim.faults.stallStream(tradesPerp, 1500);
  sim.faults.stallStream(streamKey('book', { market_id: 0, is_perps: true }), 2500);
  await resynced('liveness', c.liveness, 'stalled streams');
  await checkpoint('stalled streams');

  c = counts();
  sim.faults.delayFramesFor(150, 800);
  sim.faults.stallConnection(700);
  await checkpoint('stalled connection and delayed frames');

  c = counts();
  sim.faults.dropAll();
  await resynced('disconnected', c.disconnected, 'socket drop');
  await checkpoint('socket drop');

  expect(fleet.observableErrors).toEqual([]);
});
