/**
 * Child process of resourceBounds.e2e.test.ts: starts a simulator and a client, holds many
 * replicas until they are live (one fault on the way), closes both, prints what is still
 * active, waits for the sockets to end, prints what is still active then, and must exit by
 * itself: no process.exit, so any timer, socket or listener left behind keeps it alive.
 */
import { filter, firstValueFrom, timeout } from 'rxjs';
import { ExchangeClient } from '../../src';
import { Simulator } from '../../src/simulator';
import { WAIT_MS } from '../helpers/deadlines';

async function main(): Promise<void> {
  const sim = await Simulator.start({ seed: 3, eventsPerSecond: 300, heartbeatTimeoutMs: 5000 });
  const client = new ExchangeClient({ restUrl: sim.restUrl, connection: { heartbeatIntervalMs: 200, reconnect: { initialDelayMs: 10, maxDelayMs: 50 } }, replica: { livenessMs: 2000 } });
  const account = { address: sim.engine.accounts[1]!.address, subaccount_id: 0 };
  const subs = [
    client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe(),
    client.bbo({ market_type: 'spot', market_id: 3 }).subscribe(),
    client.candles({ market_type: 'spot', market_id: 3, resolution: '1m' }).subscribe(),
    client.markCandles({ market_id: 1, resolution: '5m' }).subscribe(),
    client.trades({ market_type: 'perp', market_id: 0 }).subscribe(),
    client.fundingRates({ market_id: 0 }).subscribe(),
    client.account(account).subscribe(),
  ];
  const live = () => firstValueFrom(client.account(account).pipe(filter((s) => s.status === 'live'), timeout(WAIT_MS)));
  await live();
  sim.faults.dropAll();
  sim.faults.restLatencyMs(50);
  await firstValueFrom(client.orderBook({ market_type: 'perp', market_id: 0 }).pipe(filter((s) => s.status === 'live' && s.snapshotId >= 2), timeout(WAIT_MS)));
  // Closed with subscribers still attached and a fetch possibly in flight: close must release everything anyway.
  await client.close();
  await sim.stop();
  void subs;
  console.log(`closed; still active: ${JSON.stringify(process.getActiveResourcesInfo())}`);
  // Sockets end on their own (the simulator's side, pooled REST connections); once none is
  // left, whatever still holds the process is a leak: a timer (listed only when it is ref'd).
  const deadline = performance.now() + WAIT_MS;
  while (process.getActiveResourcesInfo().some((r) => r.startsWith('TCP')) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  console.log(`sockets gone; still active: ${JSON.stringify(process.getActiveResourcesInfo())}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
