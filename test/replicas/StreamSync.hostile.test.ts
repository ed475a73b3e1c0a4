/** StreamSync against a stream and snapshots that lie: no update is ever dropped silently while live. */
import { SnapshotAheadError } from '../../src/replicas/SnapshotError';
import { ResyncLimiter } from '../../src/replicas/ResyncLimiter';
import { ManualClock } from '../helpers/ManualClock';
import { settle, waitFor } from './fixtures';
import { SyncHarness } from './SyncHarness';

async function liveAt(h: SyncHarness, tag: string, seq: number): Promise<void> {
  h.stream.subscribed();
  h.stream.update(seq, {});
  await h.answer(tag, seq);
  await waitFor(h.sync.states$, (x) => x.status === 'live' && x.state.snapshot === tag);
}

describe('StreamSync: a stream that repeats, regresses or restarts its numbering', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  it('resyncs on a repeated seq instead of dropping it', async () => {
    h = new SyncHarness();
    await liveAt(h, 'A', 10);
    h.stream.update(11, {});
    h.stream.update(11, {});
    expect(h.sync.status).toBe('resyncing');
    expect(h.sync.resyncCounts.seq_regression).toBe(1);
    expect(h.statuses.at(-1)).toMatchObject({ from: 'live', to: 'resyncing', code: 'seq_regression' });
  });

  it('after a restart of the numbering (1, 2, 3 ...) is live and exact again from a snapshot of the new numbering', async () => {
    h = new SyncHarness();
    await liveAt(h, 'A', 1000);
    h.stream.update(1001, {});
    h.stream.update(1, {});
    expect(h.sync.status).toBe('resyncing');
    h.stream.update(2, {});
    h.stream.update(3, {});
    await h.answer('restarted', 2);
    const live = await waitFor(h.sync.states$, (x) => x.status === 'live');
    expect(live).toMatchObject({ seq: 3n, state: { snapshot: 'restarted', applied: [3n] } });
    h.stream.update(4, {});
    expect(h.last).toMatchObject({ status: 'live', seq: 4n, state: { applied: [3n, 4n] } });
  });

  it('a repeat right after a snapshot of a quiet stream is the stream catching up, not a regression', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    await h.answer('A', 10); // nothing buffered: live at once (the contract allows it)
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    h.stream.update(10, {}); // the stream's copy of the snapshot's last update
    h.stream.update(11, {});
    expect(h.last).toMatchObject({ status: 'live', seq: 11n, state: { applied: [11n] } });
    expect(h.fetcher.calls).toHaveLength(1);
  });

  it('leaves live when a quiet stream turns out to be below the snapshot shown (behind it, or renumbered), and takes a new snapshot', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    await h.answer('A', 10);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    h.stream.update(8, {});
    expect(h.sync.status).toBe('resyncing');
    expect(h.sync.resyncCounts.snapshot_ahead).toBe(1);
    h.stream.update(9, {});
    await h.answer('B', 9);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    h.stream.update(10, {});
    expect(h.last).toMatchObject({ status: 'live', seq: 10n, state: { snapshot: 'B', applied: [10n] } });
    expect(h.fetcher.calls).toHaveLength(2);
  });

  it('a jump while catching up resyncs', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    h.stream.update(3, {});
    await h.answer('A', 10);
    await settle();
    h.stream.update(12, {});
    expect(h.sync.resyncCounts.seq_jump).toBe(1);
    expect(h.sync.status).toBe('syncing');
  });
});

describe('StreamSync: a snapshot the stream never catches up with', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  it('is never shown as live, is reported as ERR_SNAPSHOT_AHEAD and fetched again', async () => {
    h = new SyncHarness({ snapshotAheadMs: 50, retryAfterMs: 20 });
    h.stream.subscribed();
    h.stream.update(1, {});
    await h.answer('lying', 10n ** 18n);
    for (let seq = 2; seq < 5; seq++) h.stream.update(seq, {});
    // The refetch comes after the bound and a backoff.
    const second = await h.fetcher.nextCall();
    expect(h.errors.some((e) => e instanceof SnapshotAheadError && e.code === 'ERR_SNAPSHOT_AHEAD')).toBe(true);
    expect(h.sync.resyncCounts.snapshot_ahead).toBe(1);
    expect(h.emissions).toEqual([]);
    expect(h.statuses).toEqual([]);
    h.stream.update(5, {});
    second.resolve({ data: { tag: 'honest' }, sequence: '4', timestamp_ns: '1' });
    const live = await waitFor(h.sync.states$, (x) => x.status === 'live');
    expect(live).toMatchObject({ seq: 5n, state: { snapshot: 'honest', applied: [5n] } });
  });

  it('leaves live for a replica that had a state, while it waits', async () => {
    h = new SyncHarness({ snapshotAheadMs: 60_000 });
    await liveAt(h, 'A', 5);
    h.stream.resyncRequired('gap');
    h.stream.update(6, {});
    await h.answer('lying', 10n ** 18n);
    await settle();
    h.stream.update(7, {});
    expect(h.sync.status).toBe('resyncing');
    expect(h.last).toMatchObject({ status: 'resyncing', state: { snapshot: 'A' } });
  });
});

describe('StreamSync: resync storms are rate-limited per stream', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  it('a storm of resync_required costs the burst, then one snapshot per refill period', async () => {
    const clock = new ManualClock();
    h = new SyncHarness({ resyncBurst: 3, resyncRefillMs: 1000, clock });
    h.stream.subscribed(); // first snapshot: one token
    let seq = 1;
    h.stream.update(seq, {});
    await h.answer('s0', seq);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    // The server asks for a resync again and again; each snapshot comes back at once.
    for (let i = 1; i <= 2; i++) {
      h.stream.resyncRequired('gap');
      h.stream.update(++seq, {});
      await h.answer(`s${i}`, seq);
      await waitFor(h.sync.states$, (x) => x.status === 'live' && x.state.snapshot === `s${i}`);
    }
    expect(h.fetcher.calls).toHaveLength(3);
    h.stream.resyncRequired('gap'); // the budget is spent: no request until time passes
    await settle();
    expect(h.fetcher.calls).toHaveLength(3);
    expect(h.sync.status).toBe('resyncing');
    await clock.advance(999);
    expect(h.fetcher.calls).toHaveLength(3);
    await clock.advance(1);
    const next = await h.fetcher.nextCall(); // the limiter's timer fired
    h.stream.update(++seq, {});
    next.resolve({ data: { tag: 'after' }, sequence: String(seq), timestamp_ns: '1' });
    await waitFor(h.sync.states$, (x) => x.status === 'live' && x.state.snapshot === 'after');
  });
});

describe('ResyncLimiter', () => {
  it('gives the burst, then one per refill period, and tells how long to wait', async () => {
    const clock = new ManualClock();
    const limiter = new ResyncLimiter(2, 1000, clock);
    expect(limiter.take()).toBe(0);
    expect(limiter.take()).toBe(0);
    expect(limiter.take()).toBe(1000);
    await clock.advance(400);
    expect(limiter.take()).toBe(600);
    await clock.advance(600);
    expect(limiter.take()).toBe(0);
    expect(limiter.take()).toBe(1000);
    await clock.advance(99_000);
    expect(limiter.take()).toBe(0);
    expect(limiter.take()).toBe(0);
    expect(limiter.take()).toBeGreaterThan(0);
  });

  it('with refillMs 0 never limits', () => {
    const limiter = new ResyncLimiter(1, 0, new ManualClock());
    for (let i = 0; i < 100; i++) expect(limiter.take()).toBe(0);
  });
});
