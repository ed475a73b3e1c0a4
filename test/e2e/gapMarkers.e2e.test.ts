/**
 * When the missed stretch of an event stream is longer than the history a resync pages back
 * through, the consumer gets ONE explicit gap marker naming the range, then every later
 * record exactly once; nothing is delivered twice and nothing is silently lost.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { streamKey } from '../../src/protocol';
import type { EventItem, Trade } from '../../src';
import { EventLedger, truthHistory } from '../helpers/truth';
import { startPair, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
afterEach(async () => pair?.close());

test('a stretch longer than the paged history: one gap marker, then exactly once', async () => {
  pair = await startPair({ paused: true, seed: 52 });
  const { sim, client } = pair;
  const market = { market_type: 'perp', market_id: 0 } as const;
  const scope = { market_id: 0, is_perps: true };
  const ledger = new EventLedger<Trade>('trades');
  const items: EventItem<Trade>[] = [];
  const sub = client.trades(market).subscribe((i) => {
    items.push(i);
    ledger.onItem(i);
  });
  const newest = () => truthHistory<Trade>(sim, 'trades', scope, BigInt(Number.MAX_SAFE_INTEGER)).newest ?? 0n;
  const caughtUp = (what: string, target = newest()) =>
    (ledger.lastSequence ?? -1n) >= target ? Promise.resolve() : firstValueFrom(client.trades(market).pipe(filter(() => (ledger.lastSequence ?? -1n) >= target), timeout({ first: WAIT_MS, with: () => { throw new Error(`${what}: delivered up to ${ledger.lastSequence}, truth at ${target}`); } })));
  // The first sync delivers the newest page.
  await caughtUp('first sync');
  sim.step(50);
  await caughtUp('after a few events');
  const watermark = ledger.lastSequence!;

  // Every trades update skipped without a word while far more trades happen than 10 pages of 100 hold.
  sim.faults.skipSilently(streamKey('trades', scope), 1_000_000);
  while (newest() - watermark < 1500n) sim.step(500);
  sim.faults.clear();
  // The next update shows a seq jump: the replica pages back 10 pages and marks the rest as a gap.
  const before = newest();
  while (newest() === before) sim.step(20);
  const target = newest();
  await caughtUp('after the skipped stretch', target);

  const gaps = items.filter((i) => i.kind === 'gap');
  expect(gaps).toEqual([{ kind: 'gap', fromSequence: watermark + 1n, toSequence: expect.any(BigInt), reason: 'history' }]);
  const gap = gaps[0] as { toSequence: bigint };
  // Right after the gap, the oldest record the history walk reached, and from there on every record.
  const afterGap = items.slice(items.indexOf(gaps[0]!) + 1);
  expect(afterGap[0]).toMatchObject({ kind: 'record', sequence: gap.toSequence + 1n });
  expect(target - gap.toSequence).toBeGreaterThanOrEqual(1000n);
  const f = ledger.check(sim, 'trades', scope);
  expect({ duplicates: f.duplicates, missing: f.missing, mismatched: f.mismatched, unknown: f.unknown, examples: f.examples }).toEqual({ duplicates: 0, missing: 0, mismatched: 0, unknown: 0, examples: [] });
  expect(f.gapped).toBeGreaterThan(0);
  expect(client.resyncCounts().seq_jump).toBeGreaterThanOrEqual(1);
  sub.unsubscribe();
});
