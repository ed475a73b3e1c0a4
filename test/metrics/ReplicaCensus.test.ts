/**
 * ReplicaCensus: `resyncCounts()` sums the replicas running now (what the client always
 * reported); with a watcher, the per-stream counts of a replica that closed are kept (a
 * counter never goes down) and every status of every channel seen is reported, 0 included.
 */
import { Subject, type Unsubscribable } from 'rxjs';
import { RESYNC_TRIGGERS, type ReplicaStatus, type ResyncTrigger } from '../../src/replicas';
import { emptyResyncCounts } from '../../src/replicas/streamSyncOptions';
import { ReplicaCensus, type ReplicaWatcher, type TimedEmission, type TrackedReplica } from '../../src/metrics';

class FakeReplica implements TrackedReplica {
  readonly counts = emptyResyncCounts();
  status: ReplicaStatus = 'syncing';
  readonly emissions = new Subject<TimedEmission>();
  readonly states$ = this.emissions.asObservable();
  closed = 0;
  get resyncCounts(): Readonly<Record<ResyncTrigger, number>> {
    return { ...this.counts };
  }
  close(): void {
    this.closed++;
    this.emissions.complete();
  }
}

class RecordingWatcher implements ReplicaWatcher {
  census?: ReplicaCensus;
  readonly watching = new Map<string, number>();
  attach(census: ReplicaCensus): void {
    this.census = census;
  }
  watch(stream: string): Unsubscribable {
    this.watching.set(stream, (this.watching.get(stream) ?? 0) + 1);
    return { unsubscribe: () => this.watching.set(stream, this.watching.get(stream)! - 1) };
  }
}

function resyncs(census: ReplicaCensus): [string, string, number][] {
  const out: [string, string, number][] = [];
  census.forEachResyncCount((stream, reason, count) => out.push([stream, reason, count]));
  return out.sort();
}

function statuses(census: ReplicaCensus): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  census.forEachStatusCount((channel, status, count) => ((out[channel] ??= {})[status] = count));
  return out;
}

const BOOK = 'book|market_id=0|is_perps=true';
const BBO = 'bbo|market_id=0|is_perps=true';

test('resyncCounts sums the replicas running now; a combined replica counts what it is told to', () => {
  const census = new ReplicaCensus();
  const book = new FakeReplica();
  const account = new FakeReplica();
  const entry = census.track(BOOK, book);
  census.track('accountReplica|account|address=x|subaccount_id=0', account, { resyncCounts: { ...emptyResyncCounts(), manual: 2 } });
  book.counts.seq_jump = 3;
  account.counts.seq_jump = 100; // its parts' resyncs: not its own
  expect(census.resyncCounts()).toEqual({ ...emptyResyncCounts(), seq_jump: 3, manual: 2 });
  entry.close();
  entry.close();
  expect(book.closed).toBe(2); // each close is handed on; the census forgets it once
  expect(census.resyncCounts()).toEqual({ ...emptyResyncCounts(), manual: 2 });
  // Without a watcher nothing is kept past a close.
  expect(resyncs(census)).toEqual([['accountReplica|account|address=x|subaccount_id=0', 'manual', 2]]);
  expect(Object.keys(statuses(census))).toEqual(['accountReplica']);
});

test('with a watcher: per-stream resyncs survive a close and add up over the replicas of a stream; statuses per channel with zeros', () => {
  const watcher = new RecordingWatcher();
  const census = new ReplicaCensus(watcher);
  expect(watcher.census).toBe(census);
  const first = new FakeReplica();
  const entry = census.track(BOOK, first);
  expect(watcher.watching.get(BOOK)).toBe(1);
  first.counts.resync_required = 2;
  first.status = 'live';
  const bbo = new FakeReplica();
  census.track(BBO, bbo);
  bbo.status = 'stale';
  expect(statuses(census)).toEqual({
    book: { syncing: 0, live: 1, resyncing: 0, stale: 0, failed: 0 },
    bbo: { syncing: 0, live: 0, resyncing: 0, stale: 1, failed: 0 },
  });

  entry.close();
  expect(watcher.watching.get(BOOK)).toBe(0);
  expect(census.resyncCounts().resync_required).toBe(0);
  expect(resyncs(census)).toEqual([[BOOK, 'resync_required', 2]]);
  expect(statuses(census).book).toEqual({ syncing: 0, live: 0, resyncing: 0, stale: 0, failed: 0 });

  // The stream again, in a new replica: its counts start at 0, the stream's go on.
  const second = new FakeReplica();
  census.track(BOOK, second);
  second.counts.resync_required = 1;
  second.counts.liveness = 4;
  expect(resyncs(census)).toEqual([
    [BOOK, 'liveness', 4],
    [BOOK, 'resync_required', 3],
  ]);
  expect(RESYNC_TRIGGERS).toContain('liveness');
});
