/**
 * The observables the client hands out. RxJS reports an exception thrown by a subscriber's
 * callback through its process-wide unhandled-error hook, which by default rethrows it on a
 * timer: that would take a trading process down, and a library must leave that hook alone. So the client catches such exceptions where it calls the subscriber: the callbacks
 * given to `subscribe` are wrapped before RxJS sees them, and a throw goes to the client's
 * `errors$` as a `SubscriberError` (the replica and the other subscribers are unaffected).
 * The same holds through `pipe(...)` (operators lift into a `GuardedObservable`). A
 * subscriber without an `error` callback does not make a failure (e.g. FEED_UNAVAILABLE) an
 * uncaught exception either: it is reported on `errors$`.
 * @internal
 */
import { Observable, Subscriber, type Operator, type Observer, type Subscription, type TeardownLogic } from 'rxjs';
import { SubscriberError } from '../errors';
import { messageOf } from '../errors/messageOf';

/** Where the guard sends what a subscriber threw, and failures nobody handled. */
export type GuardSink = (error: unknown, what: 'next' | 'error' | 'complete' | 'unhandled') => void;

export class GuardedObservable<T> extends Observable<T> {
  constructor(
    private readonly sink: GuardSink,
    subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => TeardownLogic,
  ) {
    super(subscribe);
  }

  /** Keeps the guard on observables derived with `pipe` (RxJS operators lift through here). */
  override lift<R>(operator?: Operator<T, R>): Observable<R> {
    const observable = new GuardedObservable<R>(this.sink);
    observable.source = this;
    observable.operator = operator;
    return observable;
  }

  override subscribe(observerOrNext?: Partial<Observer<T>> | ((value: T) => void) | null): Subscription;
  /** @deprecated Use an observer object (as RxJS itself advises). */
  override subscribe(next?: ((value: T) => void) | null, error?: ((error: unknown) => void) | null, complete?: (() => void) | null): Subscription;
  override subscribe(
    observerOrNext?: Partial<Observer<T>> | ((value: T) => void) | null,
    error?: ((error: unknown) => void) | null,
    complete?: (() => void) | null,
  ): Subscription {
    // Operators subscribe with their own Subscriber: errors there belong to the operator chain.
    if (observerOrNext instanceof Subscriber) return super.subscribe(observerOrNext);
    const observer: Partial<Observer<T>> =
      typeof observerOrNext === 'function' || observerOrNext == null ? { next: observerOrNext ?? undefined, error: error ?? undefined, complete: complete ?? undefined } : observerOrNext;
    return super.subscribe(this.guard(observer));
  }

  private guard(observer: Partial<Observer<T>>): Partial<Observer<T>> {
    const sink = this.sink;
    const call = <A>(what: 'next' | 'error' | 'complete', fn: ((arg: A) => void) | undefined, arg: A): void => {
      if (!fn) return;
      try {
        fn.call(observer, arg);
      } catch (e) {
        sink(e, what);
      }
    };
    const next = observer.next;
    return {
      // `next` is the hot one: its own closure, no generic dispatch.
      next: next
        ? (value) => {
            try {
              next.call(observer, value);
            } catch (e) {
              sink(e, 'next');
            }
          }
        : () => undefined,
      error: (e: unknown) => (observer.error ? call('error', observer.error, e) : sink(e, 'unhandled')),
      complete: () => call('complete', observer.complete, undefined),
    };
  }
}

/** The `SubscriberError` reported for an exception of a subscriber's callback. */
export function subscriberError(cause: unknown, what: 'next' | 'error' | 'complete'): SubscriberError {
  return new SubscriberError(`a subscriber's ${what} callback threw: ${messageOf(cause)}`, {}, { cause });
}
