/**
 * Reads the frames a WebSocket server sends (RFC 6455, no extension negotiated) from the
 * bytes of a TCP stream, in whatever pieces they arrive. The hot case, a whole unfragmented
 * text frame inside one read, costs one header check and one UTF-8 decode straight from the
 * read buffer: no copy, no intermediate object. Only bytes that must outlive the read (a
 * frame cut by the read's end, fragments, control payloads) are copied, each into one
 * growing buffer (linear in its size, no object per piece).
 *
 * Limits are checked on the header, before any payload is buffered: a message's size (a
 * fragmented one counted whole) and its number of fragments. What the reader holds is thus
 * bounded by the message limit (at most twice it, with the doubling growth) plus one read,
 * however the server cuts its frames.
 */
import { DEFAULT_MAX_FRAGMENTS_PER_MESSAGE } from '../socketLimits';
import { GrowingBuffer } from './GrowingBuffer';
import { WebSocketProtocolError } from './WebSocketProtocolError';

/** What a {@link FrameReader} reports, in stream order. */
export interface FrameSink {
  text(text: string): void;
  binary(data: Uint8Array): void;
  ping(payload: Uint8Array): void;
  pong(): void;
  /** The server's close frame (1005 when it had no code). Nothing is read after it. */
  close(code: number, reason: string): void;
  /** The server broke the protocol (or a message is too large). Nothing is read after it. */
  violation(error: WebSocketProtocolError): void;
}

const OP_CONTINUATION = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

/** `text.indexOf` target: `toString('utf8')` puts U+FFFD where the bytes were not UTF-8. */
const REPLACEMENT_CHAR = '\uFFFD';
/** Checks the rare text that holds U+FFFD (a real one, or a replaced invalid sequence). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A close code a server may send (RFC 6455 7.4; 1004-1006 and 1015 never go on the wire). */
export function isValidCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/** The text of `bytes[start, end)`, or undefined when they are not valid UTF-8. */
function utf8Text(bytes: Buffer, start: number, end: number): string | undefined {
  const text = bytes.toString('utf8', start, end);
  if (text.indexOf(REPLACEMENT_CHAR) === -1) return text;
  try {
    STRICT_UTF8.decode(bytes.subarray(start, end));
    return text;
  } catch {
    return undefined;
  }
}

export class FrameReader {
  /** The unread bytes of a frame cut by the end of a read (a copy), starting at that frame's first byte. */
  private readonly held = new GrowingBuffer();
  /** Size of the frame `held` starts with, header included (0: its header is not whole yet). */
  private needed = 0;
  /** The payload of the message being reassembled from fragments (a copy), its first frame's opcode, and its frames so far. */
  private readonly fragments = new GrowingBuffer();
  private fragmentOpcode = 0;
  private fragmentCount = 0;
  private done = false;

  /**
   * @param maxPayload largest message accepted, in bytes (a fragmented one counted whole)
   * @param maxFragments most frames one message may come in
   */
  constructor(
    private readonly sink: FrameSink,
    private readonly maxPayload: number,
    private readonly maxFragments: number = DEFAULT_MAX_FRAGMENTS_PER_MESSAGE,
  ) {}

  /** Bytes the reader holds between reads (allocated, not just used): a frame cut by a read, and a fragmented message's payload so far. */
  get bufferedBytes(): number {
    return this.held.capacity + this.fragments.capacity;
  }

  /** Stops reading: nothing more is reported (the socket is being ended). */
  stop(): void {
    this.done = true;
    this.held.clear();
    this.fragments.clear();
  }

  /** Reads `chunk[0, end)`. The chunk may be reused by the caller afterwards: what must stay is copied. */
  push(chunk: Buffer, end: number): void {
    if (this.done) return;
    if (this.held.length === 0) {
      const pos = this.parse(chunk, end);
      if (!this.done && pos < end) this.held.append(chunk, pos, end, this.needed);
      return;
    }
    this.held.append(chunk, 0, end, this.needed);
    if (this.held.length < this.needed) return;
    const bytes = this.held.bytes();
    const pos = this.parse(bytes, bytes.length);
    if (!this.done) this.held.dropFront(pos);
  }

  /**
   * Reads every whole frame of `buf[0, len)`; returns where the first incomplete one starts
   * (`len` when none), with {@link needed} set to its size when its header is whole.
   */
  private parse(buf: Buffer, len: number): number {
    this.needed = 0;
    let pos = 0;
    while (!this.done) {
      const avail = len - pos;
      if (avail < 2) break;
      const b0 = buf[pos]!;
      const b1 = buf[pos + 1]!;
      let size = b1 & 0x7f;
      let header = 2;
      if (size === 126) {
        if (avail < 4) break;
        size = (buf[pos + 2]! << 8) | buf[pos + 3]!;
        header = 4;
      } else if (size === 127) {
        if (avail < 10) break;
        const high = buf.readUInt32BE(pos + 2);
        // Above 2^53 - 1 a length is not even a safe number: refused like any oversized message.
        size = high > 0x1fffff ? Number.MAX_SAFE_INTEGER + 1 : high * 2 ** 32 + buf.readUInt32BE(pos + 6);
        header = 10;
      }
      const wrong = this.checkHeader(b0, b1, size);
      if (wrong !== undefined) {
        this.fail(wrong);
        break;
      }
      if (avail < header + size) {
        this.needed = header + size;
        break;
      }
      const start = pos + header;
      pos = start + size;
      this.frame(b0, buf, start, pos);
    }
    return pos;
  }

  /** What is wrong with a frame's header, if anything (RFC 6455 5.2, 5.4, 5.5, and the size limit). */
  private checkHeader(b0: number, b1: number, size: number): WebSocketProtocolError | undefined {
    if ((b0 & 0x70) !== 0) return new WebSocketProtocolError('invalid WebSocket frame: RSV bits set, but no extension was negotiated', 'WS_ERR_UNEXPECTED_RSV_1', 1002);
    if ((b1 & 0x80) !== 0) return new WebSocketProtocolError('invalid WebSocket frame: a server frame must not be masked', 'WS_ERR_UNEXPECTED_MASK', 1002);
    const opcode = b0 & 0x0f;
    if (opcode >= OP_CLOSE) {
      if (opcode > OP_PONG) return invalidOpcode(opcode);
      if ((b0 & 0x80) === 0) return new WebSocketProtocolError('invalid WebSocket frame: a control frame must not be fragmented', 'WS_ERR_EXPECTED_FIN', 1002);
      if (size > 125) return new WebSocketProtocolError(`invalid WebSocket frame: control frame payload of ${size} bytes (at most 125)`, 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH', 1002);
      return undefined;
    }
    if (opcode === OP_CONTINUATION) {
      if (this.fragmentOpcode === 0) return new WebSocketProtocolError('invalid WebSocket frame: continuation frame without a message to continue', 'WS_ERR_INVALID_OPCODE', 1002);
      // Counted on the header too: empty fragments cost no bytes, and a message that never ends is refused here.
      if (this.fragmentCount >= this.maxFragments) return new WebSocketProtocolError(`Too many fragments: a message in more than ${this.maxFragments} frames`, 'WS_ERR_TOO_MANY_FRAGMENTS', 1009);
      return this.overLimit(this.fragments.length + size);
    }
    if (opcode !== OP_TEXT && opcode !== OP_BINARY) return invalidOpcode(opcode);
    if (this.fragmentOpcode !== 0) return new WebSocketProtocolError('invalid WebSocket frame: a new message began before the fragmented one ended', 'WS_ERR_INVALID_OPCODE', 1002);
    return this.overLimit(size);
  }

  private overLimit(size: number): WebSocketProtocolError | undefined {
    if (size <= this.maxPayload) return undefined;
    return new WebSocketProtocolError(`Max payload size exceeded: a message of ${size > Number.MAX_SAFE_INTEGER ? 'over 2^53' : size} bytes, the limit is ${this.maxPayload}`, 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 1009);
  }

  /** One whole frame, its header already checked: `buf[start, end)` is its payload. */
  private frame(b0: number, buf: Buffer, start: number, end: number): void {
    const opcode = b0 & 0x0f;
    const fin = (b0 & 0x80) !== 0;
    if (opcode === OP_TEXT && fin) return this.deliver(OP_TEXT, buf, start, end);
    switch (opcode) {
      case OP_BINARY:
      case OP_TEXT:
      case OP_CONTINUATION:
        if (opcode !== OP_CONTINUATION && fin) return this.deliver(opcode, buf, start, end);
        if (opcode !== OP_CONTINUATION) this.fragmentOpcode = opcode;
        this.fragmentCount++;
        this.fragments.append(buf, start, end, this.maxPayload);
        if (!fin) return;
        return this.endFragments();
      case OP_CLOSE:
        return this.closeFrame(buf, start, end);
      case OP_PING:
        return this.sink.ping(Buffer.from(buf.subarray(start, end)));
      default:
        return this.sink.pong();
    }
  }

  private endFragments(): void {
    const whole = this.fragments.bytes();
    const opcode = this.fragmentOpcode;
    this.fragmentOpcode = 0;
    this.fragmentCount = 0;
    // Delivered before the buffer is freed: the sink gets a copy (binary) or a string (text).
    this.deliver(opcode, whole, 0, whole.length);
    this.fragments.clear();
  }

  private deliver(opcode: number, buf: Buffer, start: number, end: number): void {
    if (opcode === OP_BINARY) return this.sink.binary(Buffer.from(buf.subarray(start, end)));
    const text = utf8Text(buf, start, end);
    if (text === undefined) return this.fail(new WebSocketProtocolError('invalid WebSocket frame: a text message that is not valid UTF-8', 'WS_ERR_INVALID_UTF8', 1007));
    this.sink.text(text);
  }

  private closeFrame(buf: Buffer, start: number, end: number): void {
    const size = end - start;
    if (size === 1) return this.fail(new WebSocketProtocolError('invalid WebSocket frame: a close frame of 1 byte (a code takes 2)', 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH', 1002));
    let code = 1005;
    let reason = '';
    if (size >= 2) {
      code = buf.readUInt16BE(start);
      if (!isValidCloseCode(code)) return this.fail(new WebSocketProtocolError(`invalid WebSocket frame: close code ${code}`, 'WS_ERR_INVALID_CLOSE_CODE', 1002));
      const text = utf8Text(buf, start + 2, end);
      if (text === undefined) return this.fail(new WebSocketProtocolError('invalid WebSocket frame: a close reason that is not valid UTF-8', 'WS_ERR_INVALID_UTF8', 1007));
      reason = text;
    }
    this.stop();
    this.sink.close(code, reason);
  }

  private fail(error: WebSocketProtocolError): void {
    this.stop();
    this.sink.violation(error);
  }
}

function invalidOpcode(opcode: number): WebSocketProtocolError {
  return new WebSocketProtocolError(`invalid WebSocket frame: opcode 0x${opcode.toString(16)}`, 'WS_ERR_INVALID_OPCODE', 1002);
}
