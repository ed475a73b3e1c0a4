/**
 * The socket class a connection uses when none is given: `ws` under Node (it enforces
 * `maxFrameBytes` before buffering and offers permessage-deflate), the platform's standard
 * WebSocket anywhere else. `ws` maps to a stub that throws in browser bundles (its `browser`
 * field): importing it there is harmless as long as it is never constructed.
 */
import WebSocket from 'ws';
import type { WebSocketConstructor } from './connectionOptions';
import { isStandardSocketClass } from './openFeedSocket';

/** Whether this is Node (Bun and Deno, which also run `ws`, say so too). */
function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string';
}

/**
 * `ws` under Node, else `globalThis.WebSocket` when the platform has one, else `ws` (whose
 * browser stub then throws on construction: reported and retried like any socket that
 * cannot be created).
 */
export function defaultWebSocket(): WebSocketConstructor {
  if (isNode()) return WebSocket;
  const platform: unknown = Reflect.get(globalThis, 'WebSocket');
  return isStandardSocketClass(platform) ? platform : WebSocket;
}
