/**
 * Multicast against the RxJS subjects it replaces (`Subject`, and `ReplaySubject(1)` with
 * `replayLatest`): random runs of subscribe / unsubscribe / next / error / complete, including
 * subscribers that unsubscribe themselves or subscribe a newcomer while a value is delivered;
 * every subscriber must see exactly what it would have seen from the subject.
 */
import fc from 'fast-check';
import { ReplaySubject, Subject, type Observable, type Subscription } from 'rxjs';
import { Multicast } from '../../src/util/Multicast';

type Op =
  | { op: 'subscribe'; reentrant: 'none' | 'unsubscribeSelf' | 'subscribeNew' }
  | { op: 'unsubscribe'; index: number }
  | { op: 'next'; value: number }
  | { op: 'error' }
  | { op: 'complete' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('subscribe' as const), reentrant: fc.constantFrom('none' as const, 'none' as const, 'unsubscribeSelf' as const, 'subscribeNew' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('unsubscribe' as const), index: fc.nat(20) }) },
  { weight: 6, arbitrary: fc.record({ op: fc.constant('next' as const), value: fc.integer({ min: 0, max: 99 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'error' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'complete' as const }) },
);

interface Producer {
  readonly observable: Observable<number>;
  next(v: number): void;
  error(e: unknown): void;
  complete(): void;
}

/** Runs `ops` against a producer; returns every subscriber's log, in subscription order. */
function run(producer: Producer, ops: readonly Op[]): string[][] {
  const logs: string[][] = [];
  const subscriptions: Subscription[] = [];
  const subscribe = (reentrant: 'none' | 'unsubscribeSelf' | 'subscribeNew'): void => {
    const log: string[] = [];
    logs.push(log);
    let own: Subscription | undefined;
    let reacted = false;
    own = producer.observable.subscribe({
      next: (v) => {
        log.push(`n${v}`);
        // Reacts once, on a value delivered after subscribing (not on the replayed one).
        if (own === undefined || reacted) return;
        reacted = true;
        if (reentrant === 'unsubscribeSelf') own.unsubscribe();
        if (reentrant === 'subscribeNew') subscribe('none');
      },
      error: (e) => log.push(`e${String(e)}`),
      complete: () => log.push('c'),
    });
    subscriptions.push(own);
  };
  for (const o of ops) {
    if (o.op === 'subscribe') subscribe(o.reentrant);
    else if (o.op === 'unsubscribe') subscriptions[o.index % Math.max(1, subscriptions.length)]?.unsubscribe();
    else if (o.op === 'next') producer.next(o.value);
    else if (o.op === 'error') producer.error('boom');
    else producer.complete();
  }
  return logs;
}

function fromSubject(subject: Subject<number>): Producer {
  return { observable: subject.asObservable(), next: (v) => subject.next(v), error: (e) => subject.error(e), complete: () => subject.complete() };
}

function fromMulticast(m: Multicast<number>): Producer {
  return { observable: m.observable, next: (v) => m.next(v), error: (e) => m.error(e), complete: () => m.complete() };
}

describe('Multicast', () => {
  it('delivers what a Subject delivers, to every subscriber, in every run', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        expect(run(fromMulticast(new Multicast<number>()), ops)).toEqual(run(fromSubject(new Subject<number>()), ops));
      }),
      { seed: 20261127, numRuns: 2000 },
    );
  });

  it('with replayLatest, delivers what a ReplaySubject(1) delivers', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), (ops) => {
        expect(run(fromMulticast(new Multicast<number>(true)), ops)).toEqual(run(fromSubject(new ReplaySubject<number>(1)), ops));
      }),
      { seed: 20261128, numRuns: 2000 },
    );
  });

  it('replays the latest value, then the end, to a subscriber that comes after it', () => {
    const m = new Multicast<number>(true);
    m.next(1);
    m.next(2);
    m.complete();
    const seen: string[] = [];
    m.observable.subscribe({ next: (v) => seen.push(`n${v}`), complete: () => seen.push('c') });
    expect(seen).toEqual(['n2', 'c']);
  });

  it('lets go of an unsubscribed subscriber (no delivery, nothing kept)', () => {
    const m = new Multicast<number>();
    const seen: number[] = [];
    const sub = m.observable.subscribe((v) => seen.push(v));
    m.next(1);
    sub.unsubscribe();
    m.next(2);
    expect(seen).toEqual([1]);
    expect((m as unknown as { subscribers: unknown[] }).subscribers).toHaveLength(0);
  });
});
