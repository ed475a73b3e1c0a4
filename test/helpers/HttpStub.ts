/**
 * A tiny scriptable HTTP server for REST tests: 127.0.0.1, port 0, routes by path, records
 * every request. A handler answers with a status and a body (JSON value or raw text), or
 * chooses to hang (never answer) or to drop the connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
}

export type StubReply =
  | { readonly status?: number; readonly json: unknown; readonly headers?: Record<string, string> }
  | { readonly status?: number; readonly text: string; readonly headers?: Record<string, string> }
  /** Never answer (until the stub closes): for timeouts and aborts. */
  | { readonly hang: true }
  /** Destroy the socket without an answer: a network failure. */
  | { readonly drop: true };

export type StubHandler = (req: StubRequest) => StubReply | Promise<StubReply>;

export class HttpStub {
  readonly requests: StubRequest[] = [];
  private readonly routes = new Map<string, StubHandler>();
  private readonly waiters: Array<{ n: number; resolve: () => void }> = [];

  private constructor(private readonly server: Server, readonly baseUrl: string) {}

  /** Starts a stub on 127.0.0.1 and an ephemeral port. */
  static async start(): Promise<HttpStub> {
    let stub: HttpStub | undefined;
    const server = createServer((req, res) => void stub!.handle(req, res));
    // Longer than the client's idle bound (undici: 4 s), so the stub never closes a socket the client is reusing.
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    stub = new HttpStub(server, `http://127.0.0.1:${port}`);
    return stub;
  }

  /** Answers requests to `path` with `handler` (replacing any previous one). */
  route(path: string, handler: StubHandler): this {
    this.routes.set(path, handler);
    return this;
  }

  /** Answers successive requests to `path` with `replies` in order; the last one repeats. */
  script(path: string, replies: readonly StubReply[]): this {
    let i = 0;
    return this.route(path, () => replies[Math.min(i++, replies.length - 1)]!);
  }

  /** Requests received for `path`. */
  requestsTo(path: string): StubRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Resolves once `n` requests in total have been received. */
  waitForRequests(n: number): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  /** Forgets routes and recorded requests. */
  reset(): void {
    this.routes.clear();
    this.requests.length = 0;
  }

  /** Closes the server and every open connection (hanging ones included). */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stub');
    const request: StubRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers };
    this.requests.push(request);
    for (const w of this.waiters.filter((w) => this.requests.length >= w.n)) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve();
    }
    const handler = this.routes.get(url.pathname);
    let reply: StubReply;
    try {
      reply = handler ? await handler(request) : { status: 404, json: { code: 'NOT_FOUND', error: `no stub route for ${url.pathname}` } };
    } catch (e) {
      reply = { status: 500, json: { code: 'INTERNAL_ERROR', error: `stub handler threw: ${(e as Error).message}` } };
    }
    if ('hang' in reply) return;
    if ('drop' in reply) {
      req.socket.destroy();
      return;
    }
    const body = 'json' in reply ? JSON.stringify(reply.json) : reply.text;
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
    res.end(body);
  }
}
