/**
 * A TCP server on 127.0.0.1 that speaks WebSocket by hand, for what a server library never
 * sends: a broken answer to the upgrade, a head without end, fragments without end, a ping
 * flood while it reads nothing. Each connection is a {@link RawPeer}; the test's `answer`
 * decides what it does once the request head is in.
 */
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { WAIT_MS } from '../helpers/deadlines';
import { waitUntil } from '../helpers/WsTestServer';



/** `Sec-WebSocket-Accept` for a key (RFC 6455 4.2.2). */
export function acceptFor(key: string): string {
  return createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
}

/** A proper 101 answer to `key`, with `extra` header lines (each ending in CRLF). */
export function upgradeAnswer(key: string, extra = ''): string {
  return `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptFor(key)}\r\n${extra}\r\n`;
}

/** One unmasked server frame. */
export function serverFrame(opcode: number, payload: Uint8Array = new Uint8Array(), fin = true): Buffer {
  const n = payload.length;
  const head = n < 126 ? [n] : n < 65536 ? [126, n >> 8, n & 255] : [127, 0, 0, 0, 0, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  return Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode, ...head]), payload]);
}

/** A frame the client sent, unmasked. */
export interface ClientFrameSeen {
  readonly opcode: number;
  readonly payload: Buffer;
}

/** Appends the whole masked client frames at the start of `bytes` to `into`; returns the bytes they took. */
function parseFrames(bytes: Buffer, into: ClientFrameSeen[]): number {
  let pos = 0;
  while (bytes.length - pos >= 6) {
    let size = bytes[pos + 1]! & 0x7f;
    let header = 2;
    if (size === 126) {
      size = bytes.readUInt16BE(pos + 2);
      header = 4;
    } else if (size === 127) {
      size = Number(bytes.readBigUInt64BE(pos + 2));
      header = 10;
    }
    const start = pos + header + 4;
    if (bytes.length < start + size) break;
    const mask = bytes.subarray(pos + header, start);
    const payload = Buffer.from(bytes.subarray(start, start + size)).map((b, i) => b ^ mask[i & 3]!);
    into.push({ opcode: bytes[pos]! & 0x0f, payload: Buffer.from(payload) });
    pos = start + size;
  }
  return pos;
}

export class RawPeer extends EventEmitter {
  /** The request head, and its `Sec-WebSocket-Key`. */
  head = '';
  key = '';
  /** Bytes the client sent after its request head, in order, not yet parsed into `frames`. */
  private readonly after: Buffer[] = [];
  private unparsed: Buffer = Buffer.alloc(0);
  private readonly frames: ClientFrameSeen[] = [];
  isClosed = false;

  constructor(readonly socket: Socket) {
    super();
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.isClosed = true;
      this.emit('closed');
    });
  }

  /** Called once by the server with the bytes that followed the request head. */
  gotHead(head: string, rest: Buffer): void {
    this.head = head;
    this.key = /Sec-WebSocket-Key: (\S+)/i.exec(head)?.[1] ?? '';
    this.socket.on('data', (d: Buffer) => {
      this.after.push(d);
      this.emit('data');
    });
    if (rest.length > 0) this.after.push(rest);
  }

  write(bytes: Uint8Array | string): boolean {
    return this.socket.write(bytes);
  }

  /** Writes `bytes`, waiting for the socket to drain when it asks to (a server that respects backpressure). */
  async writeAll(chunks: Iterable<Uint8Array>): Promise<void> {
    for (const chunk of chunks) {
      if (this.isClosed) return;
      if (this.socket.write(chunk)) continue;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.socket.off('drain', done).off('close', done);
          resolve();
        };
        this.socket.on('drain', done).on('close', done);
      });
    }
  }

  /** Every whole frame the client sent so far (after its request head). */
  clientFrames(): ClientFrameSeen[] {
    // Parsed once, as the bytes come: a flood of pongs read again from the start on every read took seconds.
    if (this.after.length > 0) {
      this.unparsed = Buffer.concat([this.unparsed, ...this.after.splice(0)]);
      this.unparsed = this.unparsed.subarray(parseFrames(this.unparsed, this.frames));
    }
    return this.frames;
  }

  /** Resolves once a client frame matches (checked now and on every read). */
  waitForFrame(match: (f: ClientFrameSeen) => boolean, what: string): Promise<void> {
    return waitUntil(this, 'data', () => this.clientFrames().some(match), what, WAIT_MS);
  }

  waitClosed(): Promise<void> {
    return waitUntil(this, 'closed', () => this.isClosed, 'the client socket to close', WAIT_MS);
  }
}

export class RawWsServer extends EventEmitter {
  readonly peers: RawPeer[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    super();
  }

  /** Listens; `answer` runs for each connection once its request head is in. */
  static async start(answer: (peer: RawPeer) => void): Promise<RawWsServer> {
    let self: RawWsServer | undefined;
    const server = createServer((socket) => {
      const peer = new RawPeer(socket);
      self!.peers.push(peer);
      self!.emit('peer');
      let head = Buffer.alloc(0);
      const onData = (d: Buffer) => {
        head = Buffer.concat([head, d]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        socket.off('data', onData);
        peer.gotHead(head.toString('latin1', 0, end), head.subarray(end + 4));
        answer(peer);
      };
      socket.on('data', onData);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new RawWsServer(server, `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`);
    return self;
  }

  /** Resolves with connection number `index` (0-based) once it exists. */
  async peer(index: number): Promise<RawPeer> {
    await waitUntil(this, 'peer', () => this.peers.length > index, `server connection #${index}`, WAIT_MS);
    return this.peers[index]!;
  }

  close(): Promise<void> {
    for (const p of this.peers) p.socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
