/**
 * Every emission of a client's replicas, serialized the moment it is emitted (states are live
 * views: a book read later shows later levels): status, code, seq, snapshotId, cause, both
 * timestamps and a canonical dump of the state (a book's levels, a map's entries in order).
 * Two runs went through the same states iff their logs are equal.
 */
import { createHash } from 'node:crypto';
import { Subject, type Subscription } from 'rxjs';
import { ExchangeClient, OrderBook, type MarketParams } from '../../src';
import { WAIT_MS } from '../helpers/deadlines';

/** Levels a side digested per emission (with the version, which counts every change); `fullBooks()` dumps them all. */
const DIGEST_LEVELS = 50;

/** FNV-1a (32 bits) over the best levels of a book, both sides, best first. */
function bookDigest(book: OrderBook): string {
  let h = 0x811c9dc5;
  const mix = (x: number) => {
    // Integers up to 2^53: both 26-bit halves.
    h = Math.imul(h ^ (x % 0x4000000), 0x01000193);
    h = Math.imul(h ^ Math.floor(x / 0x4000000), 0x01000193);
  };
  const level = (price: number, size: number) => {
    mix(price);
    mix(size);
  };
  book.forEachLevel('bid', DIGEST_LEVELS, level);
  mix(-1);
  book.forEachLevel('ask', DIGEST_LEVELS, level);
  return `${book.depth('bid')}/${book.depth('ask')} levels, top ${DIGEST_LEVELS} fnv ${(h >>> 0).toString(16)}, best ${book.bestBid()}/${book.bestAsk()}`;
}

/**
 * Plain JSON of anything a replica emits: bigints as `123n`, maps as entry lists, books as a
 * digest of their best levels and their version (a whole dump per update would cost more CPU
 * than the session itself).
 */
export function canonical(v: unknown): unknown {
  if (typeof v === 'bigint') return `${v}n`;
  if (v instanceof OrderBook) return { book: bookDigest(v), version: v.version };
  if (v instanceof Map) return { map: [...v.entries()].map(([k, x]) => [canonical(k), canonical(x)]) };
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonical(x)]));
  if (typeof v === 'function') return undefined;
  return v;
}

export interface EmissionTargets {
  readonly markets: readonly MarketParams[];
  readonly account?: { readonly address: string; readonly subaccount_id: number };
}

/** Subscribes, in a fixed order, to every kind of replica of `targets` and logs each emission. */
export class EmissionLog {
  readonly lines: string[] = [];
  /** Fires after each line. */
  readonly changed$ = new Subject<void>();
  /** The latest status of each replica that emits one. */
  readonly statuses = new Map<string, string>();
  private readonly subs: Subscription[] = [];

  constructor(
    private readonly client: ExchangeClient,
    private readonly targets: EmissionTargets,
  ) {}

  start(): this {
    const c = this.client;
    const add = (line: string) => {
      this.lines.push(line);
      this.changed$.next();
    };
    const push = (name: string) => (e: unknown) => {
      const status = (e as { status?: unknown }).status;
      if (typeof status === 'string' && name !== 'connection') this.statuses.set(name, status);
      const json = JSON.stringify(canonical(e));
      // Long dumps (an account, a log of 100 trades) as a digest: equal dumps, equal digests.
      add(`${name} ${json.length > 600 ? `${json.slice(0, 300)}... sha1 ${createHash('sha1').update(json).digest('hex')}` : json}`);
    };
    this.subs.push(c.connection.state$.subscribe(push('connection')));
    this.subs.push(c.errors$.subscribe((e) => add(`error ${e.code} ${e.message}`)));
    for (const m of this.targets.markets) {
      const id = `${m.market_type}${m.market_id}`;
      this.subs.push(
        c.orderBook(m).subscribe({ next: push(`book ${id}`), error: push(`book ${id} failed`) }),
        c.bbo(m).subscribe({ next: push(`bbo ${id}`), error: push(`bbo ${id} failed`) }),
        c.trades(m).subscribe({ next: push(`trades ${id}`), error: push(`trades ${id} failed`) }),
        c.recentTrades(m).subscribe({ next: push(`recentTrades ${id}`), error: push(`recentTrades ${id} failed`) }),
      );
    }
    const a = this.targets.account;
    if (a) this.subs.push(c.account(a).subscribe({ next: push('account'), error: push('account failed') }));
    return this;
  }

  stop(): void {
    for (const s of this.subs.splice(0)) s.unsubscribe();
  }

  /**
   * Resolves once `ready()` holds (checked now and after each emission), rejects after `ms`.
   */
  until(ready: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      if (ready()) return resolve();
      const timer = setTimeout(() => {
        sub.unsubscribe();
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      }, ms);
      const sub = this.changed$.subscribe(() => {
        if (!ready()) return;
        clearTimeout(timer);
        sub.unsubscribe();
        resolve();
      });
    });
  }

  /** The whole book (every level) of each market, as the replicas show it now. */
  fullBooks(): string[] {
    return this.targets.markets.map((m) => {
      let dump = '';
      this.client.orderBook(m).subscribe((e) => (dump = JSON.stringify(e.state.toSnapshot()))).unsubscribe();
      return dump;
    });
  }

  /** Every replica with a status has emitted and is live. */
  allLive(): boolean {
    const expected = this.targets.markets.length * 3 + (this.targets.account ? 1 : 0);
    return this.statuses.size === expected && [...this.statuses.values()].every((s) => s === 'live');
  }

  /** Lines of one replica (prefix `name `). */
  of(name: string): string[] {
    return this.lines.filter((l) => l.startsWith(`${name} `));
  }
}
