/** The applied hook of StreamSync (internal, for the NATS relay): beside each emission, exactly what the replica applied. */
import type { AppliedChange } from '../../src/replicas/AppliedChange';
import { settle, waitFor } from './fixtures';
import { SyncHarness } from './SyncHarness';

/** A compact view of one hook call: the emission's cause and seq, and what was applied. */
function view({ cause, seq, change }: { cause: string; seq: bigint; change: AppliedChange }): string {
  switch (change.cause) {
    case 'update':
      return `${cause}@${seq}: update ${change.update.seq}`;
    case 'snapshot':
      return `${cause}@${seq}: snapshot ${change.snapshot.sequence} (${(change.snapshot.data as { tag: string }).tag}) + [${change.folded.map((u) => u.seq).join(',')}]`;
    default:
      return `${cause}@${seq}: nothing`;
  }
}

describe('StreamSync: the applied hook', () => {
  let h: SyncHarness;
  afterEach(() => h.close());

  it('tells the snapshot with the buffered updates folded onto it, then each update applied live', async () => {
    h = new SyncHarness({}, undefined, undefined, true);
    h.stream.subscribed();
    const call = await h.fetcher.nextCall();
    for (const seq of [3, 4, 5, 6]) h.stream.update(seq, { n: seq });
    call.resolve({ data: { tag: 'A' }, sequence: '4', timestamp_ns: '777' });
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    h.stream.update(7, { n: 7 }, 2_000n);
    expect(h.applied.map(view)).toEqual(['snapshot@6: snapshot 4 (A) + [5,6]', 'update@7: update 7']);
    const snap = h.applied[0]!.change;
    expect(snap.cause === 'snapshot' && snap.folded.map((u) => u.data)).toEqual([{ n: 5 }, { n: 6 }]);
    const upd = h.applied[1]!.change;
    expect(upd.cause === 'update' && upd.update).toMatchObject({ seq: 7n, timestampNs: 2_000n, data: { n: 7 } });
    // One call per emission, in the same order.
    expect(h.applied.map((a) => a.cause)).toEqual(h.emissions.map((e) => e.cause));
  });

  it('never tells an update the reducer rejected, nor one after a jump; the resync tells its new snapshot', async () => {
    h = new SyncHarness({}, undefined, undefined, true);
    h.stream.subscribed();
    await h.answer('A', 10);
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    h.stream.update(11, {});
    h.stream.update(12, { bad: true }); // rejected: integrity resync, kept for the fold
    expect(h.sync.status).toBe('resyncing');
    h.stream.update(13, {});
    await h.answer('B', 11);
    await settle();
    // Snapshot 11 + the rejected 12 again: rejected again, never told.
    expect(h.sync.status).toBe('resyncing');
    h.stream.update(14, {});
    await h.answer('C', 13);
    await waitFor(h.sync.states$, (e) => e.status === 'live' && e.seq === 14n);
    h.stream.update(16, {}); // a jump: resync, nothing told for it
    expect(h.applied.map(view)).toEqual(['snapshot@10: snapshot 10 (A) + []', 'update@11: update 11', 'status@11: nothing', 'snapshot@14: snapshot 13 (C) + [14]', 'status@14: nothing']);
    expect(h.errors.length).toBeGreaterThanOrEqual(1); // the first rejection (the second is retried by the loader)
  });

  it('tells a snapshot held ahead of the stream once the stream reaches it, with the update that reached past it', async () => {
    h = new SyncHarness({}, undefined, undefined, true);
    h.stream.subscribed();
    h.stream.update(3, {});
    await h.answer('A', 5);
    await settle();
    h.stream.update(4, {});
    h.stream.update(5, {}); // included in the snapshot
    h.stream.update(6, {});
    expect(h.sync.status).toBe('live');
    expect(h.applied.map(view)).toEqual(['snapshot@5: snapshot 5 (A) + []', 'update@6: update 6']);
  });

  it('a quiet snapshot shown at once, then found above the stream, is replaced by a new one', async () => {
    h = new SyncHarness({}, undefined, undefined, true);
    h.stream.subscribed();
    await h.answer('A', 8);
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    h.stream.update(6, {}); // the stream is below the snapshot shown: behind it, or renumbered
    expect(h.sync.status).toBe('resyncing');
    h.stream.update(7, {});
    await h.answer('B', 7);
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    h.stream.update(8, {});
    expect(h.applied.map(view)).toEqual(['snapshot@8: snapshot 8 (A) + []', 'status@8: nothing', 'snapshot@7: snapshot 7 (B) + []', 'update@8: update 8']);
    expect(h.fetcher.calls).toHaveLength(2);
  });

  it('a hook that throws is reported and the replica goes on', async () => {
    h = new SyncHarness({}, undefined, undefined, true);
    h.applied.push = () => {
      throw new Error('hook failed');
    };
    h.stream.subscribed();
    await h.answer('A', 1);
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    h.stream.update(2, {});
    expect(h.errors.map(String)).toEqual(['Error: hook failed', 'Error: hook failed']);
    expect(h.last).toMatchObject({ seq: 2n, status: 'live', state: { applied: [2n] } });
  });

  it('a hook may resync the replica from inside (as the relay does when it cannot carry an update)', async () => {
    h = new SyncHarness({}, undefined, undefined, true);
    const told: string[] = [];
    h.applied.push = (...items) => {
      for (const item of items) told.push(view(item));
      if (told.length === 1) h.sync.resync('asked by the hook');
      return told.length;
    };
    h.stream.subscribed();
    await h.answer('A', 1);
    await waitFor(h.sync.states$, (e) => e.status === 'resyncing');
    h.stream.update(2, {});
    await h.answer('B', 1);
    await waitFor(h.sync.states$, (e) => e.status === 'live');
    expect(told).toEqual(['snapshot@1: snapshot 1 (A) + []', 'status@1: nothing', 'snapshot@2: snapshot 1 (B) + [2]']);
    expect(h.sync.resyncCounts.manual).toBe(1);
  });
});
