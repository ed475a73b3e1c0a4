/**
 * The opening handshake of a WebSocket client (RFC 6455 4.1): the HTTP/1.1 upgrade request,
 * and the check of the server's answer. No subprotocol and no extension is asked for, so an
 * answer that selects one is refused. The head's size is bounded where it is read
 * (`NodeWebSocket`, `maxHandshakeHeadBytes`).
 */
import { WebSocketProtocolError } from './WebSocketProtocolError';

/** The GUID every server appends to the key before hashing (RFC 6455 1.3). */
const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** The request for `url` (`ws:`/`wss:`), with `key` as `Sec-WebSocket-Key`. */
export function upgradeRequest(url: URL, key: string): string {
  const path = `${url.pathname || '/'}${url.search}`;
  return `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`;
}

/** The `Sec-WebSocket-Accept` a server must answer to `key`, given SHA-1 + base64. */
export function expectedAccept(key: string, sha1Base64: (text: string) => string): string {
  return sha1Base64(key + ACCEPT_GUID);
}

/**
 * Checks the answer's head (everything before the blank line).
 * @throws WebSocketProtocolError (`WS_ERR_HANDSHAKE`) naming what is wrong: a status other
 * than 101, a missing or wrong `Upgrade`/`Connection`/`Sec-WebSocket-Accept`, or a
 * subprotocol or extension that was not asked for.
 */
export function checkUpgradeResponse(head: string, accept: string): void {
  const lines = head.split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3})(?: (.*))?$/.exec(lines[0] ?? '');
  if (status === null) throw handshakeError(`the server did not answer with HTTP/1.1 (got ${JSON.stringify((lines[0] ?? '').slice(0, 80))})`);
  if (status[1] !== '101') throw handshakeError(`Unexpected server response: ${status[1]}${status[2] ? ` ${status[2]}` : ''}`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw handshakeError(`malformed header line ${JSON.stringify(line.slice(0, 80))} in the server's answer`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  if (headers.get('upgrade')?.toLowerCase() !== 'websocket') throw handshakeError("invalid Upgrade header in the server's answer (expected websocket)");
  const connection = (headers.get('connection') ?? '').toLowerCase().split(',').map((t) => t.trim());
  if (!connection.includes('upgrade')) throw handshakeError("invalid Connection header in the server's answer (expected Upgrade)");
  if (headers.get('sec-websocket-accept') !== accept) throw handshakeError("invalid Sec-WebSocket-Accept header in the server's answer");
  if (headers.has('sec-websocket-protocol')) throw handshakeError('the server selected a subprotocol, but none was requested');
  if (headers.has('sec-websocket-extensions')) throw handshakeError('the server selected an extension, but none was offered');
}

function handshakeError(message: string): WebSocketProtocolError {
  return new WebSocketProtocolError(message, 'WS_ERR_HANDSHAKE', 1002);
}
