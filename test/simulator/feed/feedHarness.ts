/** Test support: a feed server on 127.0.0.1:0 over a hand-driven hub, and a recording client. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { encodeBase58, scopeMarketType, ServerFrame, type ChannelName, type Scope } from '../../../src/protocol';
import type { ScopeChecker } from '../../../src/simulator/ScopeChecker';
import { FeedServer, type FeedServerOptions } from '../../../src/simulator/feed/FeedServer';
import { SimStreamHub } from '../../../src/simulator/SimStreamHub';
import { WAIT_MS } from '../../helpers/deadlines';

export const ADDRESS = encodeBase58(new Uint8Array(32).fill(7));
export const OTHER_ADDRESS = encodeBase58(new Uint8Array(32).fill(9));

/** Spot markets 0 and 1, perp markets 0 and 2, one account with subaccounts 0 and 1. */
export const testScopes: ScopeChecker = {
  checkScopeExists(channel: ChannelName, scope: Scope): string | undefined {
    if (scope.market_id !== undefined) {
      const type = scopeMarketType(channel, scope);
      const ids = type === 'perp' ? [0, 2] : [0, 1];
      if (!ids.includes(scope.market_id)) return `unknown ${type} market ${scope.market_id}`;
    }
    if (scope.address !== undefined) {
      if (scope.address !== ADDRESS) return `unknown account ${scope.address}`;
      if (![0, 1].includes(scope.subaccount_id!)) return `unknown subaccount ${scope.subaccount_id}`;
    }
    return undefined;
  },
};

export const BOOK0: Scope = { market_id: 0, is_perps: true };

export interface FeedHarness {
  readonly http: Server;
  readonly hub: SimStreamHub;
  readonly feed: FeedServer;
  readonly url: string;
  /** Opens a recording client (closed by `close`). */
  connect(): Promise<TestClient>;
  close(): Promise<void>;
}

export async function startFeed(options: FeedServerOptions = {}): Promise<FeedHarness> {
  const http = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  const hub = new SimStreamHub();
  const feed = new FeedServer(http, hub, testScopes, options);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  const url = `ws://127.0.0.1:${port}/ws`;
  const clients: TestClient[] = [];
  return {
    http,
    hub,
    feed,
    url,
    async connect() {
      const c = await TestClient.connect(url);
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) c.terminate();
      await feed.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Frame = Record<string, any>;


/** A WebSocket client that records every frame, checks each against the strict server-frame schema, and waits on frames. */
export class TestClient {
  readonly frames: Frame[] = [];
  /** Frames that failed the protocol's strict schema (should stay empty). */
  readonly invalid: string[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = data.toString();
      const frame = JSON.parse(text) as Frame;
      if (!ServerFrame.safeParse(frame).success) this.invalid.push(text);
      this.frames.push(frame);
      this.wake();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      this.wake();
    }));
    ws.on('error', () => {});
  }

  static connect(url: string): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const client = new TestClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  send(frame: object | string): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Subscribes and returns the `subscribed` frame's subscription id. */
  async subscribe(channel: string, scope: Scope, requestId = `sub-${channel}-${Math.random()}`): Promise<string> {
    this.send({ type: 'subscribe', request_id: requestId, channel, ...scope });
    const ack = await this.waitFor((f) => f.request_id === requestId);
    if (ack.type !== 'subscribed') throw new Error(`subscribe refused: ${JSON.stringify(ack)}`);
    return ack.subscription_id as string;
  }

  /** Pings and waits for the pong: every frame the server sent before it has then arrived. */
  async roundTrip(requestId = `ping-${Math.random()}`): Promise<Frame> {
    this.send({ type: 'ping', request_id: requestId });
    return this.waitFor((f) => f.type === 'pong' && f.request_id === requestId);
  }

  /** The first recorded frame matching `pred` (waiting for it if needed). */
  waitFor(pred: (f: Frame) => boolean, timeoutMs = WAIT_MS): Promise<Frame> {
    return this.waitForCount(pred, 1, timeoutMs).then((l) => l[0]!);
  }

  /** The first `n` recorded frames matching `pred`. */
  waitForCount(pred: (f: Frame) => boolean, n: number, timeoutMs = WAIT_MS): Promise<Frame[]> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.frames.filter(pred);
        if (found.length >= n) {
          resolve(found.slice(0, n));
          return true;
        }
        return false;
      };
      if (check()) return;
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out waiting for ${n} frame(s); got ${JSON.stringify(this.frames.slice(-5))}`));
      }, timeoutMs);
      const waiter = (): void => {
        if (check()) {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== waiter);
        }
      };
      this.waiters.push(waiter);
    });
  }

  updates(subscriptionId: string): Frame[] {
    return this.frames.filter((f) => f.type === 'update' && f.subscription_id === subscriptionId);
  }

  terminate(): void {
    this.ws.terminate();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
