/**
 * The replica of an event stream (trades, fills, funding rates): a StreamSync running the
 * event reducer, whose delivered items go out through an EventFeed, plus the recent log
 * as a state.
 *
 * The replica is the sync's only reader here: for each state shown it hands on the items that
 * state delivered (read, never changed), then shows the recent log on `states$`. So a log
 * emission always comes after its items, whoever subscribes first; and each item goes out
 * once: a state already handed on (a status change, a late subscriber's replay) gives
 * nothing, and an item at or below the last sequence handed on is never handed on again.
 */
import type { Observable, Subscription } from 'rxjs';
import { Multicast } from '../util/Multicast';
import type { EventItem } from './EventItem';
import { EventFeed } from './EventFeed';
import { ReplicaEmission } from './ReplicaEmission';
import type { EventLog, EventLogState } from './eventReducer';
import type { ReplicaState } from './ReplicaState';
import type { ReplicaStatus, StatusChange } from './ReplicaStatus';
import type { ResyncTrigger, StreamSync } from './StreamSync';

export interface EventReplicaOptions {
  /** Items held by each `iterate()` consumer of the feed. @default DEFAULT_EVENT_BUFFER (10000) */
  readonly bufferSize?: number;
  /** Bytes held by each `iterate()` consumer of the feed (items at their estimated size). @default DEFAULT_EVENT_BUFFER_BYTES (16 MiB) */
  readonly bufferBytes?: number;
}

/**
 * @example
 * const trades = createEventReplica('trades', { market_id: 0, is_perps: true }, deps).start();
 * trades.events$.subscribe((item) => (item.kind === 'gap' ? warn(item) : onTrade(item.record)));
 */
export class EventReplica<T> {
  /** The stream key. */
  readonly key: string;
  /** Records (and gap markers) exactly once, in sequence order. See EventFeed. */
  readonly events$: Observable<EventItem<T>>;
  /**
   * The recent log with the replica's status and timing (conflated to the latest), each
   * emission after the items it delivered went out on `events$`.
   */
  readonly states$: Observable<ReplicaState<EventLog<T>>>;
  readonly status$: Observable<StatusChange>;
  private readonly feed: EventFeed<T>;
  private readonly logs = new Multicast<ReplicaState<EventLog<T>>>(true);
  private readonly reading: Subscription;
  /** The last state whose items were handed on. */
  private handedOn?: EventLogState<T>;
  /** The highest sequence handed on (a record's, or a gap's end). */
  private through?: bigint;

  constructor(
    /** The sync running an event reducer. */
    readonly sync: StreamSync<EventLogState<T>>,
    options: EventReplicaOptions = {},
  ) {
    this.key = sync.key;
    this.feed = new EventFeed<T>({ bufferSize: options.bufferSize, bufferBytes: options.bufferBytes });
    this.events$ = this.feed.events$;
    this.status$ = sync.status$;
    this.states$ = this.logs.observable;
    this.reading = sync.states$.subscribe({
      next: (emission) => {
        const { state } = emission;
        if (state !== this.handedOn) {
          this.handOn(state.delivered);
          this.handedOn = state;
        }
        const log: EventLog<T> = { recent: state.recent, lastSequence: state.lastSequence };
        this.logs.next(new ReplicaEmission(emission.status, emission.code, log, emission.seq, emission.timestampNs, emission.receivedAtNs, emission.snapshotId, emission.cause));
      },
      // The sync failed for good (e.g. FEED_UNAVAILABLE): the consumers of the items learn it too.
      error: (error: unknown) => {
        this.feed.fail(error);
        this.logs.error(error);
      },
      complete: () => this.logs.complete(),
    });
  }

  get status(): ReplicaStatus {
    return this.sync.status;
  }

  /** Resyncs started, by trigger. */
  get resyncCounts(): Readonly<Record<ResyncTrigger, number>> {
    return this.sync.resyncCounts;
  }

  start(): this {
    this.sync.start();
    return this;
  }

  /** Closes the sync (ending `states$`), then ends `events$` and every iterator. */
  close(): void {
    this.sync.close();
    this.reading.unsubscribe();
    this.logs.complete();
    this.feed.close();
  }

  /** Hands on the items above the last sequence handed on, in order. */
  private handOn(items: readonly EventItem<T>[]): void {
    for (const item of items) {
      const from = item.kind === 'record' ? item.sequence : item.fromSequence;
      if (this.through !== undefined && from <= this.through) continue;
      this.feed.push(item);
      this.through = item.kind === 'record' ? item.sequence : item.toSequence;
    }
  }
}
