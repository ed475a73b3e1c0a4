/** A router on a real connection to the scriptable test server, plus recorders to wait on. */
import { EventEmitter } from 'node:events';
import type { Observable, Subscription } from 'rxjs';
import { Connection, type ConnectionOptions } from '../../src/connection';
import type { ExchangeReplicaError } from '../../src/errors';
import { SubscriptionRouter, type RouterEvent, type RouterOptions, type UpdateEvent } from '../../src/router';
import { waitUntil, WsTestServer, type WsTestServerOptions } from '../helpers/WsTestServer';

/** Records what one subscriber receives. */
export class StreamRecorder extends EventEmitter {
  readonly events: RouterEvent[] = [];
  error: (Error & { code?: string; param?: string }) | undefined;
  completed = false;
  readonly subscription: Subscription;

  constructor(source: Observable<RouterEvent>) {
    super();
    this.subscription = source.subscribe({
      next: (e) => {
        this.events.push(e);
        this.emit('event');
      },
      error: (e: Error) => {
        this.error = e;
        this.emit('event');
      },
      complete: () => {
        this.completed = true;
        this.emit('event');
      },
    });
  }

  kinds(): string[] {
    return this.events.map((e) => e.kind);
  }

  updates(): UpdateEvent[] {
    return this.events.filter((e): e is UpdateEvent => e.kind === 'update');
  }

  count(kind: RouterEvent['kind']): number {
    return this.events.filter((e) => e.kind === kind).length;
  }

  last<K extends RouterEvent['kind']>(kind: K): Extract<RouterEvent, { kind: K }> | undefined {
    const matching = this.events.filter((e) => e.kind === kind);
    return matching[matching.length - 1] as Extract<RouterEvent, { kind: K }> | undefined;
  }

  waitFor(check: () => boolean, what: string): Promise<void> {
    return waitUntil(this, 'event', check, what);
  }

  waitCount(kind: RouterEvent['kind'], n: number): Promise<void> {
    return this.waitFor(() => this.count(kind) >= n, `${n} ${kind} event(s)`);
  }

  waitError(): Promise<void> {
    return this.waitFor(() => this.error !== undefined, 'an error');
  }

  unsubscribe(): void {
    this.subscription.unsubscribe();
  }
}

export interface Harness {
  server: WsTestServer;
  connection: Connection;
  router: SubscriptionRouter;
  /** Errors reported on `router.errors`. */
  errors: ExchangeReplicaError[];
  errorEvents: EventEmitter;
  waitErrors(n: number): Promise<void>;
  /** Resolves once no request is pending and the server holds `serverSubs` live subscriptions. */
  settled(serverSubs: number): Promise<void>;
  close(): Promise<void>;
}

const open: Harness[] = [];

export async function startHarness(options: { server?: WsTestServerOptions; router?: RouterOptions; connection?: Partial<ConnectionOptions> } = {}): Promise<Harness> {
  const server = await WsTestServer.start(options.server);
  const connection = new Connection({ url: server.url, reconnect: { initialDelayMs: 5, maxDelayMs: 50, jitter: 0 }, ...options.connection });
  const router = new SubscriptionRouter(connection, { requestTimeoutMs: 5_000, ...options.router });
  const errors: ExchangeReplicaError[] = [];
  const errorEvents = new EventEmitter();
  router.errors.subscribe((e) => {
    errors.push(e);
    errorEvents.emit('error-reported');
  });
  const h: Harness = {
    server,
    connection,
    router,
    errors,
    errorEvents,
    waitErrors: (n) => waitUntil(errorEvents, 'error-reported', () => errors.length >= n, `${n} router error(s)`),
    settled: (serverSubs) =>
      waitUntil(connection as never, 'message', () => router.pendingRequests() === 0 && server.liveSubscriptions() === serverSubs, `router settled with ${serverSubs} server subscription(s) (pending ${router.pendingRequests()}, server ${server.liveSubscriptions()})`),
    close: async () => {
      router.close();
      connection.close();
      await server.close();
    },
  };
  open.push(h);
  return h;
}

/** Closes every harness started by the test (call in afterEach). */
export async function closeHarnesses(): Promise<void> {
  for (const h of open.splice(0)) await h.close();
}

export const BOOK_0 = { market_id: 0, is_perps: true } as const;
export const BOOK_1 = { market_id: 1, is_perps: false } as const;
export const EMPTY_BOOK_UPDATE = { bids: [], asks: [] };
export const bookUpdate = (price: number) => ({ bids: [{ price_ticks: String(price), size_base_lots: '5' }], asks: [] });
