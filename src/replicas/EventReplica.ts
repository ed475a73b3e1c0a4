/**
 * The replica of an event stream (trades, fills, funding rates): a StreamSync running the
 * event reducer, whose delivered items go out through an EventFeed, plus the recent log
 * as a state.
 */
import { map, type Observable, type Subscription } from 'rxjs';
import type { EventItem } from './EventItem';
import { EventFeed, type EventIteratorOptions } from './EventFeed';
import type { EventLog, EventLogState } from './eventReducer';
import type { ReplicaState } from './ReplicaState';
import type { ReplicaStatus, StatusChange } from './status';
import type { ResyncTrigger, StreamSync } from './StreamSync';

export interface EventReplicaOptions {
  /** Buffer of each `iterate()` consumer. @default DEFAULT_EVENT_BUFFER (10000) */
  readonly bufferSize?: number;
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
  /** The recent log with the replica's status and timing (conflated to the latest). */
  readonly states$: Observable<ReplicaState<EventLog<T>>>;
  readonly status$: Observable<StatusChange>;
  private readonly feed: EventFeed<T>;
  private readonly drain: Subscription;

  constructor(
    /** The sync running an event reducer. */
    readonly sync: StreamSync<EventLogState<T>>,
    options: EventReplicaOptions = {},
  ) {
    this.key = sync.key;
    this.feed = new EventFeed<T>({ bufferSize: options.bufferSize });
    this.events$ = this.feed.events$;
    this.status$ = sync.status$;
    // Subscribed before anyone else, so the outbox is delivered before the state is shown.
    this.drain = sync.states$.subscribe({
      next: (emission) => {
        const items = emission.state.outbox.splice(0);
        for (const item of items) this.feed.push(item);
      },
      // The sync failed for good (e.g. FEED_UNAVAILABLE): the consumers of the items learn it too.
      error: (error: unknown) => this.feed.fail(error),
    });
    this.states$ = sync.states$.pipe(map((e) => ({ ...e, state: { recent: e.state.recent, lastSequence: e.state.lastSequence } })));
  }

  get status(): ReplicaStatus {
    return this.sync.status;
  }

  /** Resyncs started, by trigger. */
  get resyncCounts(): Readonly<Record<ResyncTrigger, number>> {
    return this.sync.resyncCounts;
  }

  /** A pull-based consumer with a bounded buffer (see EventFeed.iterate). */
  iterate(options: EventIteratorOptions = {}): AsyncIterableIterator<EventItem<T>> {
    return this.feed.iterate(options);
  }

  start(): this {
    this.sync.start();
    return this;
  }

  /** Closes the sync, then ends `events$` and every iterator. */
  close(): void {
    this.sync.close();
    this.drain.unsubscribe();
    this.feed.close();
  }
}
