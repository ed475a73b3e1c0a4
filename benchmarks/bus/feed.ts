/**
 * The exchange of the bus benchmark, in its OWN process (forked by the benchmark): one
 * fixed-rate `book` stream (a seeded delta stream, see deltaStream.ts) sent to EVERY
 * subscribed client at once, so the relay and the direct client see the same feed. As the
 * socket benchmark's sender (sender.ts): every 1 ms tick sends the frames due by then, each
 * stamped with its send time on the wall clock shared with the other processes
 * (wallClock.ts), the tick's batch in one write per client. Unlike it, the stream goes on
 * across `start`/`stop` (the seq never restarts: the relay and the consumers stay up for the
 * whole run), and `/v1/orderBook` answers the book as of the last frame sent, with that
 * sequence (the relay fetches snapshots while the stream runs).
 *
 * IPC: `FeedCommand` / `FeedReply` (busProtocol.ts); argv[2]: `FeedArgs` as JSON.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { FEED_PATH, updateFramePrefix, writeUpdateData, writeUpdateFrame } from '../../src/protocol';
import { answerClientFrame, serveBookRest, SUBSCRIPTION_ID } from '../socket/minimalFeed';
import { makeDeltaStream, ReplayBook, type DeltaStream } from '../book/deltaStream';
import type { FeedArgs, FeedCommand, FeedReply } from './busProtocol';

const TICK_MS = 1;
/** Levels a side the snapshot holds at most (the `depth` the client asks for). */
const SNAPSHOT_DEPTH = 500;

const args = JSON.parse(process.argv[2] ?? '{}') as FeedArgs;
const anchorNs = BigInt(args.anchorNs);
const nowNs = (): bigint => anchorNs + process.hrtime.bigint();
const reply = (r: FeedReply): void => void process.send!(r);

const stream: DeltaStream = makeDeltaStream(args.stream);
const dataJson = stream.frames.map((f) => writeUpdateData('book', { bids: f.bids, asks: f.asks }));
const prefix = updateFramePrefix(SUBSCRIPTION_ID, 'book');
/** The subscribed sockets, in subscription order. */
const clients: WebSocket[] = [];
/** The book as of `applied` frames: brought up to `sent` when a snapshot is asked for (off the send path). */
const book = new ReplayBook(stream.snapshot);
let applied = 0;
let sent = 0;
let maxBuffered = 0;
let ticker: NodeJS.Timeout | undefined;

function snapshotBody(): string {
  while (applied < sent) book.apply(stream.frames[applied++]!);
  const top = book.top(SNAPSHOT_DEPTH);
  const side = (ls: [string, string][]) => ls.map(([p, s]) => ({ price_ticks: p, size_base_lots: s }));
  return `{"data":${JSON.stringify({ bids: side(top.bids), asks: side(top.asks) })},"sequence":"${sent}","timestamp_ns":"${nowNs()}"}`;
}

const socketOf = (ws: WebSocket): Socket => (ws as unknown as { _socket: Socket })._socket;

/** Sends the frames due at `rate` since `t0` (counted from `base`), to every client. */
function tick(rate: number, base: number, t0: bigint, rotation: { n: number }): void {
  const due = Math.min(dataJson.length, base + Math.floor((Number(process.hrtime.bigint() - t0) * rate) / 1e9));
  if (due <= sent) return;
  // Clients take turns being first, so none is always served a few µs ahead.
  const order = clients.length > 1 ? [...clients.slice(rotation.n % clients.length), ...clients.slice(0, rotation.n % clients.length)] : clients;
  rotation.n++;
  for (const ws of order) socketOf(ws).cork();
  while (sent < due) {
    const frame = writeUpdateFrame(prefix, BigInt(sent + 1), nowNs(), dataJson[sent]!);
    for (const ws of order) ws.send(frame);
    sent++;
  }
  for (const ws of order) {
    socketOf(ws).uncork();
    if (ws.bufferedAmount > maxBuffered) maxBuffered = ws.bufferedAmount;
  }
}

function start(rate: number): void {
  if (ticker) clearInterval(ticker);
  const base = sent;
  const t0 = process.hrtime.bigint();
  const rotation = { n: 0 };
  ticker = setInterval(() => tick(rate, base, t0, rotation), TICK_MS);
}

function stop(): void {
  if (ticker) clearInterval(ticker);
  ticker = undefined;
}

const count = (): FeedReply => ({ type: 'count', sent, clients: clients.length, exhausted: sent >= dataJson.length, maxBufferedBytes: maxBuffered });

function main(): void {
  const http = createServer((req, res) => serveBookRest(req, res, snapshotBody, nowNs, 'the bus benchmark feed'));
  const wss = new WebSocketServer({ server: http, path: FEED_PATH, perMessageDeflate: false });
  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) answerClientFrame(ws, data.toString(), nowNs, (w) => void (clients.includes(w) || clients.push(w)));
    });
    ws.on('close', () => {
      const i = clients.indexOf(ws);
      if (i >= 0) clients.splice(i, 1);
    });
  });
  process.on('message', (cmd: FeedCommand) => {
    switch (cmd.cmd) {
      case 'start':
        start(cmd.rate);
        reply({ type: 'started' });
        break;
      case 'stop':
        stop();
        reply(count());
        break;
      case 'count':
        reply(count());
        break;
      case 'exit':
        stop();
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        http.close(() => process.exit(0));
        break;
    }
  });
  // The benchmark owns this process: when it goes, so does the feed.
  process.on('disconnect', () => process.exit(0));
  http.listen(0, '127.0.0.1', () => reply({ type: 'ready', port: (http.address() as AddressInfo).port }));
}

main();
