/**
 * A hostile exchange for the reliability tests: an `http` + `ws` proxy on 127.0.0.1 in front
 * of the real simulator, which keeps the true state (pause it and read `sim.truth`). It
 * forwards everything faithfully until told to misbehave: restart a stream's numbering
 * (feed and REST agree on the new numbers), lie about a snapshot's `sequence`, inject any
 * frame into a stream (undecodable updates, `resync_required` storms, oversized frames),
 * withdraw the feed from serving sockets, and count the REST requests it served.
 *
 * Streams are named `${channel}|${market_id}` (market channels only).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { OPERATIONS } from '../../src/protocol';
import type { Simulator } from '../../src/simulator';

type Frame = Record<string, unknown>;

interface ClientLink {
  readonly client: WebSocket;
  readonly upstream: WebSocket;
  /** request_id -> stream name, from the client's subscribe frames. */
  readonly requested: Map<string, string>;
  /** subscription id -> stream name. */
  readonly streams: Map<string, string>;
}

const SNAPSHOT_CHANNEL_BY_PATH = new Map<string, string>(
  Object.values(OPERATIONS)
    .filter((op) => op.snapshotOf !== undefined)
    .map((op) => [op.path, op.snapshotOf as string]),
);

export class HostileExchange {
  /** REST requests served, by path. */
  readonly restRequests = new Map<string, number>();
  private readonly links = new Set<ClientLink>();
  /** Subtracted from a stream's seq (feed and REST) after a restart of its numbering. */
  private readonly offsets = new Map<string, bigint>();
  /** Newest upstream seq forwarded per stream. */
  private readonly newestSeq = new Map<string, bigint>();
  /** Added to a stream's REST snapshot `sequence` (a lie). */
  private readonly snapshotLies = new Map<string, bigint>();
  private refuseFeed = false;

  private constructor(
    private readonly sim: Simulator,
    private readonly http: Server,
    private readonly wss: WebSocketServer,
  ) {}

  static async start(sim: Simulator): Promise<HostileExchange> {
    const http = createServer();
    // Longer than the client's idle bound (undici: 4 s), so it never closes a socket the client is reusing.
    http.keepAliveTimeout = 65_000;
    const wss = new WebSocketServer({ server: http, path: '/ws' });
    const hostile = new HostileExchange(sim, http, wss);
    http.on('request', (req, res) => void hostile.onRest(req, res));
    wss.on('connection', (ws) => hostile.onFeedConnection(ws));
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    return hostile;
  }

  get restUrl(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  /** REST requests served for the snapshot operation at `path` (e.g. `/v1/orderBook`). */
  requestsTo(path: string): number {
    return this.restRequests.get(path) ?? 0;
  }

  /** From now on, the stream's numbering starts again at 1 on the feed and in REST snapshots. */
  restartNumbering(stream: string): void {
    this.offsets.set(stream, this.newestSeq.get(stream) ?? 0n);
  }

  /** The seq the clients see for the simulator's `upstreamSeq` of `stream` (after any restart). */
  clientSeq(stream: string, upstreamSeq: bigint): bigint {
    return upstreamSeq - (this.offsets.get(stream) ?? 0n);
  }

  /** Adds `delta` to the `sequence` of the stream's REST snapshots (undefined: honest again). */
  lieAboutSnapshots(stream: string, delta: bigint | undefined): void {
    if (delta === undefined) this.snapshotLies.delete(stream);
    else this.snapshotLies.set(stream, delta);
  }

  /** Sends a frame (built per subscription id) to every client socket subscribed to `stream`; returns how many got it. */
  inject(stream: string, frame: (subscriptionId: string) => string): number {
    let sent = 0;
    for (const link of this.links) {
      for (const [id, name] of link.streams) {
        if (name !== stream || link.client.readyState !== WebSocket.OPEN) continue;
        link.client.send(frame(id));
        sent++;
      }
    }
    return sent;
  }

  /** Sends a frame to every client socket. */
  broadcast(text: string): void {
    for (const link of this.links) if (link.client.readyState === WebSocket.OPEN) link.client.send(text);
  }

  /** Answers new feed connections with FEED_UNAVAILABLE (and closes them) while on. */
  refuseNewFeedConnections(on: boolean): void {
    this.refuseFeed = on;
  }

  /** Feed sockets currently open. */
  get feedConnections(): number {
    return this.links.size;
  }

  async close(): Promise<void> {
    for (const link of this.links) {
      link.client.terminate();
      link.upstream.terminate();
    }
    this.links.clear();
    for (const ws of this.wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  // ---- feed ------------------------------------------------------------------

  private onFeedConnection(client: WebSocket): void {
    if (this.refuseFeed) {
      client.send(JSON.stringify({ type: 'error', request_id: '', subscription_id: null, code: 'FEED_UNAVAILABLE', error: 'no feed on this deployment' }));
      client.close(1000);
      return;
    }
    const upstream = new WebSocket(this.sim.wsUrl);
    const link: ClientLink = { client, upstream, requested: new Map(), streams: new Map() };
    this.links.add(link);
    const early: string[] = [];
    client.on('message', (data) => {
      const text = data.toString();
      this.noteClientFrame(link, text);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else early.push(text);
    });
    upstream.on('open', () => {
      for (const text of early.splice(0)) upstream.send(text);
    });
    upstream.on('message', (data) => {
      if (client.readyState === WebSocket.OPEN) client.send(this.rewriteServerFrame(link, data.toString()));
    });
    const end = () => {
      this.links.delete(link);
      client.terminate();
      upstream.terminate();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  }

  private noteClientFrame(link: ClientLink, text: string): void {
    const frame = parse(text);
    if (frame?.type === 'subscribe' && typeof frame.request_id === 'string') {
      link.requested.set(frame.request_id, `${String(frame.channel)}|${String(frame.market_id)}`);
    }
  }

  private rewriteServerFrame(link: ClientLink, text: string): string {
    const frame = parse(text);
    if (frame === undefined) return text;
    if (frame.type === 'subscribed') {
      const stream = link.requested.get(String(frame.request_id));
      if (stream !== undefined) link.streams.set(String(frame.subscription_id), stream);
      return text;
    }
    if (frame.type !== 'update') return text;
    const stream = link.streams.get(String(frame.subscription_id));
    if (stream === undefined) return text;
    const seq = BigInt(String(frame.seq));
    if (seq > (this.newestSeq.get(stream) ?? 0n)) this.newestSeq.set(stream, seq);
    const offset = this.offsets.get(stream);
    if (offset === undefined) return text;
    return JSON.stringify({ ...frame, seq: String(seq - offset) });
  }

  // ---- REST ------------------------------------------------------------------

  private async onRest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.restUrl);
    this.restRequests.set(url.pathname, (this.restRequests.get(url.pathname) ?? 0) + 1);
    try {
      const upstream = await fetch(`${this.sim.restUrl}${url.pathname}${url.search}`, { method: req.method });
      const body = this.rewriteRestBody(url, await upstream.text());
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(body);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'INTERNAL', error: `hostile proxy: ${(e as Error).message}` }));
    }
  }

  private rewriteRestBody(url: URL, body: string): string {
    const channel = SNAPSHOT_CHANNEL_BY_PATH.get(url.pathname);
    if (channel === undefined) return body;
    const stream = `${channel}|${url.searchParams.get('market_id')}`;
    const offset = this.offsets.get(stream);
    const lie = this.snapshotLies.get(stream);
    if (offset === undefined && lie === undefined) return body;
    const parsed = parse(body);
    if (parsed === undefined || typeof parsed.sequence !== 'string') return body;
    let sequence = BigInt(parsed.sequence) - (offset ?? 0n);
    if (sequence < 0n) sequence = 0n;
    sequence += lie ?? 0n;
    return JSON.stringify({ ...parsed, sequence: String(sequence) });
  }
}

function parse(text: string): Frame | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Frame) : undefined;
  } catch {
    return undefined;
  }
}
