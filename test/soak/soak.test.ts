/**
 * A short seeded chaos soak (15 s of faults at 6 a second, about as many as 45 s at the long run's pace): one client, 46 replicas across spot and perp
 * markets and two accounts, under random faults, queue overflows and HEARTBEAT_TIMEOUT
 * silences. Zero divergence, zero unhandled error, zero lost or duplicate event; every
 * socket and timer released at the end. `npm run soak` runs the long one.
 */
import { runSoak } from './soakRunner';

jest.setTimeout(150_000);

test('15 s of chaos: no divergence, no unhandled error, no lost or duplicate event, nothing leaked', async () => {
  const report = await runSoak({ seed: 20_251_122, durationMs: 15_000, checkpointEveryMs: 5_000, faultsPerSecond: 6 });
  if (!report.ok || process.env.SOAK_PRINT) console.log(report.markdown);
  expect(report.divergences).toEqual([]);
  expect(report.unhandled).toEqual([]);
  expect(report.unexpectedErrors).toEqual([]);
  expect({ duplicates: report.events.duplicates, missing: report.events.missing, mismatched: report.events.mismatched, unknown: report.events.unknown }).toEqual({ duplicates: 0, missing: 0, mismatched: 0, unknown: 0 });
  // The run was a real one: faults of many kinds hit, checkpoints compared, events checked.
  expect(Object.values(report.faults).filter((n) => n > 0).length).toBeGreaterThanOrEqual(6);
  expect(report.checkpoints.length).toBeGreaterThanOrEqual(3);
  expect(report.events.checked).toBeGreaterThan(1000);
  expect(report.recovery.unrecovered).toBe(0);
  // Every socket and server the run opened was released (timers: see test/e2e/resourceBounds.e2e.test.ts, in a process of its own).
  for (const kind of ['TCPSocketWrap', 'TCPServerWrap']) expect({ kind, leftOver: (report.end.handles[kind] ?? 0) > (report.start.handles[kind] ?? 0) }).toEqual({ kind, leftOver: false });
});
