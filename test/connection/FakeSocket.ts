/**
 * A WebSocket test double for the fake-timer tests: it does nothing by itself; the test
 * opens it, feeds it frames or fails it. Every instance is recorded with its creation time.
 */
import { EventEmitter } from 'node:events';
import type { WebSocketLike } from '../../src/connection';

export class FakeSocket extends EventEmitter implements WebSocketLike {
  static instances: FakeSocket[] = [];
  readyState = 0;
  readonly sent: string[] = [];
  readonly createdAt = Date.now();
  terminated = false;
  closedByClient = false;

  constructor(readonly url: string) {
    super();
    FakeSocket.instances.push(this);
  }

  static reset(): void {
    FakeSocket.instances = [];
  }

  static last(): FakeSocket {
    const s = FakeSocket.instances[FakeSocket.instances.length - 1];
    if (!s) throw new Error('no socket created yet');
    return s;
  }

  send(data: string): void {
    if (this.readyState !== 1) throw new Error('FakeSocket: send on a socket that is not open');
    this.sent.push(data);
  }

  close(): void {
    this.closedByClient = true;
    this.readyState = 3;
  }

  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
  }

  // ---- test controls ----
  open(): void {
    this.readyState = 1;
    this.emit('open');
  }

  receive(frame: object | string): void {
    this.emit('message', Buffer.from(typeof frame === 'string' ? frame : JSON.stringify(frame)), false);
  }

  /** Connection refused (before open) or dropped (after open). */
  fail(code = 1006): void {
    this.readyState = 3;
    this.emit('error', new Error('ECONNRESET'));
    this.emit('close', code, Buffer.alloc(0));
  }

  pings(): number {
    return this.sent.filter((s) => (JSON.parse(s) as { type: string }).type === 'ping').length;
  }
}
