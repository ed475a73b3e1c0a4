/** Event streams expose their status through the recent log, sharing one replica with the item stream. */
import { filter, firstValueFrom, timeout } from 'rxjs';
import type { ReplicaStatus, Trade } from '../../src';
import { scopeOf } from '../../src/client/replicaParams';
import { EventLedger, truthOf } from '../helpers/truth';
import { startPair, waitFor, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
beforeEach(async () => {
  pair = await startPair({ eventsPerSecond: 400 });
});
afterEach(async () => {
  await pair.close();
});

/** One emission of the log, as seen with the items delivered before it. */
interface Seen {
  readonly status: ReplicaStatus;
  readonly snapshotId: number;
  readonly lastSequence: bigint | undefined;
  /** The newest record of the recent log, and whether the log is strictly increasing. */
  readonly newestRecent: bigint | undefined;
  readonly recentOrdered: boolean;
  /** The highest sequence the item stream had delivered when the log was emitted. */
  readonly itemsThrough: bigint | undefined;
}

it('recentTrades and trades share one replica; the log carries the status and heals after a drop', async () => {
  const m = { market_type: 'perp', market_id: 0 } as const;
  const ledger = new EventLedger<Trade>('trades');
  const a = pair.client.trades(m).subscribe((i) => ledger.onItem(i));
  const log$ = pair.client.recentTrades(m);
  const seen: Seen[] = [];
  const b = log$.subscribe((e) => {
    const seqs = e.state.recent.map((r) => BigInt(r.sequence));
    seen.push({
      status: e.status,
      snapshotId: e.snapshotId,
      lastSequence: e.state.lastSequence,
      newestRecent: seqs[seqs.length - 1],
      recentOrdered: seqs.every((s, i) => i === 0 || s > seqs[i - 1]!),
      itemsThrough: ledger.lastSequence,
    });
  });
  expect(pair.client.activity().replicas).toBe(1);
  const live = await waitFor(log$, (e) => e.status === 'live' && e.state.recent.length > 0, 'trade log live');
  expect(live.state.recent.length).toBeGreaterThan(0);
  pair.sim.faults.dropAll();
  await waitFor(log$, (e) => e.status !== 'live', 'trade log not live after a drop');
  await waitFor(log$, (e) => e.status === 'live' && e.snapshotId >= 2, 'trade log live again');

  // The statuses: live, then (the drop) only stale or resyncing, then live again on a new snapshot.
  const runs = seen.map((s) => s.status).filter((s, i, all) => i === 0 || s !== all[i - 1]);
  const firstLive = runs.indexOf('live');
  expect(firstLive).toBeGreaterThanOrEqual(0);
  expect(runs.slice(0, firstLive).every((s) => s === 'syncing')).toBe(true);
  const afterDrop = runs.slice(firstLive + 1);
  expect(afterDrop[afterDrop.length - 1]).toBe('live');
  expect(afterDrop.length).toBeGreaterThanOrEqual(2);
  expect(afterDrop.slice(0, -1).every((s) => s === 'stale' || s === 'resyncing')).toBe(true);
  const relive = seen.findIndex((s, i) => i > 0 && s.status === 'live' && seen[i - 1]!.status !== 'live' && s.snapshotId >= 2);
  expect(relive).toBeGreaterThan(0);
  for (const s of seen.slice(0, relive)) expect(s.snapshotId).toBe(1);

  // The content: every log ends where the items delivered before it end, its recent records in order up to it.
  for (const s of seen) {
    expect(s.itemsThrough).toBe(s.lastSequence);
    expect(s.recentOrdered).toBe(true);
    if (s.newestRecent !== undefined) expect(s.newestRecent).toBe(s.lastSequence);
  }

  // Delivered exactly once, in order, equal to the exchange's records (none missing across the drop).
  pair.sim.pause();
  const scope = scopeOf('trades', m);
  const newest = (truthOf(pair.sim, 'trades', scope).data as { sequence: string }[]).reduce<bigint | undefined>((n, r) => (n === undefined || BigInt(r.sequence) > n ? BigInt(r.sequence) : n), undefined);
  if (newest !== undefined && (ledger.lastSequence === undefined || ledger.lastSequence < newest)) {
    await firstValueFrom(log$.pipe(filter((e) => e.state.lastSequence !== undefined && e.state.lastSequence >= newest), timeout(WAIT_MS)));
  }
  const findings = ledger.check(pair.sim, 'trades', scope);
  pair.sim.resume();
  // Gap markers would be allowed (bounded history); duplicates, missing or altered records are not.
  const { checked, gapped: _gapped, ...faults } = findings;
  expect(faults).toEqual({ duplicates: 0, missing: 0, mismatched: 0, unknown: 0, examples: [] });
  expect(checked).toBeGreaterThan(0);

  a.unsubscribe();
  b.unsubscribe();
  expect(pair.client.activity()).toMatchObject({ replicas: 0, serverSubscriptions: 0 });
});
