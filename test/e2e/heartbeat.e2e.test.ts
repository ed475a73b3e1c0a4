/**
 * HEARTBEAT_TIMEOUT against the real simulator: a client whose heartbeat is too slow for the
 * server's idle window is closed with HEARTBEAT_TIMEOUT, reconnects and heals; with a
 * heartbeat well inside the window, the connection is never closed.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { startPair, type Pair } from './harness';
import { ReplicaFleet } from './ReplicaFleet';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair;
let fleet: ReplicaFleet | undefined;
afterEach(async () => {
  fleet?.stop();
  fleet = undefined;
  await pair?.close();
});

/** Resolves once `count` frames whose text satisfies `match` arrived on the client's connection. */
function frames(p: Pair, match: (text: string) => boolean, count: number, ms = WAIT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    let n = 0;
    const timer = setTimeout(() => {
      p.client.connection.off('message', on);
      reject(new Error(`only ${n} of ${count} frames within ${ms} ms`));
    }, ms);
    const on = (text: string) => {
      if (match(text) && ++n >= count) {
        clearTimeout(timer);
        p.client.connection.off('message', on);
        resolve();
      }
    };
    p.client.connection.on('message', on);
  });
}

test('a heartbeat slower than the server idle window: closed with HEARTBEAT_TIMEOUT, reconnects, replicas heal', async () => {
  pair = await startPair({ heartbeatTimeoutMs: 1000, eventsPerSecond: 300, seed: 5 }, { connection: { heartbeatIntervalMs: 59_000 } });
  const closes: string[] = [];
  pair.client.connection.on('close', (c) => closes.push(c.reason));
  const trader = pair.sim.engine.accounts[1]!.address;
  fleet = new ReplicaFleet(pair.client, { markets: [{ market_type: 'perp', market_id: 0 }], resolutions: ['1m'], markResolutions: [], accounts: [{ address: trader, subaccount_id: 0 }], accountParts: false }).start();
  await firstValueFrom(
    pair.client.connection.state$.pipe(
      filter(() => closes.some((r) => r.includes('HEARTBEAT_TIMEOUT'))),
      timeout({ first: WAIT_MS, with: () => { throw new Error(`no HEARTBEAT_TIMEOUT close; closes: ${closes.join(' | ')}`); } }),
    ),
  );
  expect(closes[0]).toMatch(/HEARTBEAT_TIMEOUT/);
  pair.sim.pause();
  const r = await fleet.checkpoint(pair.sim, WAIT_MS);
  expect({ notConverged: r.notConverged, divergences: r.divergences }).toEqual({ notConverged: [], divergences: [] });
  expect({ duplicates: r.events.duplicates, missing: r.events.missing, mismatched: r.events.mismatched, unknown: r.events.unknown }).toEqual({ duplicates: 0, missing: 0, mismatched: 0, unknown: 0 });
  expect(pair.client.connection.generation).toBeGreaterThanOrEqual(2);
  expect(fleet.observableErrors).toEqual([]);
});

test('a heartbeat well inside the window: no timeout over many windows', async () => {
  pair = await startPair({ heartbeatTimeoutMs: 800, eventsPerSecond: 50, seed: 6 }, { connection: { heartbeatIntervalMs: 100, pongTimeoutMs: 2000 } });
  const closes: string[] = [];
  pair.client.connection.on('close', (c) => closes.push(c.reason));
  const sub = pair.client.bbo({ market_type: 'spot', market_id: 3 }).subscribe();
  // Twenty pongs: at least 2 s, two and a half idle windows of the server.
  await frames(pair, (t) => t.includes('"pong"'), 20);
  expect(closes).toEqual([]);
  expect(pair.client.connection.generation).toBe(1);
  expect(pair.client.connection.state).toBe('open');
  sub.unsubscribe();
});
