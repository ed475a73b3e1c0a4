/**
 * How an event replica hands on what its reducer delivered: each state carries its own items
 * (a value, never changed afterwards), a fold shown as one state carries the items of every
 * step, the recent log is emitted after its items, and nothing goes out twice.
 */
import { firstValueFrom, type Observable } from 'rxjs';
import type { Trade } from '../../src/protocol';
import { eventReducer } from '../../src/replicas/channelReducers';
import { createEventReplica, createReplicaWith } from '../../src/replicas/createReplica';
import type { EventItem } from '../../src/replicas/EventItem';
import type { EventLogState } from '../../src/replicas/eventReducer';
import { EventReplica } from '../../src/replicas/EventReplica';
import type { Reducer } from '../../src/replicas/Reducer';
import type { ReplicaState } from '../../src/replicas/ReplicaState';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { FakeFetcher, FakeStream, fakeSource, trade, waitFor } from './fixtures';
import { fastRetry } from './SyncHarness';

const scope = { market_id: 0, is_perps: false };
const page = (from: number, to: number, sequence: number) => ({ data: Array.from({ length: to - from + 1 }, (_, i) => trade(to - i)), sequence: String(sequence), next_cursor: null });
const seqs = (items: readonly EventItem<Trade>[]) => items.map((i) => (i.kind === 'record' ? Number(i.sequence) : `gap ${i.fromSequence}-${i.toSequence}`));
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

function setup(reducer?: Reducer<EventLogState<Trade>>) {
  const stream = new FakeStream();
  const fetcher = new FakeFetcher();
  const scheduler = new ResyncScheduler({ retry: fastRetry });
  const deps = { source: fakeSource(stream, fetcher), scheduler };
  const replica = reducer ? new EventReplica(createReplicaWith('trades', scope, reducer, deps, { retryAfterMs: 1 })) : createEventReplica('trades', scope, deps, { retryAfterMs: 1 });
  const items: EventItem<Trade>[] = [];
  replica.events$.subscribe((i) => items.push(i));
  replica.start();
  const close = () => {
    replica.close();
    scheduler.close();
  };
  return { stream, fetcher, replica, items, close };
}

/** Every emission of `source` from now on. */
function record<T>(source: Observable<T>): T[] {
  const out: T[] = [];
  source.subscribe((v) => out.push(v));
  return out;
}

describe('EventReplica', () => {
  let t: ReturnType<typeof setup>;
  afterEach(() => t.close());

  it('a snapshot shown with the updates buffered meanwhile delivers the records of every one of them', async () => {
    t = setup();
    t.stream.subscribed();
    (await t.fetcher.nextCall()).resolve(page(1, 10, 5));
    await waitFor(t.replica.states$, (e) => e.snapshotId === 1);
    t.stream.resyncRequired('gap');
    const call = await t.fetcher.nextCall();
    // Buffered while the snapshot (at seq 8: up to record 12) is on its way: 9..11 fold into it.
    t.stream.update(9, { trades: [trade(13)] });
    t.stream.update(10, { trades: [trade(14), trade(15)] });
    t.stream.update(11, { trades: [trade(16)] });
    call.resolve(page(3, 12, 8));
    const shown = await waitFor(t.replica.states$, (e) => e.snapshotId === 2);
    expect(shown.seq).toBe(11n);
    expect(seqs(t.items)).toEqual(range(1, 16));
  });

  it('emitted states are values: later updates leave their delivered items as they were', async () => {
    t = setup();
    const emitted = record(t.replica.sync.states$);
    t.stream.subscribed();
    (await t.fetcher.nextCall()).resolve(page(1, 3, 1));
    await waitFor(t.replica.states$, (e) => e.status === 'live');
    t.stream.update(2, { trades: [trade(4)] });
    t.stream.update(3, { trades: [trade(5), trade(6)] });
    t.stream.update(4, { trades: [trade(6)] }); // nothing new: the state is shown again as it was
    expect(emitted.map((e) => seqs(e.state.delivered))).toEqual([[1, 2, 3], [4], [5, 6], [5, 6]]);
    expect(emitted[3]!.state).toBe(emitted[2]!.state);
    expect(seqs(t.items)).toEqual(range(1, 6));
  });

  it('each log emission comes after its items, for a subscriber of states$ that came first', async () => {
    t = setup();
    const atEmission: Array<[bigint | undefined, number]> = [];
    t.replica.states$.subscribe((e) => atEmission.push([e.state.lastSequence, t.items.length]));
    t.stream.subscribed();
    (await t.fetcher.nextCall()).resolve(page(1, 3, 1));
    await waitFor(t.replica.states$, (e) => e.status === 'live');
    t.stream.update(2, { trades: [trade(4), trade(5)] });
    expect(atEmission).toEqual([
      [3n, 3],
      [5n, 5],
    ]);
  });

  it('a late subscriber, a status change or a second replica read delivers nothing twice', async () => {
    t = setup();
    t.stream.subscribed();
    (await t.fetcher.nextCall()).resolve(page(1, 3, 1));
    await waitFor(t.replica.states$, (e) => e.status === 'live');
    t.stream.update(2, { trades: [trade(4)] });
    const late: ReplicaState<unknown> = await firstValueFrom(t.replica.states$);
    expect(late.seq).toBe(2n);
    record(t.replica.sync.states$); // another reader of the sync replays its latest state too
    t.stream.disconnected('x'); // a status emission of the same state
    await waitFor(t.replica.states$, (e) => e.status === 'stale');
    expect(seqs(t.items)).toEqual(range(1, 4));
  });

  it('never hands on an item at or below the last sequence handed on, even if a reducer delivers it again', async () => {
    const base = eventReducer('trades');
    // A faulty reducer: every state also repeats the items of the state it came from.
    const repeating: Reducer<EventLogState<Trade>> = {
      ...base,
      apply: (state, data, seq) => {
        const next = base.apply(state, data, seq);
        return next === state ? state : { ...next, delivered: [...state.delivered, ...next.delivered] };
      },
    };
    t = setup(repeating);
    t.stream.subscribed();
    (await t.fetcher.nextCall()).resolve(page(1, 3, 1));
    await waitFor(t.replica.states$, (e) => e.status === 'live');
    t.stream.update(2, { trades: [trade(4)] });
    t.stream.update(3, { trades: [trade(5)] });
    expect(seqs(t.items)).toEqual(range(1, 5));
  });
});
