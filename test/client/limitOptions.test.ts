/** The size limits of the REST client and the feed connection are set through ExchangeClient's options. */
import { ExchangeClient } from '../../src/client';

describe('ExchangeClient: size limits', () => {
  test('ExchangeClient passes maxResponseBytes and maxFrameBytes through', () => {
    const client = new ExchangeClient({ restUrl: 'http://127.0.0.1:9', rest: { maxResponseBytes: 5678 }, connection: { maxFrameBytes: 1234 } });
    try {
      expect(client.rest.options.maxResponseBytes).toBe(5678);
      expect(client.connection.options.maxFrameBytes).toBe(1234);
    } finally {
      client.close();
    }
  });

  test('the defaults apply when nothing is set', () => {
    const client = new ExchangeClient({ restUrl: 'http://127.0.0.1:9' });
    try {
      expect(client.rest.options.maxResponseBytes).toBe(64 * 1024 * 1024);
      expect(client.connection.options.maxFrameBytes).toBe(16 * 1024 * 1024);
    } finally {
      client.close();
    }
  });
});

describe('ExchangeClient: event replica limits', () => {
  test('replica.recentLimit (and the other event replica options) reach the event replicas', async () => {
    const { Simulator } = await import('../../src/simulator');
    const { filter, firstValueFrom, timeout } = await import('rxjs');
    const sim = await Simulator.start({ seed: 3, eventsPerSecond: 400 });
    const client = new ExchangeClient({ restUrl: sim.restUrl, replica: { recentLimit: 2, recentMaxBytes: 1 << 20, bufferBytes: 1 << 20 } });
    try {
      const market = { market_type: 'perp', market_id: 0 } as const;
      const e = await firstValueFrom(client.recentTrades(market).pipe(filter((s) => s.status === 'live' && s.state.recent.length > 0), timeout(60_000)));
      expect(e.state.recent.length).toBeLessThanOrEqual(2);
      const more = await firstValueFrom(client.recentTrades(market).pipe(filter((s) => s.cause === 'update'), timeout(60_000)));
      expect(more.state.recent.length).toBeLessThanOrEqual(2);
    } finally {
      await client.close();
      await sim.stop();
    }
  });
});
