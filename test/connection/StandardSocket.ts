/**
 * A standard-shaped (WHATWG) socket class for tests under Node 20, which has no global
 * WebSocket: `addEventListener`, `binaryType` ('blob' until set, as in a browser), `close()`,
 * and no `on()` or `terminate()`. It runs over a real `ws` socket; binary frames arrive as
 * `ArrayBuffer` only when `binaryType` is 'arraybuffer' (a `Blob` otherwise, as the standard says).
 */
import WebSocket from 'ws';
import type { StandardWebSocketLike } from '../../src/connection';

type StandardEventName = 'open' | 'error' | 'message' | 'close';
/** One event object for every type (each listener reads only its own fields). */
interface AnyEvent {
  readonly data: unknown;
  readonly code: number;
  readonly reason: string;
}

export class StandardSocket implements StandardWebSocketLike {
  /** Every instance, in creation order. */
  static readonly instances: StandardSocket[] = [];
  binaryType: 'blob' | 'arraybuffer' = 'blob';
  /** Set by close(): the arguments it was called with. */
  closedWith: { code?: number; reason?: string } | undefined;
  private readonly ws: WebSocket;
  private readonly listeners = new Map<StandardEventName, Array<(event: AnyEvent) => void>>();

  constructor(url: string) {
    this.ws = new WebSocket(url);
    StandardSocket.instances.push(this);
    this.ws.on('open', () => this.dispatch('open', {}));
    this.ws.on('error', () => this.dispatch('error', {}));
    this.ws.on('close', (code, reason) => this.dispatch('close', { code, reason: reason.toString('utf8') }));
    this.ws.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) return this.dispatch('message', { data: data.toString('utf8') });
      const bytes = new Uint8Array(data);
      this.dispatch('message', { data: this.binaryType === 'arraybuffer' ? bytes.buffer : new Blob([bytes]) });
    });
  }

  get readyState(): number {
    return this.ws.readyState;
  }

  send(data: string): void {
    this.ws.send(data);
  }

  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    this.ws.close(code, reason);
  }

  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { readonly code: number; readonly reason: string }) => void): void;
  addEventListener(type: StandardEventName, listener: (event: AnyEvent) => void): void {
    const list = this.listeners.get(type) ?? [];
    list.push(listener);
    this.listeners.set(type, list);
  }

  private dispatch(type: StandardEventName, fields: Partial<AnyEvent>): void {
    const event: AnyEvent = { data: undefined, code: 0, reason: '', ...fields };
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}
