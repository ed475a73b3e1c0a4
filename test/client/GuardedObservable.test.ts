/** Subscriber exceptions are caught where the client calls the subscriber; RxJS's global config is never touched. */
import { config, map, Subject } from 'rxjs';
import { ExchangeClient } from '../../src';
import { GuardedObservable } from '../../src/client/GuardedObservable';

function guarded<T>(source: Subject<T>) {
  const caught: Array<[unknown, string]> = [];
  const obs = new GuardedObservable<T>((e, what) => caught.push([e, what]), (s) => source.subscribe(s));
  return { obs, caught };
}

describe('GuardedObservable', () => {
  it('catches a throwing next callback and keeps delivering', () => {
    const source = new Subject<number>();
    const { obs, caught } = guarded(source);
    const seen: number[] = [];
    obs.subscribe((v) => {
      seen.push(v);
      if (v === 1) throw new Error('consumer bug');
    });
    source.next(1);
    source.next(2);
    expect(seen).toEqual([1, 2]);
    expect(caught).toEqual([[new Error('consumer bug'), 'next']]);
  });

  it('keeps the guard through pipe()', () => {
    const source = new Subject<number>();
    const { obs, caught } = guarded(source);
    obs.pipe(map((v) => v * 2)).subscribe({
      next: (v) => {
        throw new Error(`bad ${v}`);
      },
    });
    source.next(2);
    expect(caught).toEqual([[new Error('bad 4'), 'next']]);
  });

  it('hands an unhandled failure to the sink, and an error callback that throws too', () => {
    const a = new Subject<number>();
    const ga = guarded(a);
    ga.obs.subscribe(() => undefined);
    a.error(new Error('feed gone'));
    expect(ga.caught).toEqual([[new Error('feed gone'), 'unhandled']]);

    const b = new Subject<number>();
    const gb = guarded(b);
    gb.obs.subscribe({
      error: () => {
        throw new Error('handler bug');
      },
    });
    b.error(new Error('x'));
    expect(gb.caught).toEqual([[new Error('handler bug'), 'error']]);
  });

  it('passes operator subscribers through untouched (unsubscription still tears down)', () => {
    const source = new Subject<number>();
    const { obs } = guarded(source);
    const sub = obs.pipe(map((v) => v)).subscribe(() => undefined);
    expect(source.observed).toBe(true);
    sub.unsubscribe();
    expect(source.observed).toBe(false);
  });
});

describe('no global state', () => {
  it('an open client leaves RxJS config alone', async () => {
    const before = { ...config };
    const client = new ExchangeClient({ restUrl: 'http://127.0.0.1:9' });
    expect({ ...config }).toEqual(before);
    expect(config.onUnhandledError).toBeNull();
    await client.close();
    expect({ ...config }).toEqual(before);
  });
});
