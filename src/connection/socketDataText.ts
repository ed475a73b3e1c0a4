/**
 * The text of a socket message, whatever shape the socket class delivers it in (`ws` gives a
 * Buffer, or Buffer fragments; a platform WebSocket a string or an ArrayBuffer). The protocol
 * uses text frames only; a binary one is read as UTF-8 all the same (the router reports it
 * when it does not parse).
 */
import type { RawSocketData } from './connectionOptions';

/** One decoder for every call: it holds no state between `decode` calls without `stream`. */
const UTF8 = new TextDecoder();

/** Node's Buffer where there is one (a platform without it never hands one over). */
const NodeBuffer: typeof Buffer | undefined = typeof Buffer === 'undefined' ? undefined : Buffer;

export function socketDataText(data: RawSocketData): string {
  if (typeof data === 'string') return data;
  if (NodeBuffer?.isBuffer(data)) return data.toString('utf8');
  // Fragments come from `ws` only, hence under Node.
  if (Array.isArray(data)) return NodeBuffer!.concat(data).toString('utf8');
  return UTF8.decode(data);
}
