/**
 * A connection stalled for longer than the subscribe timeout (the server holds every frame,
 * acks included): the subscription requested meanwhile times out, and its replica must heal
 * by itself once the connection flows again, not fail for good.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { startPair, truth, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
afterEach(async () => pair?.close());

test('a subscribe that times out on a stalled connection is retried and the replica heals', async () => {
  pair = await startPair({ eventsPerSecond: 200, seed: 17 }, { router: { requestTimeoutMs: 300 }, connection: { pongTimeoutMs: 20_000 }, replica: { retryAfterMs: 100 } });
  const { sim, client } = pair;
  const errors: string[] = [];
  client.errors$.subscribe((e) => errors.push(e.code));
  const book = { market_type: 'perp', market_id: 0 } as const;
  const bbo = { market_type: 'spot', market_id: 3 } as const;
  const a = client.orderBook(book).subscribe();
  await firstValueFrom(client.orderBook(book).pipe(filter((e) => e.status === 'live'), timeout(WAIT_MS)));

  sim.faults.stallConnection(1200);
  let failure: unknown;
  const b = client.bbo(bbo).subscribe({ error: (e: unknown) => (failure = e) });
  await firstValueFrom(client.errors$.pipe(filter((e) => e.code === 'ERR_REQUEST_TIMEOUT'), timeout(WAIT_MS)));
  sim.pause();
  const t = truth(sim, 'bbo', bbo);
  const healed = await firstValueFrom(client.bbo(bbo).pipe(filter((e) => e.status === 'live' && e.seq === t.sequence), timeout({ first: WAIT_MS, with: () => { throw new Error(`bbo never live; failure: ${String(failure)}`); } })));
  expect(healed.state).toEqual(t.data);
  expect(failure).toBeUndefined();
  expect(errors).toContain('ERR_REQUEST_TIMEOUT');
  expect(client.connection.generation).toBe(1);
  expect(client.activity().serverSubscriptions).toBe(2);
  a.unsubscribe();
  b.unsubscribe();
});
