/**
 * The `ws` WebSocket class with one listener of the benchmark's own registered first, so it
 * sees every message before the library does. Given to the client through its documented
 * `connection.WebSocket` option: nothing in the library changes.
 */
import WebSocket from 'ws';
import type { WebSocketConstructor } from '../../src/connection';

export function instrumentedSocket(onMessage: (data: WebSocket.RawData) => void): WebSocketConstructor {
  return class InstrumentedSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on('message', onMessage);
    }
  } as unknown as WebSocketConstructor;
}
