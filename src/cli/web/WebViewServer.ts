/**
 * The web view's server: node:http on 127.0.0.1 serving one page (`/`, `/app.js`,
 * `/app.css`) and pushing snapshots as Server-Sent Events (`/events`). Each page gets the
 * newest snapshot at once, then every one published. A page that reads slower than they
 * come never grows memory: once its socket is backed up (a write returned false), only the
 * newest snapshot waits for it, replacing older ones (each snapshot is complete), so what
 * is buffered per page is bounded by the socket's high-water mark plus two snapshots.
 * `close` tells every page the view stopped (`event: end`) and closes every connection. @internal
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExchangeReplicaError } from '../../errors';
import { messageOf } from '../../errors/messageOf';
import { PAGE_HTML } from './pageHtml';
import { PAGE_SCRIPT } from './pageScript';
import { PAGE_STYLE } from './pageStyle';
import type { WebSnapshot } from './WebSnapshot';

/** The only address served: the view is for this machine's browser. */
export const WEB_HOST = '127.0.0.1';

/** Same-origin only: no inline script, no other origin for anything. */
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/** How long a page that stopped reading may keep the server from closing. */
const CLOSE_GRACE_MS = 1000;

const END_EVENT = 'event: end\ndata: {}\n\n';

const ASSETS: Readonly<Record<string, { type: string; body: string }>> = {
  '/': { type: 'text/html; charset=utf-8', body: PAGE_HTML },
  '/app.js': { type: 'text/javascript; charset=utf-8', body: PAGE_SCRIPT },
  '/app.css': { type: 'text/css; charset=utf-8', body: PAGE_STYLE },
};

/** What one page's connection holds, for tests and diagnostics. */
export interface EventClientStats {
  /** Bytes written but not yet taken by the socket. */
  readonly bufferedBytes: number;
  /** Bytes of the newest snapshot waiting for the socket to drain (0 when none). */
  readonly pendingBytes: number;
  /** Snapshots replaced by a newer one before this page could take them. */
  readonly dropped: number;
}

/** One page's event stream: writes while the socket takes them, else keeps only the newest event. */
class EventClient {
  private backedUp = false;
  private pending: string | undefined;
  private droppedCount = 0;
  private readonly onDrain = (): void => {
    this.backedUp = false;
    const next = this.pending;
    this.pending = undefined;
    if (next !== undefined) this.send(next);
  };

  constructor(readonly res: ServerResponse) {
    res.on('drain', this.onDrain);
  }

  send(event: string): void {
    if (this.backedUp) {
      if (this.pending !== undefined) this.droppedCount++;
      this.pending = event;
      return;
    }
    this.backedUp = !this.res.write(event);
  }

  stats(): EventClientStats {
    return { bufferedBytes: this.res.writableLength, pendingBytes: this.pending === undefined ? 0 : Buffer.byteLength(this.pending), dropped: this.droppedCount };
  }

  end(finalEvent: string): void {
    this.res.off('drain', this.onDrain);
    this.res.end(finalEvent);
  }
}

function eventOf(snapshot: WebSnapshot): string {
  // JSON.stringify escapes newlines, so one `data:` line carries the whole snapshot.
  return `data: ${JSON.stringify(snapshot)}\n\n`;
}

export class WebViewServer {
  private readonly clients = new Set<EventClient>();
  private readonly http: Server = createServer((req, res) => this.handle(req, res));
  private latest: string | undefined;
  private closing: Promise<void> | undefined;
  private boundPort = 0;

  private constructor() {}

  /**
   * Listens on 127.0.0.1:`port` (0: any free port).
   * @throws ExchangeReplicaError `ERR_CLI_USAGE` (param `--port`) when the port cannot be listened on (in use, not allowed)
   */
  static async start(port: number): Promise<WebViewServer> {
    const server = new WebViewServer();
    try {
      server.boundPort = await listen(server.http, port);
      return server;
    } catch (e) {
      throw new ExchangeReplicaError('ERR_CLI_USAGE', `cannot serve the web view on ${WEB_HOST}:${port}: ${messageOf(e)}; pick another with --port N (0: any free port)`, { param: '--port' }, { cause: e });
    }
  }

  /** The port listened on (the one asked, or the free one picked for 0). */
  get port(): number {
    return this.boundPort;
  }

  /** The page's address. */
  get url(): string {
    return `http://${WEB_HOST}:${this.port}/`;
  }

  /** Pages connected to the event stream. */
  get clientCount(): number {
    return this.clients.size;
  }

  /** Each connected page's buffering (bounded whatever the page's pace). */
  clientStats(): EventClientStats[] {
    return [...this.clients].map((c) => c.stats());
  }

  /** Pushes a snapshot to every page (serialized once). */
  publish(snapshot: WebSnapshot): void {
    if (this.closing) return;
    const event = eventOf(snapshot);
    this.latest = event;
    for (const c of this.clients) c.send(event);
  }

  /**
   * Ends every page's stream with `event: end` (its connection closes after it), then closes
   * the server; a page that stopped reading is cut after a second. Idempotent.
   */
  close(): Promise<void> {
    return (this.closing ??= new Promise<void>((resolve) => {
      for (const c of this.clients) c.end(END_EVENT);
      this.clients.clear();
      const cut = setTimeout(() => this.http.closeAllConnections(), CLOSE_GRACE_MS);
      this.http.close(() => {
        clearTimeout(cut);
        resolve();
      });
      this.http.closeIdleConnections();
    }));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    // A page served to another host name (DNS rebinding) gets nothing.
    if (req.headers.host !== `${WEB_HOST}:${this.port}` && req.headers.host !== `localhost:${this.port}`) return void res.writeHead(403).end();
    if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
    const path = new URL(req.url ?? '/', this.url).pathname;
    if (path === '/events') return this.stream(res);
    // Browsers ask for one; the page has none (and says so without a 404 in the console).
    if (path === '/favicon.ico') return void res.writeHead(204, SECURITY_HEADERS).end();
    const asset = ASSETS[path];
    if (!asset) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    res.writeHead(200, { 'content-type': asset.type, 'content-length': Buffer.byteLength(asset.body), ...SECURITY_HEADERS });
    res.end(asset.body);
  }

  private stream(res: ServerResponse): void {
    if (this.closing) return void res.writeHead(503).end();
    // `connection: close`: the socket goes with the stream, so `close` needs no idle sweep.
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', connection: 'close', ...SECURITY_HEADERS });
    // No Nagle delay: a snapshot goes out as soon as it is written.
    res.socket?.setNoDelay(true);
    const client = new EventClient(res);
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
    res.write('retry: 1000\n\n');
    if (this.latest !== undefined) client.send(this.latest);
  }
}

function listen(http: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void => reject(e);
    http.once('error', onError);
    http.listen(port, WEB_HOST, () => {
      http.off('error', onError);
      resolve((http.address() as AddressInfo).port);
    });
  });
}
