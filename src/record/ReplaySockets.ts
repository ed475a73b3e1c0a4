/**
 * The sockets of a replayed client: a socket class whose every call (create, send, close,
 * terminate) is checked against the log, numbered from 1 in the order the client creates
 * them, and the listeners the replayer delivers socket inputs to.
 */
import type { WebSocketClientOptions, WebSocketConstructor, WebSocketLike } from '../connection/connectionOptions';
import { ConnectionFailedError } from '../errors';
import type { CloseEntry, MessageEntry, OpenEntry, SocketErrorEntry } from './entries';
import { SocketListeners, type SocketEvent } from './ioShapes';
import type { ReplayLog } from './replayLog';

/** One socket as the replayer sees it. */
interface ReplaySocketHandle {
  readyState: number;
  readonly listeners: SocketListeners;
}

export class ReplaySockets {
  /** The socket class the replayed client is given. */
  readonly WebSocket: WebSocketConstructor;
  private count = 0;
  private readonly byId = new Map<number, ReplaySocketHandle>();

  constructor(log: ReplayLog) {
    this.WebSocket = this.socketClass(log);
  }

  /**
   * Delivers a socket input to the listeners of its socket, as `ws` would.
   * @returns what the client did instead when it has no such socket (a divergence)
   */
  deliver(e: MessageEntry | OpenEntry | CloseEntry | SocketErrorEntry): string | undefined {
    const s = this.byId.get(e[2]);
    if (s === undefined) return `the client has no socket #${e[2]}`;
    switch (e[0]) {
      case 'm':
        s.listeners.emit('message', [e[3], e.length === 5]);
        break;
      case 'o':
        s.readyState = 1;
        s.listeners.emit('open', []);
        break;
      case 'c':
        s.readyState = 3;
        s.listeners.emit('close', [e[3], Buffer.from(e[4], 'utf8')]);
        break;
      case 'e': {
        // An input, not an error of ours: the socket's error as \`ws\` gave it (message, platform \`code\`), which the connection reads.
        const error = new Error(e[3]);
        if (e[4] !== null) Object.assign(error, { code: e[4] });
        s.listeners.emit('error', [error]);
      }
    }
    return undefined;
  }

  private socketClass(log: ReplayLog): WebSocketConstructor {
    const sockets = this;
    return class ReplaySocket implements WebSocketLike {
      private readonly handle: ReplaySocketHandle;
      private readonly id: number;

      constructor(url: string, _options: WebSocketClientOptions) {
        const id = (this.id = ++sockets.count);
        this.handle = { readyState: 0, listeners: new SocketListeners() };
        if (!log.attached()) return;
        const e = log.take<readonly ['S', number, string] | readonly ['S', number, string, string]>('S', () => `create socket #${id} for ${url}`);
        if (e === undefined) return;
        if (e[1] !== id || e[2] !== url) {
          log.divergeAt(e, `create socket #${id} for ${url}`);
          return;
        }
        // The recorded class threw from its constructor: so does this one, with the same message (the connection reports it as its cause).
        if (e.length === 4) throw new ConnectionFailedError(e[3]);
        sockets.byId.set(id, this.handle);
      }

      get readyState(): number {
        return this.handle.readyState;
      }

      on(event: SocketEvent, listener: (...args: never[]) => void): this {
        this.handle.listeners.add(event, listener);
        return this;
      }

      send(data: string): void {
        if (!log.attached()) return;
        const e = log.take<readonly ['s', number, string]>('s', () => `send on socket #${this.id}: ${data.slice(0, 120)}`);
        if (e !== undefined && (e[1] !== this.id || e[2] !== data)) log.divergeAt(e, `send on socket #${this.id}: ${data.slice(0, 120)}`);
      }

      close(code?: number, reason?: string): void {
        if (this.handle.readyState < 2) this.handle.readyState = 2;
        if (!log.attached()) return;
        const e = log.take<readonly ['C', number, number | null, string | null]>('C', () => `close socket #${this.id} (code ${code})`);
        if (e !== undefined && (e[1] !== this.id || e[2] !== (code ?? null) || e[3] !== (reason ?? null))) log.divergeAt(e, `close socket #${this.id} (code ${code}, ${reason})`);
      }

      terminate(): void {
        if (this.handle.readyState < 2) this.handle.readyState = 2;
        if (!log.attached()) return;
        const e = log.take<readonly ['K', number]>('K', () => `terminate socket #${this.id}`);
        if (e !== undefined && e[1] !== this.id) log.divergeAt(e, `terminate socket #${this.id}`);
      }
    };
  }
}
