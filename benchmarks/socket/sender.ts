/**
 * The sender of the socket benchmark, run in its OWN process (forked by `SenderProcess`) so
 * that its work never shows in the client's CPU time. A minimal feed on 127.0.0.1: answers
 * `subscribe` with `subscribed` and `ping` with `pong` at `/ws`, serves the stream's
 * snapshot at `/v1/orderBook` (sequence 0), and on command sends the pre-encoded `book`
 * updates of a seeded delta stream at a fixed rate: every tick (1 ms unless told) it sends the frames due
 * by then (in one corked write, or each on its own: `SenderStyle`), each stamped with its
 * send time (shared wall clock, see wallClock.ts) and written in the simulator's own frame
 * format.
 *
 * IPC protocol: see `SenderCommand` and `SenderReply`.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { FEED_PATH, updateFramePrefix, writeUpdateData, writeUpdateFrame } from '../../src/protocol';
import { answerClientFrame, serveBookRest, SUBSCRIPTION_ID } from './minimalFeed';
import { makeDeltaStream } from '../book/deltaStream';
import type { SenderCommand, SenderReply, SenderStyle } from './senderProtocol';

const DEFAULT_TICK_MS = 1;

let anchorNs = 0n;
let dataJson: string[] = [];
let snapshotJson = '';
let client: WebSocket | undefined;
let ticker: NodeJS.Timeout | undefined;
let sent = 0;
let maxBuffered = 0;

const reply = (r: SenderReply) => process.send!(r);
const nowNs = () => anchorNs + process.hrtime.bigint();

function start(rate: number, maxFrames: number, style: SenderStyle, tickMs: number): void {
  const ws = client;
  if (!ws) {
    reply({ type: 'error', message: 'start: no subscribed client' });
    return;
  }
  const socket = (ws as unknown as { _socket: Socket })._socket;
  const prefix = updateFramePrefix(SUBSCRIPTION_ID, 'book');
  const limit = Math.min(maxFrames, dataJson.length);
  const t0 = process.hrtime.bigint();
  sent = 0;
  maxBuffered = 0;
  ticker = setInterval(() => {
    const due = Math.min(limit, Math.floor((Number(process.hrtime.bigint() - t0) * rate) / 1e9));
    if (due <= sent) return;
    // batched: one write for the whole batch, the frames due this tick leave together.
    // perFrame: each frame its own write (and segment), stamped just before it leaves.
    if (style === 'batched') socket.cork();
    while (sent < due) {
      ws.send(writeUpdateFrame(prefix, BigInt(sent + 1), nowNs(), dataJson[sent]!));
      sent++;
    }
    if (style === 'batched') socket.uncork();
    if (ws.bufferedAmount > maxBuffered) maxBuffered = ws.bufferedAmount;
  }, tickMs);
}

function stop(): void {
  if (ticker) clearInterval(ticker);
  ticker = undefined;
  reply({ type: 'stopped', sent, maxBufferedBytes: maxBuffered });
}

function main(): void {
  const http = createServer((req, res) => serveBookRest(req, res, () => `{"data":${snapshotJson},"sequence":"0","timestamp_ns":"${nowNs()}"}`, nowNs, 'the benchmark sender'));
  const wss = new WebSocketServer({ server: http, path: FEED_PATH, perMessageDeflate: false });
  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) answerClientFrame(ws, data.toString(), nowNs, (w) => (client = w));
    });
    ws.on('close', () => {
      if (client === ws) client = undefined;
    });
  });
  process.on('message', (cmd: SenderCommand) => {
    switch (cmd.cmd) {
      case 'init': {
        anchorNs = BigInt(cmd.anchorNs);
        const stream = makeDeltaStream(cmd.stream);
        snapshotJson = JSON.stringify(stream.snapshot);
        dataJson = stream.frames.map((f) => writeUpdateData('book', { bids: f.bids, asks: f.asks }));
        http.listen(0, '127.0.0.1', () => reply({ type: 'ready', port: (http.address() as AddressInfo).port }));
        break;
      }
      case 'start':
        start(cmd.rate, cmd.maxFrames, cmd.style, cmd.tickMs ?? DEFAULT_TICK_MS);
        reply({ type: 'started' });
        break;
      case 'stop':
        stop();
        break;
      case 'exit':
        if (ticker) clearInterval(ticker);
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        http.close(() => process.exit(0));
        break;
    }
  });
  // The parent owns this process: when it goes, so does the sender.
  process.on('disconnect', () => process.exit(0));
}

main();
