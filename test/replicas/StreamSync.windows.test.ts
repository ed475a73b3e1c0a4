/**
 * The windows between states: what lands while a snapshot is on its way. Each case was a
 * replica shown `live` and wrong (or never live again); the model-based test
 * (StreamSync.model.test.ts) covers the class.
 */
import { RestApiError } from '../../src/errors';
import { ManualClock } from '../helpers/ManualClock';
import { settle, waitFor } from './fixtures';
import { SyncHarness } from './SyncHarness';

/** Answers call `index` (0-based) with `tag` at `seq`, aborted or not (an aborted one must have no effect). */
async function answerCall(h: SyncHarness, index: number, tag: string, seq: number): Promise<void> {
  const call = await h.fetcher.callAt(index);
  call.resolve({ data: { tag }, sequence: String(seq), timestamp_ns: '777' });
  await settle();
}

describe('StreamSync: events that land while a snapshot is on its way', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  it('a numbering that restarts under a snapshot request: the old buffered update is never folded onto a new-numbering snapshot', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    h.stream.update(101, {}); // old numbering
    h.stream.update(1, {}); // the exchange restarted at 1
    h.stream.update(2, {});
    await answerCall(h, 0, 'new@100', 100); // the request sent before the restart, answered in the new numbering
    expect(h.sync.status).not.toBe('live');
    expect(h.fetcher.calls[0]!.signal.aborted).toBe(true);
    await answerCall(h, 1, 'N', 2);
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    h.stream.update(3, {});
    expect(h.last).toMatchObject({ status: 'live', seq: 3n, state: { snapshot: 'N', applied: [3n] } });
    expect(h.emissions.filter((e) => e.status === 'live').every((e) => e.state.snapshot === 'N')).toBe(true);
  });

  it.each(['gap', 'lag', 'invalid_update'] as const)('resync_required (%s) on a quiet stream while a snapshot is on its way: that snapshot is not shown, a new one is', async (reason) => {
    h = new SyncHarness();
    h.stream.subscribed();
    h.stream.update(101, {});
    h.stream.update(102, {});
    h.stream.resyncRequired(reason); // 103 skipped; the stream is quiet afterwards
    await answerCall(h, 0, 'old', 102);
    expect(h.sync.status).not.toBe('live');
    expect(h.sync.resyncCounts.resync_required).toBe(1);
    await answerCall(h, 1, 'fresh', 103);
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    expect(h.last).toMatchObject({ status: 'live', seq: 103n, state: { snapshot: 'fresh', applied: [] } });
  });

  it('a restart during a resync does not block every later snapshot: live again in the new numbering', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    h.stream.update(100, {});
    await answerCall(h, 0, 'A', 100);
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    h.stream.update(102, {}); // a jump: resync, 102 kept for the next snapshot
    expect(h.sync.status).toBe('resyncing');
    h.stream.update(1, {}); // the exchange restarted
    h.stream.update(2, {});
    h.stream.update(3, {});
    const last = h.fetcher.calls.length - 1;
    await answerCall(h, last, 'N', 3);
    await waitFor(h.sync.states$, (e) => e.status === 'live' && e.state.snapshot === 'N');
    h.stream.update(4, {});
    expect(h.last).toMatchObject({ status: 'live', seq: 4n, state: { snapshot: 'N', applied: [4n] } });
    expect(h.errors.some((e) => (e as { code?: string }).code === 'ERR_SNAPSHOT_BEHIND')).toBe(false);
  });

  it('a snapshot held ahead of the stream is dropped when the stream restarts its numbering below it', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    h.stream.update(5, {});
    await answerCall(h, 0, 'old@8', 8); // ahead: held until the stream reaches 8
    expect(h.sync.status).not.toBe('live');
    h.stream.update(1, {}); // restarted: 1..8 of the new numbering must not confirm the old 8
    for (let s = 2; s <= 9; s++) h.stream.update(s, {});
    expect(h.emissions.some((e) => e.status === 'live' && e.state.snapshot === 'old@8')).toBe(false);
    expect(h.sync.resyncCounts.seq_regression).toBe(1);
  });

  it('holds updates within maxBufferedBytes while a snapshot is on its way, reports the overflow once, and heals', async () => {
    h = new SyncHarness({ maxBufferedBytes: 10_000 });
    h.stream.subscribed();
    // 1 MB updates would hold 3 GB over 3,000 of them; each counts at its frame length.
    for (let s = 1; s <= 3000; s++) h.stream.subject.next({ kind: 'update', seq: BigInt(s), timestampNs: 1n, receivedAtNs: 2n, data: {}, size: 1_000 });
    const overflows = h.errors.filter((e) => (e as { code?: string }).code === 'ERR_BUFFER_OVERFLOW');
    expect(overflows).toHaveLength(1);
    await answerCall(h, 0, 'behind', 100); // behind the oldest kept (2991): refused, fetched again
    expect(h.sync.status).not.toBe('live');
    await answerCall(h, 1, 'S', 2995); // the retry
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    expect(h.last).toMatchObject({ seq: 3000n, state: { snapshot: 'S', applied: [2996n, 2997n, 2998n, 2999n, 3000n] } });
  });

  it("waits what a 429 snapshot answer's Retry-After asked (30 s, not retryAfterMs), up to maxRetryAfterMs", async () => {
    const clock = new ManualClock();
    h = new SyncHarness({ clock, retryAfterMs: 5_000, maxRetryAfterMs: 60_000 });
    h.stream.subscribed();
    const call = await h.fetcher.callAt(0);
    call.reject(new RestApiError('RATE_LIMITED', 'slow down', { operation: 'bbo', status: 429, retryAfterMs: 30_000 }));
    await clock.advance(29_999);
    expect(h.fetcher.calls).toHaveLength(1);
    await clock.advance(1);
    expect(h.fetcher.calls).toHaveLength(2);
    // Beyond the cap: asked 10 minutes, waits maxRetryAfterMs.
    h.fetcher.calls[1]!.reject(new RestApiError('RATE_LIMITED', 'slow down', { operation: 'bbo', status: 429, retryAfterMs: 600_000 }));
    await clock.advance(59_999);
    expect(h.fetcher.calls).toHaveLength(2);
    await clock.advance(1);
    expect(h.fetcher.calls).toHaveLength(3);
  });
});
