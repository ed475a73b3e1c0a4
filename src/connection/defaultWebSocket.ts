/**
 * The socket class a connection uses when none is given: under Node the library's own
 * `NodeWebSocket` (the cheapest receive path measured for the feed, see its module comment),
 * the platform's standard WebSocket anywhere else. The `ws` package's `WebSocket` stays
 * usable as `connection.WebSocket` (it offers permessage-deflate).
 */
import type { WebSocketConstructor } from './connectionOptions';
import { NodeWebSocket } from './node/NodeWebSocket';
import { isStandardSocketClass } from './openFeedSocket';

/** Whether this is Node with `process.getBuiltinModule` (Node 20.16+; Bun and Deno say Node too and have it). */
function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof process.getBuiltinModule === 'function';
}

/**
 * `NodeWebSocket` under Node, else `globalThis.WebSocket` when the platform has one, else
 * `NodeWebSocket` (whose construction then throws: reported and retried like any socket
 * that cannot be created).
 */
export function defaultWebSocket(): WebSocketConstructor {
  if (isNode()) return NodeWebSocket;
  const platform: unknown = Reflect.get(globalThis, 'WebSocket');
  return isStandardSocketClass(platform) ? platform : NodeWebSocket;
}
