/**
 * Hostile subscribers against the real simulator: subscribers that throw, that unsubscribe
 * (themselves or everyone) during an emission, and hundreds of subscribers of the same
 * stream. The client and every other subscriber stay intact, each event reaches each
 * subscriber exactly once, and after teardown `client.activity()` is back to zero.
 */
import { filter, firstValueFrom, take, timeout, toArray, type Observable, type Subscription } from 'rxjs';
import { SubscriberError, type ExchangeReplicaError } from '../../src';
import { startPair, type Pair } from '../e2e/harness';
import { EventLedger } from '../helpers/truth';
import { WAIT_MS } from '../helpers/deadlines';

const BBO = { market_type: 'perp', market_id: 0 } as const;
const BOOK = { market_type: 'spot', market_id: 3 } as const;
const TRADES = { market_type: 'perp', market_id: 0 } as const;

let pair: Pair;
const errors: ExchangeReplicaError[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

beforeEach(async () => {
  errors.length = 0;
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  pair = await startPair({ eventsPerSecond: 400, seed: 9 });
  pair.client.errors$.subscribe((e) => errors.push(e));
});

afterEach(async () => {
  await pair.close();
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** The next `n` values of `obs` (bounded in time). */
const next = <T>(obs: Observable<T>, n: number, what: string) => firstValueFrom(obs.pipe(take(n), toArray(), timeout({ first: WAIT_MS, with: () => { throw new Error(`timed out waiting for ${n} ${what}`); } })));

/** Resolves once the client holds nothing (replicas, server subscriptions, pending requests). */
async function idle(p: Pair): Promise<void> {
  const isIdle = () => {
    const a = p.client.activity();
    return a.replicas === 0 && a.serverSubscriptions === 0 && a.pendingRequests === 0;
  };
  if (isIdle()) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      p.client.connection.off('message', on);
      reject(new Error(`not idle: ${JSON.stringify(p.client.activity())}`));
    }, 10_000);
    const on = () => {
      if (!isIdle()) return;
      clearTimeout(timer);
      p.client.connection.off('message', on);
      resolve();
    };
    p.client.connection.on('message', on);
  });
}

/** With the simulator paused: resolves once `ledger` delivered the truth's newest trade. */
async function caughtUp(p: Pair, ledger: EventLedger): Promise<void> {
  const page = p.sim.truth('trades', { market_type: 'perp', market_id: 0, limit: 1 }).body as { data: { sequence: string }[] };
  const newest = page.data[0] === undefined ? undefined : BigInt(page.data[0].sequence);
  const done = () => newest === undefined || (ledger.lastSequence !== undefined && ledger.lastSequence >= newest);
  if (done()) return;
  await firstValueFrom(p.client.trades(TRADES).pipe(filter(done), timeout(WAIT_MS)));
}

test('a subscriber that throws on every emission harms no other subscriber and no replica', async () => {
  const { client } = pair;
  const throwing = client.bbo(BBO).subscribe(() => {
    throw new Error('consumer bug (bbo)');
  });
  const throwingTrades = client.trades(TRADES).subscribe(() => {
    throw new Error('consumer bug (trades)');
  });
  const ledger = new EventLedger('trades');
  const trades = client.trades(TRADES).subscribe((item) => ledger.onItem(item as never));
  const seen = await next(client.bbo(BBO).pipe(filter((e) => e.status === 'live')), 20, 'bbo emissions next to a throwing subscriber');
  expect(seen.every((e) => e.status === 'live')).toBe(true);
  await firstValueFrom(client.trades(TRADES).pipe(take(5), toArray(), timeout(WAIT_MS)));
  const threw = errors.filter((e) => e instanceof SubscriberError);
  expect(threw.length).toBeGreaterThan(0);
  expect(threw.every((e) => e.code === 'ERR_SUBSCRIBER_THREW' && /consumer bug/.test((e.cause as Error).message))).toBe(true);
  expect(errors.filter((e) => !(e instanceof SubscriberError))).toEqual([]);
  expect(client.connection.generation).toBe(1);
  // Every trade reached the healthy subscriber exactly once.
  pair.sim.pause();
  await caughtUp(pair, ledger);
  expect(ledger.check(pair.sim, 'trades', { market_id: 0, is_perps: true })).toMatchObject({ duplicates: 0, missing: 0, mismatched: 0, unknown: 0 });
  throwing.unsubscribe();
  throwingTrades.unsubscribe();
  trades.unsubscribe();
  await idle(pair);
});

test('unsubscribing during an emission: oneself, another subscriber, and the last one', async () => {
  const { client } = pair;
  // One that leaves on its first emission, one that takes another down with it.
  const got = { self: 0, victim: 0, killer: 0, steady: 0 };
  let self: Subscription | undefined = undefined;
  self = client.orderBook(BOOK).subscribe(() => {
    got.self++;
    self?.unsubscribe();
  });
  const victim = client.orderBook(BOOK).subscribe(() => got.victim++);
  const killer = client.orderBook(BOOK).subscribe(() => {
    got.killer++;
    if (got.killer === 3) victim.unsubscribe();
  });
  const steady = client.orderBook(BOOK).subscribe(() => got.steady++);
  await next(client.orderBook(BOOK).pipe(filter((e) => e.cause === 'update')), 10, 'book updates');
  expect(got.self).toBe(1);
  expect(got.victim).toBeLessThanOrEqual(3);
  expect(got.steady).toBeGreaterThan(10);
  expect(client.activity()).toMatchObject({ replicas: 1, serverSubscriptions: 1 });
  killer.unsubscribe();
  steady.unsubscribe();
  await idle(pair);

  // The last subscriber leaves from inside its own callback: the replica closes mid-emission.
  let last: Subscription | undefined;
  let calls = 0;
  await new Promise<void>((resolve) => {
    last = client.orderBook(BOOK).subscribe((e) => {
      calls++;
      if (e.status === 'live') {
        last?.unsubscribe();
        resolve();
      }
    });
  });
  await idle(pair);
  expect(calls).toBeGreaterThanOrEqual(1);
  // And the stream works again afterwards.
  const again = await next(client.orderBook(BOOK).pipe(filter((e) => e.status === 'live')), 3, 'book after re-subscribing');
  expect(again).toHaveLength(3);
  await idle(pair);
  expect(errors).toEqual([]);
});

test('hundreds of subscribers of the same streams: one replica and one server subscription each, same data, nothing left after', async () => {
  const { client } = pair;
  const N = 300;
  const subs: Subscription[] = [];
  const ledgers = Array.from({ length: N }, (_, i) => new EventLedger(`trades#${i}`));
  const bookSeqs: bigint[][] = Array.from({ length: N }, () => []);
  for (let i = 0; i < N; i++) {
    subs.push(client.trades(TRADES).subscribe((item) => ledgers[i]!.onItem(item as never)));
    subs.push(client.orderBook(BOOK).subscribe((e) => e.cause === 'update' && bookSeqs[i]!.push(e.seq)));
    subs.push(client.bbo(BBO).subscribe());
  }
  expect(client.activity().replicas).toBe(3);
  await next(client.orderBook(BOOK).pipe(filter((e) => e.cause === 'update')), 20, 'book updates');
  await next(client.trades(TRADES), 5, 'trades');
  expect(client.activity()).toMatchObject({ replicas: 3, serverSubscriptions: 3 });
  pair.sim.pause();
  await caughtUp(pair, ledgers[0]!);
  // Late subscribers (joined after the first) saw a suffix of the same sequence of book updates.
  const longest = bookSeqs[0]!;
  for (const s of bookSeqs) expect(longest.slice(longest.length - s.length)).toEqual(s);
  const first = ledgers[0]!.check(pair.sim, 'trades', { market_id: 0, is_perps: true });
  expect(first).toMatchObject({ duplicates: 0, missing: 0, mismatched: 0, unknown: 0 });
  for (const l of ledgers.slice(1)) expect(l.findings.duplicates).toBe(0);
  // Half leave while the flow runs, the other half afterwards, in reverse order.
  for (let i = 0; i < subs.length; i += 2) subs[i]!.unsubscribe();
  pair.sim.resume();
  await next(client.orderBook(BOOK), 2, 'book emissions');
  for (let i = subs.length - 1; i > 0; i -= 2) subs[i]!.unsubscribe();
  await idle(pair);
  expect(errors).toEqual([]);
});
