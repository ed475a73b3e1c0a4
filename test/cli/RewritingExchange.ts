/**
 * An exchange that names things with terminal escape sequences: an `http` + `ws` proxy on
 * 127.0.0.1 in front of a real simulator that rewrites, in every REST answer and every feed
 * frame it forwards, each occurrence of a plain word by a hostile one (e.g. the market
 * `BTC-PERP` becomes `BTC\x1b]52;c;...\x07-PERP`). The rewrite happens on the JSON text,
 * the hostile string written as a JSON string escape, so the client receives well-formed
 * answers whose strings hold the raw control characters. Point `--rest-url` at `url`: the
 * feed is at the same host (`/ws`), as with the simulator itself.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import type { Simulator } from '../../src/simulator';

/** Every occurrence of `word` (plain text: no quote, no backslash) in a string becomes `hostile`. */
export interface Rewrite {
  readonly word: string;
  readonly hostile: string;
}

/** `text` (JSON) with each word replaced by its hostile form, JSON-escaped. */
function rewrite(text: string, rules: readonly Rewrite[]): string {
  let out = text;
  for (const r of rules) out = out.split(r.word).join(JSON.stringify(r.hostile).slice(1, -1));
  return out;
}

export class RewritingExchange {
  private constructor(
    private readonly sim: Simulator,
    private readonly rules: readonly Rewrite[],
    private readonly http: Server,
    private readonly wss: WebSocketServer,
  ) {}

  static async start(sim: Simulator, rules: readonly Rewrite[]): Promise<RewritingExchange> {
    const http = createServer();
    const wss = new WebSocketServer({ server: http, path: '/ws' });
    const exchange = new RewritingExchange(sim, rules, http, wss);
    http.on('request', (req, res) => void exchange.onRest(req, res));
    wss.on('connection', (ws) => exchange.onFeed(ws));
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    return exchange;
  }

  /** The REST base URL (the feed is `/ws` on it). */
  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  private async onRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const upstream = await fetch(`${this.sim.restUrl}${req.url ?? '/'}`, { method: req.method ?? 'GET' });
      const body = rewrite(await upstream.text(), this.rules);
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(body);
    } catch {
      res.destroy();
    }
  }

  private onFeed(client: WebSocket): void {
    const upstream = new WebSocket(this.sim.wsUrl);
    const queued: Array<[RawData, boolean]> = [];
    upstream.on('open', () => {
      for (const [data, binary] of queued.splice(0)) upstream.send(data, { binary });
    });
    client.on('message', (data, binary) => (upstream.readyState === WebSocket.OPEN ? upstream.send(data, { binary }) : queued.push([data, binary])));
    upstream.on('message', (data, binary) => {
      if (client.readyState !== WebSocket.OPEN) return;
      if (binary) client.send(data, { binary });
      else client.send(rewrite(String(data), this.rules));
    });
    client.on('close', () => upstream.close());
    upstream.on('close', () => client.close());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }

  async stop(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
