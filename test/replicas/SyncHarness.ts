/** A StreamSync on a hand-driven stream and fetcher, with a reducer that records what it folded. */
import type { Scope } from '../../src/protocol';
import type { AppliedChange } from '../../src/replicas/AppliedChange';
import type { Reducer } from '../../src/replicas/Reducer';
import { ReplicaIntegrityError } from '../../src/replicas/ReplicaIntegrityError';
import type { ReplicaState } from '../../src/replicas/ReplicaState';
import { ResyncScheduler, type ResyncSchedulerOptions } from '../../src/replicas/ResyncScheduler';
import type { StatusChange } from '../../src/replicas/ReplicaStatus';
import { StreamSync, type StreamSyncOptions } from '../../src/replicas/StreamSync';
import { FakeFetcher, FakeStream, fakeSource } from './fixtures';

/** State of the recording reducer: which snapshot it came from and the seqs folded since. */
export interface Tape {
  readonly snapshot: string;
  readonly applied: readonly bigint[];
}

/** Update data `{ bad: true }` makes `apply` throw an integrity error. */
export const tapeReducer: Reducer<Tape> = {
  channel: 'bbo',
  fromSnapshot: (data) => ({ snapshot: (data as { tag: string }).tag, applied: [] }),
  apply(state, data, seq) {
    if ((data as { bad?: boolean } | undefined)?.bad) throw new ReplicaIntegrityError(`update ${seq} crosses the book`);
    return { snapshot: state.snapshot, applied: [...state.applied, seq] };
  },
};

export const bboScope: Scope = { market_id: 0, is_perps: true };

export const fastRetry = { retries: 2, initialDelayMs: 1, maxDelayMs: 2, factor: 1, jitter: 0 };

export class SyncHarness {
  readonly stream = new FakeStream();
  readonly fetcher = new FakeFetcher();
  readonly scheduler: ResyncScheduler;
  readonly sync: StreamSync<Tape>;
  readonly emissions: ReplicaState<Tape>[] = [];
  readonly statuses: StatusChange[] = [];
  readonly errors: unknown[] = [];
  /** What the applied hook told, with the emission's cause and seq (only with `recordApplied`). */
  readonly applied: { readonly cause: string; readonly seq: bigint; readonly change: AppliedChange }[] = [];
  /** The error `states$` ended with, once failed. */
  failure: unknown;

  /** @param recordApplied set the applied hook (recorded in `applied`) */
  constructor(options: StreamSyncOptions = {}, schedulerOptions: ResyncSchedulerOptions = { retry: fastRetry }, reducer: Reducer<Tape> = tapeReducer, recordApplied = false) {
    this.scheduler = new ResyncScheduler(schedulerOptions);
    const onApplied = recordApplied ? (e: ReplicaState<Tape>, change: AppliedChange) => void this.applied.push({ cause: e.cause, seq: e.seq, change }) : undefined;
    this.sync = new StreamSync<Tape>(
      { channel: 'bbo', scope: bboScope, reducer, source: fakeSource(this.stream, this.fetcher), scheduler: this.scheduler, onApplied },
      { onError: (e) => this.errors.push(e), ...options },
    );
    // A failed replica errors states$ with the cause (recorded with the survived errors).
    this.sync.states$.subscribe({ next: (e) => this.emissions.push(e), error: (e: unknown) => (this.failure = e) });
    this.sync.status$.subscribe((c) => this.statuses.push(c));
    this.sync.start();
  }

  /** Answers the next snapshot request with `tag` at sequence `seq`. */
  async answer(tag: string, seq: number | bigint): Promise<void> {
    const call = await this.fetcher.nextCall();
    call.resolve({ data: { tag }, sequence: String(seq), timestamp_ns: '777' });
  }

  get last(): ReplicaState<Tape> | undefined {
    return this.emissions[this.emissions.length - 1];
  }

  close(): void {
    this.sync.close();
    this.scheduler.close();
  }
}
