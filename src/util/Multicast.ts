/**
 * One producer's values to every current subscriber: what an RxJS `Subject` (or, with
 * `replayLatest`, a `ReplaySubject(1)`) does for the replicas' emissions, without what those
 * cost on every value here. Under Node, RxJS runs its ES5 build: `Subject.next` allocates a
 * closure and an array iterator per call, and `ReplaySubject.next` trims its buffer with a
 * `splice` (a new array per call). Replicas emit on every update, so this sits on the hot path.
 *
 * Same contract as the subjects it replaces: values go out synchronously in subscription order;
 * a subscriber added or removed during a delivery takes effect from the next value; after
 * `error` or `complete` nothing more is delivered, and a late subscriber gets the latest value
 * (with `replayLatest`) then the end. A subscriber's own exceptions are its `Subscriber`'s
 * business (the client guards its callbacks, see `GuardedObservable`).
 * @internal
 */
import { Observable, type Subscriber } from 'rxjs';

type End = { readonly kind: 'error'; readonly error: unknown } | { readonly kind: 'complete' };

export class Multicast<T> {
  /** The subscribers, replaced (never changed in place) on subscribe and unsubscribe: a delivery loops over a stable array. */
  private subscribers: readonly Subscriber<T>[] = [];
  private hasLatest = false;
  private latestValue: T | undefined;
  private end: End | undefined;

  /** Every value from the moment of subscribing (preceded by the latest one with `replayLatest`). */
  readonly observable: Observable<T>;

  /** @param replayLatest a new subscriber first gets the latest value, as from a `ReplaySubject(1)` */
  constructor(private readonly replayLatest = false) {
    this.observable = new Observable<T>((subscriber) => this.add(subscriber));
  }

  /** The latest value (with `replayLatest`; undefined before the first, and without it). */
  get latest(): T | undefined {
    return this.latestValue;
  }

  next(value: T): void {
    if (this.end !== undefined) return;
    if (this.replayLatest) {
      this.latestValue = value;
      this.hasLatest = true;
    }
    const subscribers = this.subscribers;
    for (let i = 0; i < subscribers.length; i++) subscribers[i]!.next(value);
  }

  error(error: unknown): void {
    this.finish({ kind: 'error', error });
  }

  complete(): void {
    this.finish({ kind: 'complete' });
  }

  private finish(end: End): void {
    if (this.end !== undefined) return;
    this.end = end;
    const subscribers = this.subscribers;
    this.subscribers = [];
    for (const s of subscribers) tellEnd(s, end);
  }

  private add(subscriber: Subscriber<T>): (() => void) | undefined {
    if (this.hasLatest) subscriber.next(this.latestValue as T);
    if (this.end !== undefined) {
      tellEnd(subscriber, this.end);
      return undefined;
    }
    this.subscribers = [...this.subscribers, subscriber];
    return () => {
      this.subscribers = this.subscribers.filter((s) => s !== subscriber);
    };
  }
}

function tellEnd<T>(subscriber: Subscriber<T>, end: End): void {
  if (end.kind === 'error') subscriber.error(end.error);
  else subscriber.complete();
}
