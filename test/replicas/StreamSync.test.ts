import { config } from 'rxjs';
import { RequestTimeoutError, RestApiError, RestTransportError } from '../../src/errors';
import { SnapshotBehindError } from '../../src/replicas/SnapshotError';
import { ManualClock } from '../helpers/ManualClock';
import { settle, waitFor } from './fixtures';
import { SyncHarness } from './SyncHarness';

describe('StreamSync: snapshot alignment', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  it('buffers from `subscribed`, drops seq <= S, applies S+1.. in order, then goes live', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    const call = await h.fetcher.nextCall();
    expect(call.operation).toBe('bbo');
    expect(call.params).toEqual({ market_type: 'perp', market_id: 0 });
    for (const seq of [3, 4, 5, 6]) h.stream.update(seq, {});
    expect(h.emissions).toEqual([]);
    call.resolve({ data: { tag: 'A' }, sequence: '4', timestamp_ns: '777' });
    const live = await waitFor(h.sync.states$, (e) => e.status === 'live');
    expect(live.state).toEqual({ snapshot: 'A', applied: [5n, 6n] });
    expect(live).toMatchObject({ status: 'live', code: 'snapshot_applied', seq: 6n, snapshotId: 1, cause: 'snapshot', timestampNs: 1000n, receivedAtNs: 1500n });
    expect(h.emissions).toHaveLength(1);
    h.stream.update(7, {});
    expect(h.last).toMatchObject({ seq: 7n, cause: 'update', state: { applied: [5n, 6n, 7n] } });
    expect(h.statuses.map((s) => s.to)).toEqual(['live']);
    expect(h.statuses[0]).toMatchObject({ from: 'syncing', to: 'live', code: 'snapshot_applied' });
  });

  it('emits plain objects with the ReplicaState fields, in their documented order, as own enumerable properties', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    await h.answer('A', 10);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    h.stream.update(11, {});
    const e = h.last!;
    const fields = ['status', 'code', 'state', 'seq', 'timestampNs', 'receivedAtNs', 'snapshotId', 'cause'];
    expect(Object.keys(e)).toEqual(fields);
    // A plain object, as an object literal would be.
    expect(Object.getPrototypeOf(e)).toBe(Object.prototype);
    expect(e.constructor).toBe(Object);
    expect({ ...e }).toEqual({ status: 'live', code: 'snapshot_applied', state: { snapshot: 'A', applied: [11n] }, seq: 11n, timestampNs: e.timestampNs, receivedAtNs: e.receivedAtNs, snapshotId: 1, cause: 'update' });
    // Each emission is its own object: the previous one is left as it was.
    const before = h.emissions[h.emissions.length - 2]!;
    expect(before).toMatchObject({ seq: 10n, cause: 'snapshot' });
  });

  it('is live as soon as the snapshot is applied, without waiting for S+1', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    await h.answer('A', 10);
    const e = await waitFor(h.sync.states$, (x) => x.status === 'live');
    expect(e).toMatchObject({ seq: 10n, timestampNs: 777n, state: { snapshot: 'A', applied: [] } });
  });

  it('holds a snapshot ahead of the stream (not live) and drops what it includes until the stream reaches it', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    h.stream.update(3, {});
    h.stream.update(4, {});
    await h.answer('A', 10);
    await settle();
    expect(h.sync.status).toBe('syncing');
    h.stream.update(9, {});
    expect(h.sync.status).toBe('syncing');
    expect(h.emissions).toEqual([]);
    h.stream.update(10, {});
    expect(h.sync.status).toBe('live');
    h.stream.update(11, {});
    expect(h.last).toMatchObject({ seq: 11n, status: 'live', state: { snapshot: 'A', applied: [11n] } });
    expect(h.fetcher.calls).toHaveLength(1);
  });

  it('fetches again when the snapshot is behind the buffer (next is not S+1)', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    h.stream.update(5, {});
    h.stream.update(6, {});
    await h.answer('old', 2); // needs 3, the buffer starts at 5
    await h.answer('new', 5);
    const e = await waitFor(h.sync.states$, (x) => x.status === 'live');
    expect(e.state).toEqual({ snapshot: 'new', applied: [6n] });
    expect(h.fetcher.calls).toHaveLength(2);
    expect(h.emissions.some((x) => x.state.snapshot === 'old')).toBe(false);
  });

  it('keeps retrying past the scheduler when snapshots stay behind, and reports it', async () => {
    h = new SyncHarness({ retryAfterMs: 1 });
    h.stream.subscribed();
    h.stream.update(8, {});
    for (let i = 0; i < 3; i++) await h.answer(`behind${i}`, 1); // 1 attempt + 2 retries
    await h.answer('ok', 7);
    const e = await waitFor(h.sync.states$, (x) => x.status === 'live');
    expect(e.state).toEqual({ snapshot: 'ok', applied: [8n] });
    expect(h.errors.some((x) => x instanceof SnapshotBehindError)).toBe(true);
  });

  it('fetches again when the buffer itself has a hole', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    h.stream.update(5, {});
    h.stream.update(7, {});
    await h.answer('A', 4); // 5 fits, but 6 is missing
    await h.answer('B', 6);
    const e = await waitFor(h.sync.states$, (x) => x.status === 'live');
    expect(e.state).toEqual({ snapshot: 'B', applied: [7n] });
  });

  it('reports latency of every update through onLatency', async () => {
    const seen: Array<[string, bigint]> = [];
    h = new SyncHarness({ onLatency: (k, ns) => seen.push([k, ns]) });
    h.stream.subscribed();
    h.stream.update(1, {}, 100n, 350n);
    await h.answer('A', 0);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    h.stream.update(2, {}, 1000n, 1010n);
    expect(seen).toEqual([
      ['bbo|market_id=0|is_perps=true', 250n],
      ['bbo|market_id=0|is_perps=true', 10n],
    ]);
  });
});

describe('StreamSync: resync triggers', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  async function goLive(tag = 'A', seq = 10): Promise<void> {
    h.stream.subscribed();
    await h.answer(tag, seq);
    await waitFor(h.sync.states$, (x) => x.status === 'live' && x.state.snapshot === tag);
  }

  it('resync_required: shows the old state as resyncing, then a new state from the new snapshot', async () => {
    h = new SyncHarness();
    await goLive('A', 10);
    h.stream.update(11, {});
    const before = h.last!.state;
    h.stream.resyncRequired('lag');
    expect(h.last).toMatchObject({ status: 'resyncing', code: 'resync_required', cause: 'status', snapshotId: 1 });
    expect(h.last!.state).toBe(before);
    h.stream.update(15, {});
    h.stream.update(16, {});
    await h.answer('B', 14);
    const e = await waitFor(h.sync.states$, (x) => x.snapshotId === 2);
    expect(e).toMatchObject({ status: 'live', cause: 'snapshot', seq: 16n, state: { snapshot: 'B', applied: [15n, 16n] } });
    expect(e.state).not.toBe(before);
    expect(before).toEqual({ snapshot: 'A', applied: [11n] }); // never touched by the resync
    expect(h.sync.resyncCounts.resync_required).toBe(1);
    expect(h.statuses.map((s) => s.to)).toEqual(['live', 'resyncing', 'live']);
    expect(h.statuses.map((s) => s.code)).toEqual(['snapshot_applied', 'resync_required', 'snapshot_applied']);
    expect(h.statuses[1]!.reason).toContain('lag');
  });

  it('a seq jump seen here resyncs, and the jumping update is kept for after the snapshot', async () => {
    h = new SyncHarness();
    await goLive('A', 10);
    h.stream.update(11, {});
    h.stream.update(13, {});
    expect(h.sync.status).toBe('resyncing');
    expect(h.sync.resyncCounts.seq_jump).toBe(1);
    await h.answer('B', 12);
    const e = await waitFor(h.sync.states$, (x) => x.snapshotId === 2);
    expect(e.state).toEqual({ snapshot: 'B', applied: [13n] });
  });

  it('disconnected: stale at once, the fetch in flight aborted, resync on the next subscribed', async () => {
    h = new SyncHarness();
    await goLive('A', 10);
    h.stream.resyncRequired();
    const inFlight = await h.fetcher.nextCall();
    h.stream.disconnected('socket closed');
    expect(inFlight.signal.aborted).toBe(true);
    expect(h.last).toMatchObject({ status: 'stale', state: { snapshot: 'A' } });
    h.stream.update(99, {}); // nothing is subscribed: ignored
    h.stream.subscribed();
    expect(h.sync.status).toBe('resyncing');
    h.stream.update(21, {});
    await h.answer('B', 20);
    const e = await waitFor(h.sync.states$, (x) => x.snapshotId === 2);
    expect(e).toMatchObject({ status: 'live', state: { snapshot: 'B', applied: [21n] } });
    expect(h.sync.resyncCounts).toMatchObject({ disconnected: 1, resync_required: 1 });
    expect(h.statuses.map((s) => s.to)).toEqual(['live', 'resyncing', 'stale', 'resyncing', 'live']);
    expect(h.statuses.map((s) => s.code)).toEqual(['snapshot_applied', 'resync_required', 'disconnected', 'subscribed', 'snapshot_applied']);
  });

  it('a disconnect before the first snapshot goes stale, then syncs again', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    await h.fetcher.nextCall();
    h.stream.disconnected('reset');
    expect(h.sync.status).toBe('stale');
    h.stream.subscribed();
    expect(h.sync.status).toBe('syncing');
    await h.answer('A', 1);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
  });

  it('a new subscribed while live (router resubscribed) resyncs', async () => {
    h = new SyncHarness();
    await goLive('A', 10);
    h.stream.subscribed();
    expect(h.sync.status).toBe('resyncing');
    expect(h.statuses.at(-1)).toMatchObject({ from: 'live', to: 'resyncing', code: 'resubscribed' });
    await h.answer('B', 30);
    await waitFor(h.sync.states$, (x) => x.snapshotId === 2);
    expect(h.sync.resyncCounts.resubscribed).toBe(1);
  });

  it('an integrity error from the reducer resyncs; the rejected update is folded after the snapshot if newer', async () => {
    h = new SyncHarness();
    await goLive('A', 10);
    h.stream.update(11, {});
    h.stream.update(12, { bad: true });
    expect(h.sync.status).toBe('resyncing');
    expect(h.sync.resyncCounts.integrity).toBe(1);
    expect(h.last!.state).toEqual({ snapshot: 'A', applied: [11n] });
    await h.answer('B', 12); // the snapshot includes 12: dropped
    const e = await waitFor(h.sync.states$, (x) => x.snapshotId === 2);
    expect(e.state).toEqual({ snapshot: 'B', applied: [] });
    expect(h.errors[0]).toMatchObject({ name: 'ReplicaIntegrityError' });
  });

  it('manual resync', async () => {
    h = new SyncHarness();
    await goLive('A', 10);
    h.sync.resync('operator');
    expect(h.statuses.at(-1)).toMatchObject({ to: 'resyncing', code: 'manual', reason: 'operator' });
    await h.answer('B', 10);
    await waitFor(h.sync.states$, (x) => x.snapshotId === 2);
    expect(h.sync.resyncCounts.manual).toBe(1);
  });
});

describe('StreamSync: liveness window', () => {
  let h: SyncHarness;
  let clock: ManualClock;
  beforeEach(() => (clock = new ManualClock()));
  afterEach(() => h.close());

  it('resyncs when no update came for livenessMs while subscribed, not before', async () => {
    h = new SyncHarness({ livenessMs: 30_000, clock });
    h.stream.subscribed();
    await h.answer('A', 10);
    await settle();
    expect(h.sync.status).toBe('live');
    await clock.advance(20_000);
    h.stream.update(11, {}); // activity restarts the window
    await clock.advance(20_000);
    expect(h.sync.status).toBe('live');
    await clock.advance(10_000);
    expect(h.sync.status).toBe('resyncing');
    expect(h.sync.resyncCounts.liveness).toBe(1);
    expect(h.statuses[1]).toMatchObject({ from: 'live', to: 'resyncing', code: 'liveness', reason: 'no update for 30000 ms' });
    await h.answer('B', 11);
    await settle();
    expect(h.sync.status).toBe('live');
  });

  it('does not run while disconnected, and is off by default for quiet channels', async () => {
    h = new SyncHarness({ livenessMs: 1000, clock });
    h.stream.subscribed();
    await h.answer('A', 1);
    await settle();
    h.stream.disconnected('down');
    await clock.advance(10_000);
    expect(h.sync.resyncCounts.liveness).toBe(0);
    expect(clock.pendingTimers).toBe(0);
    h.close();

    h = new SyncHarness({ clock }); // channel bbo: no default window
    h.stream.subscribed();
    await h.answer('A', 1);
    await settle();
    await clock.advance(3_600_000);
    expect(h.sync.status).toBe('live');
  });
});

describe('StreamSync: time through the clock', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  it('stamps a snapshot with the clock at receipt, as the source stamps its updates', async () => {
    const clock = new ManualClock(0, 5_000_000_000n);
    await clock.advance(2);
    h = new SyncHarness({ clock });
    h.stream.subscribed();
    await h.answer('A', 10);
    const e = await waitFor(h.sync.states$, (x) => x.status === 'live');
    expect(e).toMatchObject({ cause: 'snapshot', timestampNs: 777n, receivedAtNs: clock.nowNs() });
    expect(e.receivedAtNs).toBe(5_002_000_000n);
  });

  it('a subscribe that timed out goes stale with a state, and subscribes again after retryAfterMs', async () => {
    const clock = new ManualClock();
    h = new SyncHarness({ clock, retryAfterMs: 3000 });
    h.stream.subscribed();
    await h.answer('A', 1);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    h.stream.subject.error(new RequestTimeoutError('subscribe got no answer in 10000 ms'));
    expect(h.sync.status).toBe('stale');
    expect(h.statuses.at(-1)).toMatchObject({ from: 'live', to: 'stale', code: 'subscribe_timeout' });
    const timeouts = () => h.errors.filter((e) => e instanceof RequestTimeoutError).length;
    expect(timeouts()).toBe(1);
    await clock.advance(2999);
    expect(timeouts()).toBe(1);
    await clock.advance(1); // subscribes again (to a subject that errored: it times out again)
    expect(timeouts()).toBe(2);
    expect(h.sync.status).toBe('stale');
  });
});

describe('StreamSync: failures and consumers', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  it('fails for good on a 4xx snapshot answer and releases the stream', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    (await h.fetcher.nextCall()).reject(new RestApiError('NOT_FOUND', 'market 0 not found', { operation: 'bbo', status: 404 }));
    await waitFor(h.sync.status$, (c) => c.to === 'failed' && c.code === 'failed_snapshot');
    expect(h.sync.status).toBe('failed');
    expect(h.stream.observed).toBe(false);
    expect(h.failure).toMatchObject({ code: 'ERR_REST_API', serverCode: 'NOT_FOUND' });
  });

  it('fails when the router refuses the subscription', () => {
    h = new SyncHarness();
    h.stream.subject.error(new Error('INVALID_SUBSCRIPTION'));
    expect(h.sync.status).toBe('failed');
    expect(h.statuses[0]).toMatchObject({ from: 'syncing', to: 'failed', code: 'failed_subscription' });
    expect(h.failure).toMatchObject({ code: 'ERR_INTERNAL', cause: new Error('INVALID_SUBSCRIPTION') });
  });

  it('after transient failures outlast the retries, asks again after retryAfterMs', async () => {
    h = new SyncHarness({ retryAfterMs: 1 });
    h.stream.subscribed();
    for (let i = 0; i < 3; i++) (await h.fetcher.nextCall()).reject(new RestTransportError('ECONNRESET', {}));
    await h.answer('A', 1);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    expect(h.errors.filter((e) => e instanceof RestTransportError)).toHaveLength(1);
  });

  it('a subscriber that throws breaks neither the others nor the replica', async () => {
    const reported: unknown[] = [];
    // RxJS reports a consumer's exception on a timer of its own, once per emission: wait for the one of seq 4.
    let fourth!: () => void;
    const fourthReported = new Promise<void>((resolve) => (fourth = resolve));
    const saved = config.onUnhandledError;
    config.onUnhandledError = (e) => {
      reported.push(e);
      if (e instanceof Error && e.message === 'consumer bug at 4') fourth();
    };
    try {
      h = new SyncHarness();
      h.sync.states$.subscribe((e) => {
        throw new Error(`consumer bug at ${e.seq}`);
      });
      const other: bigint[] = [];
      h.sync.states$.subscribe((e) => other.push(e.seq));
      h.stream.subscribed();
      await h.answer('A', 1);
      await waitFor(h.sync.states$, (x) => x.status === 'live');
      h.stream.update(2, {});
      h.stream.update(3, {});
      expect(other).toEqual([1n, 2n, 3n]);
      expect(h.sync.status).toBe('live');
      // A later emission, whose report comes after those of the first three (timers fire in order).
      h.stream.update(4, {});
      await fourthReported;
      expect(reported.map((e) => (e instanceof Error ? e.message : e))).toEqual([1, 2, 3, 4].map((s) => `consumer bug at ${s}`));
    } finally {
      config.onUnhandledError = saved;
    }
  });

  it('replays the latest emission to a late subscriber and holds no other', async () => {
    h = new SyncHarness();
    h.stream.subscribed();
    await h.answer('A', 1);
    await waitFor(h.sync.states$, (x) => x.status === 'live');
    for (let s = 2; s <= 1000; s++) h.stream.update(s, {});
    const late: bigint[] = [];
    h.sync.states$.subscribe((e) => late.push(e.seq)).unsubscribe();
    expect(late).toEqual([1000n]);
    expect(h.sync.latest?.seq).toBe(1000n);
  });

  it('close() completes the observables and aborts a fetch in flight', async () => {
    h = new SyncHarness();
    let completed = false;
    h.sync.states$.subscribe({ complete: () => (completed = true) });
    h.stream.subscribed();
    const call = await h.fetcher.nextCall();
    h.sync.close();
    expect(call.signal.aborted).toBe(true);
    expect(completed).toBe(true);
    expect(h.stream.observed).toBe(false);
  });
});
