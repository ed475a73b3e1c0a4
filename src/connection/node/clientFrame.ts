/**
 * The frames a WebSocket client writes (RFC 6455 5.2, 5.3): always masked with a fresh
 * random key, always whole (the client never fragments: its messages are small commands).
 */

/** Text, close, ping and pong, by opcode. */
export const CLIENT_OPCODE = { text: 0x1, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** One whole masked frame of `opcode` carrying `payload`; `randomMask` fills 4 bytes. */
export function clientFrame(opcode: number, payload: Uint8Array, randomMask: (into: Buffer) => void): Buffer {
  const size = payload.length;
  const header = size < 126 ? 2 : size < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + 4 + size);
  frame[0] = 0x80 | opcode;
  if (header === 2) frame[1] = 0x80 | size;
  else if (header === 4) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(size, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeUInt32BE(Math.floor(size / 2 ** 32), 2);
    frame.writeUInt32BE(size >>> 0, 6);
  }
  const mask = frame.subarray(header, header + 4);
  randomMask(mask);
  const body = header + 4;
  for (let i = 0; i < size; i++) frame[body + i] = payload[i]! ^ mask[i & 3]!;
  return frame;
}

/** The payload of a close frame: the code, then the reason in UTF-8 (none when `code` is undefined). */
export function closePayload(code: number | undefined, reason: string | undefined): Buffer {
  if (code === undefined) return Buffer.alloc(0);
  const text = Buffer.from(reason ?? '', 'utf8');
  const payload = Buffer.allocUnsafe(2 + text.length);
  payload.writeUInt16BE(code, 0);
  text.copy(payload, 2);
  return payload;
}
