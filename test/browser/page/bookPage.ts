/**
 * The browser page of test/browser/bookInBrowser.test.ts, bundled from the TypeScript sources
 * with esbuild (platform browser). It creates an ExchangeClient on the platform's own
 * WebSocket and fetch (the defaults outside Node), subscribes to one book replica and keeps
 * what the test reads on `globalThis.bookProbe`: the latest status and seq, every status in
 * order, every error, and the levels on demand.
 */
import { ExchangeClient, type BookLevels, type OrderBook, type ReplicaState } from '../../../src';

/** What the test polls. */
export interface BookView {
  readonly status: string;
  readonly seq: string;
  readonly snapshotId: number;
  /** Every status the replica went through, in order, consecutive repeats collapsed. */
  readonly statuses: readonly string[];
  /** Messages of the client's `error` events. */
  readonly errors: readonly string[];
  /** What the client was built with. */
  readonly socketClass: string;
}

export interface BookProbe {
  view(): BookView;
  levels(depth: number): BookLevels;
  close(): Promise<void>;
}

/** The page starts once the test calls it with the simulator's REST URL. */
function startBook(restUrl: string): BookProbe {
  const client = new ExchangeClient({
    restUrl,
    // A credentials header, as a private endpoint would need: every REST call gets a CORS preflight.
    rest: { headers: { authorization: 'Bearer page-token' }, retry: { initialDelayMs: 10, maxDelayMs: 100 } },
    connection: { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } },
    resync: { retry: { initialDelayMs: 10, maxDelayMs: 100 } },
  });
  const statuses: string[] = [];
  const errors: string[] = [];
  let latest: ReplicaState<OrderBook> | undefined;
  client.events.on('error', (e) => errors.push(`${e.code}: ${e.message}`));
  const subscription = client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe({
    next: (s) => {
      latest = s;
      if (statuses[statuses.length - 1] !== s.status) statuses.push(s.status);
    },
    error: (e: unknown) => errors.push(`replica stream failed: ${String(e)}`),
  });
  return {
    view: () => ({
      status: latest?.status ?? 'none',
      seq: String(latest?.seq ?? -1n),
      snapshotId: latest?.snapshotId ?? 0,
      statuses: [...statuses],
      errors: [...errors],
      socketClass: client.connection.options.WebSocket.name,
    }),
    levels: (depth) => latest?.state.toSnapshot(depth) ?? { bids: [], asks: [] },
    close: async () => {
      subscription.unsubscribe();
      await client.close();
    },
  };
}

Reflect.set(globalThis, 'startBook', (restUrl: string) => Reflect.set(globalThis, 'bookProbe', startBook(restUrl)));
