/**
 * What a WebSocket client writes to its TCP socket, with the bytes queued behind the kernel
 * bounded. A server that stops reading makes every write wait in the socket's queue: pongs
 * written for each of its pings grew that queue without end (300 MB of pings cost ~380 MB).
 * Here a ping is answered at once only when nothing is queued; otherwise just the latest
 * ping's pong waits, and is written once the queue has emptied (RFC 6455 5.5.3 allows
 * answering only the most recent ping). A data frame that would take the queue past the
 * limit is not written at all: the caller fails the connection.
 */
import { CLIENT_OPCODE, clientFrame } from './clientFrame';

/** The part of a Node socket the writer uses. */
export interface WritableSocket {
  /** Bytes written but not yet handed to the kernel. */
  readonly writableLength: number;
  write(data: Uint8Array, callback: (error?: Error | null) => void): boolean;
}

/** Bytes of a masked frame around its payload, for a payload under 126 bytes (every control frame). */
const CONTROL_FRAME_OVERHEAD = 6;

export class FrameWriter {
  private pendingPong: Uint8Array | undefined;
  private stopped = false;

  /**
   * @param maxQueuedBytes most bytes a data frame may leave queued (a frame is always written onto an empty queue, whatever its size)
   * @param randomMask fills a frame's 4 mask bytes
   */
  constructor(
    private readonly socket: WritableSocket,
    readonly maxQueuedBytes: number,
    private readonly randomMask: (into: Buffer) => void,
  ) {}

  /** Bytes waiting to be sent: queued in the socket, plus a pong waiting for the queue to empty. */
  get queuedBytes(): number {
    return this.socket.writableLength + (this.pendingPong === undefined ? 0 : CONTROL_FRAME_OVERHEAD + this.pendingPong.length);
  }

  /**
   * Writes one data frame.
   * @returns false, writing nothing, when the frame would take the queue past the limit (the server is not reading)
   */
  send(opcode: number, payload: Uint8Array): boolean {
    if (this.stopped) return true;
    const frame = clientFrame(opcode, payload, this.randomMask);
    const queued = this.socket.writableLength;
    if (queued > 0 && queued + frame.length > this.maxQueuedBytes) return false;
    this.socket.write(frame, this.afterWrite);
    return true;
  }

  /** Answers a ping: now when nothing is queued, else later, if no newer ping replaces it first. */
  pong(payload: Uint8Array): void {
    if (this.stopped) return;
    if (this.socket.writableLength > 0) {
      this.pendingPong = payload;
      return;
    }
    // The queue emptied before the completion that would have sent a waiting pong ran: this newer one replaces it.
    this.pendingPong = undefined;
    this.socket.write(clientFrame(CLIENT_OPCODE.pong, payload, this.randomMask), this.afterWrite);
  }

  /** Writes the close frame, whatever is queued, and nothing after it (a waiting pong is dropped). */
  close(payload: Uint8Array): void {
    if (this.stopped) return;
    this.stop();
    this.socket.write(clientFrame(CLIENT_OPCODE.close, payload, this.randomMask), noop);
  }

  /** Writes nothing more (the socket is ending). */
  stop(): void {
    this.stopped = true;
    this.pendingPong = undefined;
  }

  /** Each write's completion: once the queue is empty, the waiting pong goes. */
  private readonly afterWrite = (error?: Error | null): void => {
    if (error || this.stopped || this.pendingPong === undefined || this.socket.writableLength > 0) return;
    const payload = this.pendingPong;
    this.pendingPong = undefined;
    this.socket.write(clientFrame(CLIENT_OPCODE.pong, payload, this.randomMask), this.afterWrite);
  };
}

function noop(): void {}
