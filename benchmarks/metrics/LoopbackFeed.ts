/**
 * A feed in this process for one client: a socket class (`connection.WebSocket`) whose
 * server side answers `subscribe` and `ping`, and `push` to hand the client a frame as the
 * socket would (synchronously, as one `message` event).
 */
import type { RawSocketData, WebSocketConstructor } from '../../src/connection';
import { writeServerFrame } from '../../src/protocol';

type Listener = (...args: unknown[]) => void;

export class LoopbackFeed {
  private socket?: { fire(event: string, ...args: unknown[]): void };

  /** The socket class to give the client (one client per feed). */
  socketClass(): WebSocketConstructor {
    const feed = this;
    class LoopbackSocket {
      readyState = 0;
      private readonly listeners = new Map<string, Listener[]>();
      constructor(readonly url: string) {
        feed.socket = this;
        setImmediate(() => {
          this.readyState = 1;
          this.fire('open');
        });
      }
      on(event: string, listener: Listener): this {
        this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
        return this;
      }
      fire(event: string, ...args: unknown[]): void {
        for (const l of this.listeners.get(event) ?? []) l(...args);
      }
      send(text: string): void {
        const f = JSON.parse(text) as { type: string; request_id: string; channel: string };
        const reply =
          f.type === 'subscribe'
            ? writeServerFrame({ type: 'subscribed', request_id: f.request_id, subscription_id: '1', channel: f.channel })
            : f.type === 'ping'
              ? writeServerFrame({ type: 'pong', request_id: f.request_id, timestamp_ns: String(process.hrtime.bigint()) })
              : undefined;
        if (reply) setImmediate(() => this.fire('message', Buffer.from(reply), false));
      }
      close(): void {
        this.readyState = 3;
        setImmediate(() => this.fire('close', 1000, Buffer.alloc(0)));
      }
      terminate(): void {
        this.close();
      }
    }
    return LoopbackSocket as unknown as WebSocketConstructor;
  }

  /** One frame to the client, now. */
  push(data: RawSocketData): void {
    if (!this.socket) throw new Error('LoopbackFeed: the client has not opened its socket');
    this.socket.fire('message', data, false);
  }
}
