/**
 * What the RecordingSource tests share: a simulator session recorded with seeded random
 * faults, each replica's every emission logged as it happened (status, seq and a canonical
 * dump of the state), and the same log taken from a replay. Waits are for events (a replica
 * live again, updates seen), never for a fixed time.
 */
import type { Observable, Subscription } from 'rxjs';
import { ExchangeClient, type ExchangeClientOptions, type MarketParams } from '../../src';
import { streamKey } from '../../src/protocol';
import { FeedRecorder } from '../../src/record';
import type { Simulator } from '../../src/simulator';
import { WAIT_MS } from '../helpers/deadlines';
import { canonical } from './emissionLog';

export const PERP: MarketParams = { market_type: 'perp', market_id: 0 };
export const SPOT: MarketParams = { market_type: 'spot', market_id: 4 };

/** The replicas a session records and a replay reads, by name. */
export type Target = 'bookPerp' | 'bookSpot' | 'bboPerp' | 'tradesPerp' | 'subaccount' | 'orders';
export const TARGETS: readonly Target[] = ['bookPerp', 'bookSpot', 'bboPerp', 'tradesPerp', 'subaccount', 'orders'];

interface Emission {
  readonly status: string;
  readonly seq: bigint;
  readonly state: unknown;
}

export function replicaOf(client: ExchangeClient, target: Target, account: { address: string; subaccount_id: number }): Observable<Emission> {
  switch (target) {
    case 'bookPerp':
      return client.orderBook(PERP);
    case 'bookSpot':
      return client.orderBook(SPOT);
    case 'bboPerp':
      return client.bbo(PERP);
    case 'tradesPerp':
      return client.recentTrades(PERP);
    case 'subaccount':
      return client.subaccount(account);
    case 'orders':
      return client.openOrders(account);
  }
}

/** `status seq state` of each emission of each target, serialized when emitted (states are live views). */
export class TargetLog {
  readonly lines = new Map<Target, string[]>();
  readonly errors: { target: Target; code: string }[] = [];
  private readonly subs: Subscription[] = [];
  private listeners: (() => void)[] = [];

  constructor(
    private readonly client: ExchangeClient,
    private readonly account: { address: string; subaccount_id: number },
  ) {}

  follow(target: Target): void {
    const lines: string[] = [];
    this.lines.set(target, lines);
    this.subs.push(
      replicaOf(this.client, target, this.account).subscribe({
        next: (e) => {
          lines.push(`${e.status} ${e.seq} ${JSON.stringify(canonical(e.state))}`);
          for (const l of this.listeners) l();
        },
        error: (e: { code?: string }) => this.errors.push({ target, code: String(e.code) }),
      }),
    );
  }

  stop(): void {
    for (const s of this.subs.splice(0)) s.unsubscribe();
  }

  status(target: Target): string | undefined {
    const l = this.lines.get(target);
    return l?.[l.length - 1]?.split(' ')[0];
  }

  until(ready: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!ready()) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== check);
        resolve();
      };
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_MS);
      this.listeners.push(check);
      check();
    });
  }
}

/** A small seeded generator (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fast retries: every fault heals within a second. */
export const FAST: Partial<ExchangeClientOptions> = {
  connection: { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } },
  rest: { retry: { initialDelayMs: 10, maxDelayMs: 100 } },
  resync: { retry: { initialDelayMs: 10, maxDelayMs: 100 } },
};

/**
 * Records a session of every target with `faults` random faults (resync_required, a silent
 * gap, a dropped socket, failing snapshots), each healed before the next. Returns the live log.
 */
export async function recordSession(sim: Simulator, path: string, seed: number, faults: number): Promise<{ live: TargetLog; account: { address: string; subaccount_id: number } }> {
  const a = sim.engine.accounts[1]!;
  const account = { address: a.address, subaccount_id: a.subaccount_ids[0]! };
  const client = new ExchangeClient({ restUrl: sim.restUrl, ...FAST, record: new FeedRecorder({ path }) });
  const live = new TargetLog(client, account);
  for (const t of TARGETS) live.follow(t);
  const allLive = () => TARGETS.every((t) => live.status(t) === 'live');
  const grown = (n: number) => () => allLive() && (live.lines.get('bookPerp')?.length ?? 0) >= n;
  await live.until(allLive, 'every replica live');
  const rand = seeded(seed);
  const books = [streamKey('book', { market_id: 0, is_perps: true }), streamKey('book', { market_id: 4, is_perps: false }), streamKey('trades', { market_id: 0, is_perps: true })];
  for (let i = 0; i < faults; i++) {
    const kind = Math.floor(rand() * 4);
    const key = books[Math.floor(rand() * books.length)]!;
    if (kind === 0) sim.faults.resyncStream(key, 1 + Math.floor(rand() * 3));
    else if (kind === 1) sim.faults.skipSilently(key, 1 + Math.floor(rand() * 3));
    else if (kind === 2) sim.faults.dropAll();
    else {
      sim.faults.failNextRest(1 + Math.floor(rand() * 2));
      sim.faults.resyncStream(key, 1);
    }
    const n = live.lines.get('bookPerp')!.length;
    await live.until(grown(n + 20), `fault ${i} healed`);
  }
  live.stop();
  await client.close();
  return { live, account };
}
