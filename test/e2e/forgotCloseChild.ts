/**
 * Child process of idleClose.e2e.test.ts: a client against the parent's simulator
 * (EXCHANGE_REST_URL) that reads a book until it is live, unsubscribes, and FORGETS
 * `client.close()`. It must exit by itself: once no stream has a subscriber for
 * `idleCloseMs`, the feed connection closes and nothing keeps the process alive.
 */
import { ExchangeClient } from '../../src';
import { WAIT_MS } from '../helpers/deadlines';

async function main(): Promise<void> {
  const client = new ExchangeClient({ restUrl: process.env.EXCHANGE_REST_URL!, router: { idleCloseMs: 300 } });
  const book$ = client.orderBook({ market_type: 'perp', market_id: 0 });
  const sub = book$.subscribe();
  await client.whenLive(book$, { signal: AbortSignal.timeout(WAIT_MS) });
  sub.unsubscribe();
  client.connection.on('state', (change) => console.log(`connection ${change.from} -> ${change.to}: ${change.reason}`));
  console.log('unsubscribed; close() forgotten');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
