/**
 * A deployment without the feed: every replica observable fails with FEED_UNAVAILABLE, the
 * client does not reconnect in a loop, and REST keeps working.
 */
import { firstValueFrom, timeout, type Observable } from 'rxjs';
import WebSocket from 'ws';
import { FeedError } from '../../src';
import { ManualClock } from '../helpers/ManualClock';
import { startPair, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
afterEach(async () => pair?.close());

/** The error an observable fails with (or a timeout error). */
function errorOf(obs: Observable<unknown>, ms = WAIT_MS): Promise<unknown> {
  return firstValueFrom(obs.pipe(timeout({ first: ms, with: () => { throw new Error(`no error within ${ms} ms`); } }))).then(
    (v) => new Error(`expected an error, got a value: ${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x))}`),
    (e: unknown) => e,
  );
}

test('replicas fail with FEED_UNAVAILABLE, no reconnect loop, REST still works', async () => {
  // Count connection attempts: every socket the client creates.
  const accepted: number[] = [];
  class CountingWebSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      accepted.push(Date.now());
    }
  }
  // Every timer of the connection (a reconnect's backoff included) is on this clock: only the test moves it.
  const clock = new ManualClock();
  pair = await startPair({ feedUnavailable: true, eventsPerSecond: 100 }, { connection: { WebSocket: CountingWebSocket, clock } });
  const { client, sim } = pair;
  const states: string[] = [];
  client.connection.on('state', (c) => states.push(c.to));
  const clientErrors: string[] = [];
  client.errors$.subscribe((e) => clientErrors.push(e.code));

  const account = { address: sim.engine.accounts[1]!.address, subaccount_id: 0 };
  const results = await Promise.all([
    errorOf(client.orderBook({ market_type: 'perp', market_id: 0 })),
    errorOf(client.bbo({ market_type: 'spot', market_id: 3 })),
    errorOf(client.candles({ market_type: 'spot', market_id: 3, resolution: '1m' })),
    errorOf(client.trades({ market_type: 'perp', market_id: 0 })),
    errorOf(client.fundingRates({ market_id: 0 })),
    errorOf(client.fills(account)),
    errorOf(client.account(account)),
  ]);
  for (const e of results) {
    expect(e).toBeInstanceOf(FeedError);
    expect((e as FeedError).code).toBe('FEED_UNAVAILABLE');
  }
  expect(client.connection.state).toBe('failed');
  // A replica requested after the failure fails at once with the same error.
  const late = await errorOf(client.marketStats({ market_type: 'perp', market_id: 1 }), 2000);
  expect(late).toMatchObject({ code: 'FEED_UNAVAILABLE' });

  // REST is unaffected.
  const book = await client.rest.orderBook({ market_type: 'perp', market_id: 0, depth: 5 });
  expect(book.data.bids.length).toBeGreaterThan(0);
  const status = await client.rest.status();
  expect(status.data).toMatchObject({ feed: false });

  // No loop: nothing is scheduled after the one attempt, and past any reconnect delay no socket was created.
  expect(clock.pendingTimers).toBe(0);
  await clock.advance(10 * 60_000);
  expect(accepted).toHaveLength(1);
  expect(client.connection.state).toBe('failed');
  expect(states.filter((s) => s === 'connecting' || s === 'reconnecting')).toEqual(['connecting']);
  expect(client.activity()).toMatchObject({ replicas: 0, serverSubscriptions: 0 });
  expect(clientErrors).toContain('FEED_UNAVAILABLE');
});
