/**
 * The minimal exchange both fixed-rate senders of the benchmarks play (socket/sender.ts for
 * one client, bus/feed.ts for every subscribed client): the REST side serves the stream's
 * book snapshot and a status, the feed side answers `subscribe` and `ping`. Frames written
 * by the protocol's own writer.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import { writeServerFrame } from '../../src/protocol';

/** The one subscription id a sender hands out. */
export const SUBSCRIPTION_ID = '1';

/** Answers `/v1/orderBook` with `snapshotBody()` (a whole answer), `/v1/status`, and 404 for the rest, naming `who`. */
export function serveBookRest(req: IncomingMessage, res: ServerResponse, snapshotBody: () => string, nowNs: () => bigint, who: string): void {
  const path = (req.url ?? '').split('?')[0];
  const body = (status: number, text: string): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  };
  if (path === '/v1/orderBook') body(200, snapshotBody());
  else if (path === '/v1/status') body(200, `{"data":{"status":"ok"},"timestamp_ns":"${nowNs()}"}`);
  else body(404, `{"code":"NOT_FOUND","error":"${who} serves only /v1/orderBook and /v1/status"}`);
}

/** Answers a client frame: `subscribe` (after `onSubscribe(ws)`) with `subscribed`, `ping` with `pong`; anything else is ignored. */
export function answerClientFrame(ws: WebSocket, text: string, nowNs: () => bigint, onSubscribe: (ws: WebSocket) => void): void {
  let frame: { type?: unknown; request_id?: unknown; channel?: unknown };
  try {
    frame = JSON.parse(text) as typeof frame;
  } catch {
    return;
  }
  const requestId = typeof frame.request_id === 'string' ? frame.request_id : '';
  if (frame.type === 'subscribe') {
    onSubscribe(ws);
    ws.send(writeServerFrame({ type: 'subscribed', request_id: requestId, subscription_id: SUBSCRIPTION_ID, channel: String(frame.channel) }));
  } else if (frame.type === 'ping') ws.send(writeServerFrame({ type: 'pong', request_id: requestId, timestamp_ns: String(nowNs()) }));
}
