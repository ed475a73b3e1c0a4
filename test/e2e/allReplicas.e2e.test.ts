/**
 * Every replica the client offers, on a spot and a perp market and two accounts, against
 * the real simulator over sockets: live, then (engine paused) live at the truth's sequence
 * and equal to the truth field by field; again after a socket drop, with new server
 * subscription ids; trades, fills and funding rates delivered exactly once.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { startPair, type Pair } from './harness';
import { ReplicaFleet, type FleetSpec } from './ReplicaFleet';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
let fleet: ReplicaFleet;

afterEach(async () => {
  fleet?.stop();
  await pair?.close();
});

function spec(p: Pair): FleetSpec {
  const traders = p.sim.engine.accounts;
  return {
    markets: [
      { market_type: 'perp', market_id: 1 },
      { market_type: 'spot', market_id: 3 },
    ],
    resolutions: ['1m', '5m', '1h', '1d'],
    markResolutions: ['1m', '1h'],
    accounts: [
      { address: traders[1]!.address, subaccount_id: 0 },
      { address: traders[3]!.address, subaccount_id: 1 },
    ],
  };
}

async function until(f: ReplicaFleet, pred: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
  if (pred()) return;
  await firstValueFrom(f.changed$.pipe(filter(pred), timeout({ first: ms, with: () => { throw new Error(`timed out after ${ms} ms waiting for ${what}; not live: ${f.notLive().join(', ')}`); } })));
}

/** Checks the fleet against the truth; returns how many event records were checked so far (cumulative). */
async function expectExact(p: Pair, f: ReplicaFleet, label: string): Promise<number> {
  p.sim.pause();
  const r = await f.checkpoint(p.sim, WAIT_MS);
  expect({ label, notConverged: r.notConverged, divergences: r.divergences }).toEqual({ label, notConverged: [], divergences: [] });
  // Gap markers are allowed (history bounded); duplicates, missing or altered records are not.
  const { checked, gapped: _gapped, ...faults } = r.events;
  expect({ label, ...faults }).toEqual({ label, duplicates: 0, missing: 0, mismatched: 0, unknown: 0, examples: [] });
  // Exactly once is only shown by records actually checked against the truth.
  expect({ label, checked: checked > 0 }).toEqual({ label, checked: true });
  p.sim.resume();
  return checked;
}

test('every replica, spot and perp, equals the truth; and again after a reconnect with new subscription ids', async () => {
  pair = await startPair({ eventsPerSecond: 400, seed: 11 }, { replica: { livenessMs: 0 } });
  fleet = new ReplicaFleet(pair.client, spec(pair)).start();
  await until(fleet, () => fleet.allLive(), 'every replica live');
  let updates = 0;
  const counted = fleet.changed$.subscribe(() => updates++);
  await until(fleet, () => updates >= 300, '300 replica emissions');
  counted.unsubscribe();
  const checkedSteady = await expectExact(pair, fleet, 'steady');

  const before = new Set(pair.sim.faults.connections().flatMap((c) => c.subscriptions.map((s) => s.id)));
  expect(before.size).toBe(pair.client.activity().serverSubscriptions);
  pair.sim.faults.dropAll();
  await until(fleet, () => fleet.states.every((t) => (t.latest?.snapshotId ?? 0) >= 2) && fleet.allLive(), 'every replica resynced after the drop');
  const after = pair.sim.faults.connections().flatMap((c) => c.subscriptions.map((s) => s.id));
  expect(after.length).toBe(before.size);
  expect(after.filter((id) => before.has(id))).toEqual([]);
  expect(pair.client.connection.generation).toBe(2);
  // Some flow after the reconnect before the checkpoint (on a loaded machine the resync alone may take all the time there is).
  let more = 0;
  const countedAfter = fleet.changed$.subscribe(() => more++);
  await until(fleet, () => more >= 300, '300 replica emissions after the reconnect');
  countedAfter.unsubscribe();
  const checkedInAll = await expectExact(pair, fleet, 'after reconnect');
  // Records delivered after the reconnect were checked too, not only the ones before.
  expect(checkedInAll).toBeGreaterThan(checkedSteady);
  expect(pair.client.resyncCounts().disconnected).toBeGreaterThanOrEqual(fleet.states.length);
  expect(fleet.observableErrors).toEqual([]);
});
