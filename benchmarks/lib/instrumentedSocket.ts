/**
 * The library's default socket class under Node (`NodeWebSocket`) with one listener of the
 * benchmark's own registered first, so it sees every message before the library does. Given
 * to the client through its documented `connection.WebSocket` option: the path measured is
 * the default one, and nothing in the library changes.
 */
import type { RawSocketData, WebSocketClientOptions, WebSocketConstructor } from '../../src/connection';
import { NodeWebSocket } from '../../src/connection/node/NodeWebSocket';

export function instrumentedSocket(onMessage: (data: RawSocketData) => void): WebSocketConstructor {
  return class InstrumentedSocket extends NodeWebSocket {
    constructor(url: string, options: WebSocketClientOptions) {
      super(url, options);
      this.on('message', onMessage);
    }
  };
}
