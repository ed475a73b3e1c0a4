/**
 * Brief HEARTBEAT_TIMEOUT silences for the soak: a WebSocket class for the client whose
 * outgoing protocol pings can be withheld for a while, as if the client's keep-alive had
 * stalled. Every other frame (subscribe, unsubscribe) still leaves, so the server's idle
 * timer is what ends the connection (HEARTBEAT_TIMEOUT), exactly as with a real silent client.
 */
import WebSocket from 'ws';
import type { WebSocketConstructor } from '../../src';

export class SilenceGate {
  private until = 0;
  /** Ping frames withheld so far. */
  withheld = 0;

  /** Withholds pings for the next `ms` milliseconds. */
  silence(ms: number): void {
    this.until = Math.max(this.until, performance.now() + ms);
  }

  get silent(): boolean {
    return performance.now() < this.until;
  }

  /** A WebSocket class that consults this gate before sending. */
  socketClass(): WebSocketConstructor {
    const gate = this;
    return class GatedWebSocket extends WebSocket {
      override send(data: unknown, ...rest: unknown[]): void {
        if (gate.silent && typeof data === 'string' && data.includes('"type":"ping"')) {
          gate.withheld++;
          return;
        }
        (super.send as (...a: unknown[]) => void)(data, ...rest);
      }
    } as unknown as WebSocketConstructor;
  }
}
