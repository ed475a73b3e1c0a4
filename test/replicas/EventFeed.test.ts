import { config } from 'rxjs';
import { EventFeed } from '../../src/replicas/EventFeed';
import type { EventItem } from '../../src/replicas/EventItem';

const rec = (n: number): EventItem<number> => ({ kind: 'record', sequence: BigInt(n), record: n });
const show = (i: EventItem<number>) => (i.kind === 'record' ? i.record : `gap ${i.fromSequence}-${i.toSequence} ${i.reason}`);

async function take(it: AsyncIterator<EventItem<number>>, n: number) {
  const out: Array<number | string> = [];
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    out.push(show(r.value));
  }
  return out;
}

describe('EventFeed', () => {
  it('delivers everything in order to a consumer that keeps up', async () => {
    const feed = new EventFeed<number>();
    const it = feed.iterate();
    const pending = take(it, 3); // waiting before anything is pushed
    for (let i = 1; i <= 3; i++) feed.push(rec(i));
    expect(await pending).toEqual([1, 2, 3]);
  });

  it('holds at most bufferSize items for a slow consumer, then one gap marker for what overflowed', async () => {
    const feed = new EventFeed<number>({ bufferSize: 10 });
    const it = feed.iterate();
    for (let i = 1; i <= 25; i++) feed.push(rec(i));
    feed.push({ kind: 'gap', fromSequence: 26n, toSequence: 30n, reason: 'history' });
    feed.push(rec(31));
    expect(await take(it, 11)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 'gap 11-31 overflow']);
    feed.push(rec(32));
    expect(await take(it, 1)).toEqual([32]);
  });

  it('places the overflow marker before what is accepted once there is room again', async () => {
    const feed = new EventFeed<number>({ bufferSize: 3 });
    const it = feed.iterate();
    for (let i = 1; i <= 5; i++) feed.push(rec(i)); // 1..3 held, 4..5 overflow
    expect(await take(it, 2)).toEqual([1, 2]);
    feed.push(rec(6)); // room: the marker goes in first
    expect(await take(it, 3)).toEqual([3, 'gap 4-5 overflow', 6]);
  });

  it('each iterator has its own buffer; events$ gets everything synchronously', async () => {
    const feed = new EventFeed<number>({ bufferSize: 2 });
    const sync: number[] = [];
    feed.events$.subscribe((i) => sync.push(show(i) as number));
    const slow = feed.iterate();
    const big = feed.iterate({ bufferSize: 100 });
    for (let i = 1; i <= 5; i++) feed.push(rec(i));
    expect(sync).toEqual([1, 2, 3, 4, 5]);
    expect(await take(slow, 3)).toEqual([1, 2, 'gap 3-5 overflow']);
    expect(await take(big, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it('close() ends iterators after what they hold; return() detaches', async () => {
    const feed = new EventFeed<number>();
    const a = feed.iterate();
    const b = feed.iterate();
    feed.push(rec(1));
    await b.return!();
    feed.push(rec(2));
    feed.close();
    const got: Array<number | string> = [];
    for await (const item of a) got.push(show(item));
    expect(got).toEqual([1, 2]);
    expect(await b.next()).toEqual({ value: undefined, done: true });
    expect(await feed.iterate().next()).toEqual({ value: undefined, done: true });
  });

  it('a throwing events$ subscriber does not stop the others', async () => {
    const saved = config.onUnhandledError;
    const reported: unknown[] = [];
    // rxjs reports a subscriber's error later, on its own: wait for both reports (bounded by the test timeout).
    const bothReported = new Promise<void>((resolve) => {
      config.onUnhandledError = (e) => {
        reported.push(e);
        if (reported.length === 2) resolve();
      };
    });
    try {
      const feed = new EventFeed<number>();
      let calls = 0;
      feed.events$.subscribe((i) => {
        calls++;
        throw new Error(`bad consumer at ${show(i)}`);
      });
      const ok: number[] = [];
      feed.events$.subscribe((i) => ok.push(show(i) as number));
      feed.push(rec(1));
      feed.push(rec(2));
      expect(ok).toEqual([1, 2]);
      expect(calls).toBe(2);
      await bothReported;
      expect(reported.map((e) => (e as Error).message)).toEqual(['bad consumer at 1', 'bad consumer at 2']);
    } finally {
      config.onUnhandledError = saved;
    }
  });

  it('checks bufferSize', () => {
    expect(() => new EventFeed({ bufferSize: 0 })).toThrow(/bufferSize/);
  });
});
