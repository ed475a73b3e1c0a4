/**
 * The size of `text` in UTF-8, in bytes, without encoding it (no Node `Buffer` needed): 1 to
 * 3 bytes per UTF-16 unit, 4 per surrogate pair; a lone surrogate counts 3 (it is encoded as
 * U+FFFD), as `TextEncoder` and Node's `Buffer.byteLength` count it.
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
