/**
 * The connection's state machine: the one place where its state changes. Every change
 * carries a reason and is published on the connection's emitter (`state` event) and on an
 * RxJS `BehaviorSubject` (`state$`), in the order the changes happened.
 */
import { BehaviorSubject, type Observable } from 'rxjs';
import { IllegalStateTransitionError } from './IllegalStateTransitionError';

/**
 * - `idle`: created, never asked to connect (the router connects lazily).
 * - `connecting`: the first socket is being opened.
 * - `open`: a socket is open; frames can be sent.
 * - `reconnecting`: the socket dropped (or the first one failed); waiting for backoff or opening a new one.
 * - `closed`: `close()` was called; terminal.
 * - `failed`: the feed refused for good (`FEED_UNAVAILABLE`) or reconnect attempts ran out; only `close()` remains.
 */
export type ConnectionStateName = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed' | 'failed';

/** One transition, as published on `state` / `state$`. */
export interface StateChange {
  readonly from: ConnectionStateName;
  readonly to: ConnectionStateName;
  readonly reason: string;
}

/** The legal transitions. Anything else is a bug in the connection, not a runtime condition. */
const TRANSITIONS: Readonly<Record<ConnectionStateName, readonly ConnectionStateName[]>> = {
  idle: ['connecting', 'closed'],
  connecting: ['open', 'reconnecting', 'idle', 'failed', 'closed'],
  open: ['reconnecting', 'idle', 'failed', 'closed'],
  reconnecting: ['open', 'idle', 'failed', 'closed'],
  failed: ['closed'],
  closed: [],
};

/** Where state changes are announced besides `state$` (the connection's emitter). */
export interface StateChangeSink {
  emit(event: 'state', change: StateChange): unknown;
}

export class ConnectionState {
  private current: ConnectionStateName = 'idle';
  private readonly subject = new BehaviorSubject<StateChange>({ from: 'idle', to: 'idle', reason: 'created' });
  /** Changes made by listeners while a change is being announced wait here, so announcements keep their order. */
  private readonly queue: StateChange[] = [];
  private announcing = false;

  /** Every state change; the current one is replayed to each new subscriber. */
  readonly state$: Observable<StateChange> = this.subject.asObservable();

  constructor(private readonly sink: StateChangeSink) {}

  get value(): ConnectionStateName {
    return this.current;
  }

  /**
   * Moves to `next` and announces it.
   * @throws IllegalStateTransitionError when the transition is not in the table.
   */
  setState(next: ConnectionStateName, reason: string): void {
    const from = this.current;
    if (!TRANSITIONS[from].includes(next)) throw new IllegalStateTransitionError(from, next, reason);
    this.current = next;
    this.queue.push({ from, to: next, reason });
    if (this.announcing) return;
    this.announcing = true;
    try {
      for (let change = this.queue.shift(); change; change = this.queue.shift()) {
        this.subject.next(change);
        this.sink.emit('state', change);
      }
    } finally {
      this.announcing = false;
      this.queue.length = 0;
    }
    // closed is terminal: state$ completes after announcing it.
    if (this.current === 'closed' && !this.subject.closed) this.subject.complete();
  }
}
