/**
 * The frame size check done after receipt (for a socket class that does not enforce
 * `maxFrameBytes` itself, such as a standard WebSocket).
 */
import { utf8ByteLength } from '../util/utf8ByteLength';
import type { RawSocketData } from './connectionOptions';

/**
 * Describes a received frame that is over `limit` bytes, else undefined. A binary frame is
 * measured by its byte length (before decoding), a text frame by its UTF-8 size, counted only
 * when it can matter (a UTF-16 unit takes 1 to 3 bytes): the usual frame costs one comparison.
 */
export function frameSizeOver(data: RawSocketData, limit: number): string | undefined {
  if (typeof data === 'string') {
    if (data.length * 3 <= limit) return undefined;
    const bytes = data.length > limit ? data.length : utf8ByteLength(data);
    return bytes > limit ? `a text frame of ${data.length > limit ? 'over ' : ''}${bytes} bytes` : undefined;
  }
  const bytes = Array.isArray(data) ? data.reduce((sum, fragment) => sum + fragment.byteLength, 0) : data.byteLength;
  return bytes > limit ? `a binary frame of ${bytes} bytes` : undefined;
}
