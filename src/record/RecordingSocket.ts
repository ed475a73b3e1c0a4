/**
 * The socket class a `FeedRecorder` hands its client: it opens the real socket (any
 * class the connection accepts, heard through the connection's own adapter), logs each event
 * as an input and delivers it through the recorder's queue (a macrotask of its own, in arrival
 * order), and logs what the client does with it (create, send, close, terminate). @internal
 */
import { openFeedSocket, type FeedSocket } from '../connection/openFeedSocket';
import type { RawSocketData, WebSocketClientOptions, WebSocketConstructor, WebSocketLike } from '../connection/connectionOptions';
import { socketDataText } from '../connection/socketDataText';
import type { Entry, InputEntry } from './entries';
import { SocketListeners, type SocketEvent } from './ioShapes';

/** What a recording socket logs through: its recorder. */
export interface SocketLog {
  /** The number of a new socket (1 for the first of the session). */
  nextSocketId(): number;
  /** The recorded time now, ms since the session began. */
  at(): number;
  /** Logs an input and delivers it in its turn, if still `valid` then. */
  enqueue(entry: InputEntry, deliver: () => void, valid: () => boolean): void;
  /** Logs something the client did. */
  logOutput(entry: Entry): void;
}

const always = (): boolean => true;

/** The recording socket class over `Base`. */
export function recordingSocketClass(Base: WebSocketConstructor, rec: SocketLog): WebSocketConstructor {
  return class RecordingSocket implements WebSocketLike {
    readyState = 0;
    private readonly listeners = new SocketListeners();
    private readonly real: FeedSocket;
    private readonly id: number;

    constructor(url: string, options: WebSocketClientOptions) {
      const id = (this.id = rec.nextSocketId());
      let real: FeedSocket;
      // The real socket's own timers (its closing bound) are not inputs of the session: it keeps its default clock.
      const { clock: _recorded, ...socketOptions } = options;
      try {
        // Either shape of class, heard through the connection's own adapter.
        real = openFeedSocket(Base, url, socketOptions, {
          open: () => rec.enqueue(['o', rec.at(), id], () => this.deliver('open'), always),
          message: (data: RawSocketData, isBinary: boolean) => {
            const text = socketDataText(data);
            rec.enqueue(isBinary ? ['m', rec.at(), id, text, 1] : ['m', rec.at(), id, text], () => this.deliver('message', data, isBinary), always);
          },
          close: (code: number, reason: RawSocketData) => rec.enqueue(['c', rec.at(), id, code, socketDataText(reason)], () => this.deliver('close', code, reason), always),
          error: (error: Error) => {
            const code = 'code' in error ? error.code : undefined;
            rec.enqueue(['e', rec.at(), id, error.message, typeof code === 'string' ? code : null], () => this.deliver('error', error), always);
          },
        });
      } catch (e) {
        rec.logOutput(['S', id, url, e instanceof Error ? e.message : String(e)]);
        throw e;
      }
      rec.logOutput(['S', id, url]);
      this.real = real;
    }

    on(event: SocketEvent, listener: (...args: never[]) => void): this {
      this.listeners.add(event, listener);
      return this;
    }

    send(data: string): void {
      rec.logOutput(['s', this.id, data]);
      try {
        this.real.send(data);
      } catch {
        // The real socket is already closing: the frame is lost, as it would be.
      }
    }

    close(code?: number, reason?: string): void {
      rec.logOutput(['C', this.id, code ?? null, reason ?? null]);
      if (this.readyState < 2) this.readyState = 2;
      try {
        this.real.close(code, reason);
      } catch {
        // `ws` throws on a bad code; the socket is ended either way.
      }
    }

    terminate(): void {
      rec.logOutput(['K', this.id]);
      if (this.readyState < 2) this.readyState = 2;
      this.real.terminate();
    }

    private deliver(event: SocketEvent, ...args: unknown[]): void {
      if (event === 'open') this.readyState = 1;
      else if (event === 'close') this.readyState = 3;
      this.listeners.emit(event, args);
    }
  };
}
