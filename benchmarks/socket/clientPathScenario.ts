/**
 * The library's full client path as a socket benchmark scenario: `ExchangeClient` over the
 * sender's feed (connection -> router -> replica -> observable), with the fast decoder as
 * the router's frame decoder. The subscriber counts the updates it sees (by the state's
 * `seq`: the stream starts at 1 after the snapshot's 0) and, in the latency pass, times each
 * one from its `timestamp_ns` to the moment it sees the new state. At the end, the book's
 * best levels are checked against the plain replay.
 *
 * Two entries: `client` with the library's defaults (under Node its own `NodeWebSocket`),
 * and `client+ws` with the `ws` package's socket class instead, so every run shows what the
 * default socket saves on the same path.
 */
import type { Subscription } from 'rxjs';
import WebSocket from 'ws';
import type { WebSocketConstructor } from '../../src/connection';
import { ExchangeClient } from '../../src/client';
import { fastDecodeServerFrame } from '../../src/protocol/fastDecode';
import type { OrderBook } from '../../src/replicas/book';
import { diffTop, type TopLevels } from '../book/deltaStream';
import type { Scenario } from './scenarios';

const LIVE_TIMEOUT_MS = 15_000;

const exactTop = (book: OrderBook, n: number): TopLevels => {
  const t = book.top(n);
  const pairs = (ls: typeof t.bids) => ls.map((l): [string, string] => [l.price_ticks, l.size_base_lots]);
  return { bids: pairs(t.bids), asks: pairs(t.asks) };
};

/** The client path with `socket` as the connection's socket class (undefined: the default). */
function clientPathOn(id: string, label: string, socket: WebSocketConstructor | undefined): Scenario {
  return {
    id,
    label,
    timesLatency: true,
    async start(ctx) {
      const client = new ExchangeClient({ restUrl: ctx.restUrl, wsUrl: ctx.url, strict: true, router: { decode: fastDecodeServerFrame }, ...(socket ? { connection: { WebSocket: socket } } : {}) });
      const { record, latencyOf } = ctx;
      let seen = 0;
      let book: OrderBook | undefined;
      let failure: unknown;
      let sub: Subscription | undefined;
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`book replica not live within ${LIVE_TIMEOUT_MS} ms`)), LIVE_TIMEOUT_MS);
          sub = client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe({
            next: (e) => {
              book = e.state as OrderBook;
              if (e.cause === 'update') {
                seen = Number(e.seq);
                if (record) record(latencyOf(String(e.timestampNs)));
              } else if (e.status === 'live') {
                clearTimeout(timer);
                resolve();
              }
            },
            error: (err: unknown) => {
              failure = err;
              clearTimeout(timer);
              reject(err instanceof Error ? err : new Error(String(err)));
            },
          });
        });
      } catch (e) {
        sub?.unsubscribe();
        await client.close();
        throw e;
      }
      return {
        received: () => seen,
        check: (expect) => {
          if (failure !== undefined) return `replica failed: ${String(failure)}`;
          const resyncs = Object.values(client.resyncCounts()).reduce((a, b) => a + b, 0);
          if (resyncs > 0) return `the replica resynced ${resyncs} time(s)`;
          if (seen !== expect.frames) return `saw seq ${seen}, ${expect.frames} were sent`;
          return book ? diffTop(exactTop(book, expect.top.bids.length), expect.top) : 'no book state';
        },
        close: async () => {
          sub?.unsubscribe();
          await client.close();
        },
      };
    },
  };
}

export const clientPath: Scenario = clientPathOn('client', 'library client (ExchangeClient, fast decoder)', undefined);
export const clientPathOnWs: Scenario = clientPathOn('client+ws', 'library client on the ws socket class', WebSocket);
