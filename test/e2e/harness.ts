/** Client <-> simulator over real sockets on 127.0.0.1: start, wait on emissions, compare with the truth. */
import { filter, firstValueFrom, timeout, type Observable } from 'rxjs';
import { ExchangeClient, type ExchangeClientOptions, type OrderBook, type PriceLevel, type ReplicaState } from '../../src';
import { Simulator, type SimulatorOptions } from '../../src/simulator';
import { WAIT_MS } from '../helpers/deadlines';

export interface Pair {
  sim: Simulator;
  client: ExchangeClient;
  close(): Promise<void>;
}

export async function startPair(sim: Partial<SimulatorOptions> = {}, client: Partial<ExchangeClientOptions> = {}): Promise<Pair> {
  const s = await Simulator.start({ seed: 1, ...sim });
  const c = new ExchangeClient({
    restUrl: s.restUrl,
    ...client,
    connection: { reconnect: { initialDelayMs: 20, maxDelayMs: 200 }, ...client.connection },
    rest: { retry: { initialDelayMs: 10, maxDelayMs: 100 }, ...client.rest },
    resync: { retry: { initialDelayMs: 10, maxDelayMs: 100 }, ...client.resync },
  });
  return {
    sim: s,
    client: c,
    async close() {
      await c.close();
      await s.stop();
    },
  };
}

/** The first emission satisfying `pred`, within `ms` (generous: the machine may be loaded). */
export function waitFor<T>(obs: Observable<T>, pred: (v: T) => boolean, what: string, ms = WAIT_MS): Promise<T> {
  return firstValueFrom(
    obs.pipe(
      filter(pred),
      timeout({ first: ms, with: () => { throw new Error(`timed out after ${ms} ms waiting for ${what}`); } }),
    ),
  );
}

/** The `sequence` and data of a snapshot operation of the paused simulator. */
export function truth<T = unknown>(sim: Simulator, op: Parameters<Simulator['truth']>[0], params: Record<string, string | number>): { sequence: bigint; data: T } {
  const r = sim.truth(op, params);
  if (r.status !== 200) throw new Error(`truth ${op} answered ${r.status}: ${JSON.stringify(r.body)}`);
  const body = r.body as { data: T; sequence?: string };
  return { sequence: BigInt(body.sequence ?? '0'), data: body.data };
}

/**
 * Pauses the engine, waits for the book replica of `market` live at the truth's sequence and
 * compares 200 levels a side (well inside the truth's depth 500), then resumes.
 */
export async function expectBookEqualToTruth(pair: Pair, market: { market_type: 'perp' | 'spot'; market_id: number }, label: string): Promise<ReplicaState<OrderBook>> {
  pair.sim.pause();
  const t = truth<{ bids: PriceLevel[]; asks: PriceLevel[] }>(pair.sim, 'orderBook', { ...market, depth: 500 });
  const e = await waitFor(pair.client.orderBook(market), (s) => s.status === 'live' && s.seq === t.sequence, `${label}: book live at seq ${t.sequence}`);
  const book = e.state as OrderBook;
  const mine = book.toSnapshot(200);
  expect({ label, bids: mine.bids, asks: mine.asks }).toEqual({ label, bids: t.data.bids.slice(0, 200), asks: t.data.asks.slice(0, 200) });
  expect(book.isCrossed()).toBe(false);
  pair.sim.resume();
  return e as ReplicaState<OrderBook>;
}
