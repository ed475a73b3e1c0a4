/** whenLive and iterate: every way a wait or a loop can end, on plain subjects (no network). */
import { BehaviorSubject, Observable, Subject } from 'rxjs';
import { AbortedError, ClientClosedError, ConsumerOverflowError, ExchangeReplicaError, InvalidParameterError } from '../../src/errors';
import { iterate, whenLive } from '../../src/client';
import type { ReplicaStatus } from '../../src/replicas';

type E = { status: ReplicaStatus; n: number };

/** A subject that counts its live subscriptions, to prove every path releases its own. */
function counted<T>(subject: Subject<T>) {
  let subs = 0;
  const obs = new Observable<T>((s) => {
    subs++;
    const inner = subject.subscribe(s);
    return () => {
      subs--;
      inner.unsubscribe();
    };
  });
  return { obs, subs: () => subs };
}

describe('whenLive', () => {
  it('resolves with the first live emission and releases its subscription', async () => {
    const s = new Subject<E>();
    const c = counted(s);
    const p = whenLive(c.obs);
    s.next({ status: 'syncing', n: 1 });
    expect(c.subs()).toBe(1);
    s.next({ status: 'live', n: 2 });
    s.next({ status: 'live', n: 3 });
    await expect(p).resolves.toEqual({ status: 'live', n: 2 });
    expect(c.subs()).toBe(0);
  });

  it('resolves at once on a replayed live state (settled during subscribe)', async () => {
    const s = new BehaviorSubject<E>({ status: 'live', n: 7 });
    const c = counted(s);
    await expect(whenLive(c.obs)).resolves.toEqual({ status: 'live', n: 7 });
    expect(c.subs()).toBe(0);
  });

  it("rejects with the replica's own error when it fails first", async () => {
    const s = new Subject<E>();
    const p = whenLive(s);
    const err = new ExchangeReplicaError('ERR_SNAPSHOT_INVALID', 'snapshot refused');
    s.next({ status: 'syncing', n: 1 });
    s.error(err);
    await expect(p).rejects.toBe(err);
  });

  it('wraps a foreign error, keeping it as the cause', async () => {
    const s = new Subject<E>();
    const p = whenLive(s);
    const boom = new TypeError('boom');
    s.error(boom);
    await expect(p).rejects.toMatchObject({ code: 'ERR_INTERNAL', cause: boom });
  });

  it('rejects with ClientClosedError when the source completes before live', async () => {
    const s = new Subject<E>();
    const p = whenLive(s);
    s.complete();
    await expect(p).rejects.toBeInstanceOf(ClientClosedError);
  });

  it('rejects with AbortedError (cause: the reason) when the signal fires, and unsubscribes', async () => {
    const s = new Subject<E>();
    const c = counted(s);
    const ac = new AbortController();
    const p = whenLive(c.obs, { signal: ac.signal });
    expect(c.subs()).toBe(1);
    const reason = new Error('deadline');
    ac.abort(reason);
    await expect(p).rejects.toMatchObject({ code: 'ERR_ABORTED', cause: reason });
    expect(c.subs()).toBe(0);
    const again = whenLive(c.obs, { signal: ac.signal });
    await expect(again).rejects.toBeInstanceOf(AbortedError);
    expect(c.subs()).toBe(0);
  });
});

describe('iterate', () => {
  it('yields every emission in order and ends when the source completes', async () => {
    const s = new Subject<number>();
    const c = counted(s);
    const seen: number[] = [];
    const loop = (async () => {
      for await (const v of iterate(c.obs)) seen.push(v);
    })();
    await Promise.resolve();
    for (let i = 0; i < 100; i++) s.next(i);
    s.complete();
    await loop;
    expect(seen).toEqual([...Array(100).keys()]);
    expect(c.subs()).toBe(0);
  });

  it('subscribes lazily and releases on break', async () => {
    const s = new BehaviorSubject<number>(1);
    const c = counted(s);
    const it = iterate(c.obs);
    expect(c.subs()).toBe(0);
    for await (const v of it) {
      expect(v).toBe(1);
      expect(c.subs()).toBe(1);
      break;
    }
    expect(c.subs()).toBe(0);
  });

  it('conflate keeps only the newest emission while the body is busy', async () => {
    const s = new Subject<number>();
    const seen: number[] = [];
    const iterator = iterate(s, { conflate: true })[Symbol.asyncIterator]();
    const first = iterator.next();
    s.next(1);
    seen.push((await first).value as number);
    for (let i = 2; i <= 50; i++) s.next(i);
    seen.push((await iterator.next()).value as number);
    await iterator.return!();
    expect(seen).toEqual([1, 50]);
  });

  it('throws ConsumerOverflowError past bufferSize instead of dropping or growing', async () => {
    const s = new Subject<number>();
    const iterator = iterate(s, { bufferSize: 3 })[Symbol.asyncIterator]();
    const first = iterator.next();
    s.next(0);
    await first;
    for (let i = 1; i <= 4; i++) s.next(i);
    await expect(iterator.next()).rejects.toBeInstanceOf(ConsumerOverflowError);
    expect(s.observed).toBe(false);
  });

  it('throws ConsumerOverflowError past bufferBytes: big items from the exchange are bounded in bytes, not only in count', async () => {
    const s = new Subject<{ kind: 'record'; sequence: bigint; record: { price: string } }>();
    const iterator = iterate(s, { bufferBytes: 100_000 })[Symbol.asyncIterator]();
    const first = iterator.next();
    s.next({ kind: 'record', sequence: 0n, record: { price: '1' } });
    await first;
    // 10 records of ~40 kB (a digit string padded with zeros): far below bufferSize, above bufferBytes.
    for (let i = 1; i <= 10; i++) s.next({ kind: 'record', sequence: BigInt(i), record: { price: '0'.repeat(40_000) + String(i) } });
    expect(s.observed).toBe(false);
    await expect(iterator.next()).rejects.toMatchObject({ code: 'ERR_CONSUMER_OVERFLOW', message: expect.stringContaining("'bufferBytes'") });
  });

  it('counts a live state shared by emissions as a reference: a deep book never fills bufferBytes by itself', async () => {
    class LiveBook {
      readonly levels = Array.from({ length: 100_000 }, (_, i) => ({ price: String(i), size: '1' }));
    }
    const book = new LiveBook();
    const s = new Subject<{ status: string; state: LiveBook; snapshotId: number }>();
    const iterator = iterate(s, { bufferBytes: 10_000 })[Symbol.asyncIterator]();
    const first = iterator.next();
    s.next({ status: 'live', state: book, snapshotId: 1 });
    await first;
    for (let i = 0; i < 50; i++) s.next({ status: 'live', state: book, snapshotId: 1 });
    for (let i = 0; i < 50; i++) expect((await iterator.next()).value.state).toBe(book);
    await iterator.return!();
  });

  it('throws the source error and the abort reason, releasing the subscription', async () => {
    const s = new Subject<number>();
    const err = new ExchangeReplicaError('FEED_UNAVAILABLE', 'refused');
    const failing = (async () => {
      for await (const _ of iterate(s)) void _;
    })();
    await Promise.resolve();
    s.error(err);
    await expect(failing).rejects.toBe(err);

    const s2 = new Subject<number>();
    const ac = new AbortController();
    const aborted = (async () => {
      for await (const _ of iterate(s2, { signal: ac.signal })) void _;
    })();
    await Promise.resolve();
    expect(s2.observed).toBe(true);
    ac.abort('stop');
    await expect(aborted).rejects.toMatchObject({ code: 'ERR_ABORTED', cause: 'stop' });
    expect(s2.observed).toBe(false);
  });

  it('refuses a bufferSize that is not a positive integer, naming it', () => {
    expect(() => iterate(new Subject(), { bufferSize: 0 })).toThrow(InvalidParameterError);
    expect(() => iterate(new Subject(), { bufferSize: 1.5 })).toThrow(/iterate: invalid 'bufferSize': expected an integer >= 1, got 1.5/);
    expect(() => iterate(new Subject(), { bufferBytes: 0 })).toThrow(/iterate: invalid 'bufferBytes'/);
  });
});
