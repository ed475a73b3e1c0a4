/**
 * The subscription a server frame names, read from a frame that could not be decoded (bad
 * JSON, a `seq` that is not a Uint64, a decoder that threw), so that the subscription it hit
 * can be resynced instead of silently missing an update. Reads only the first
 * `"subscription_id"` key and a plain string value; never throws.
 */
const KEY = '"subscription_id"';
/** Ids are short; a longer value is not one the client handed out. */
const MAX_ID_LENGTH = 256;

/**
 * @returns the id, or undefined when the frame names none that can be read.
 * @example
 * frameSubscriptionId('{"type":"update","subscription_id":"7","seq":"x"}') // => '7'
 */
export function frameSubscriptionId(text: string): string | undefined {
  const at = text.indexOf(KEY);
  if (at < 0) return undefined;
  let i = skipSpaces(text, at + KEY.length);
  if (text.charCodeAt(i) !== 58 /* : */) return undefined;
  i = skipSpaces(text, i + 1);
  if (text.charCodeAt(i) !== 34 /* " */) return undefined;
  const end = text.indexOf('"', i + 1);
  if (end < 0 || end - i - 1 > MAX_ID_LENGTH) return undefined;
  const id = text.slice(i + 1, end);
  return id.includes('\\') ? undefined : id;
}

function skipSpaces(text: string, i: number): number {
  let c = text.charCodeAt(i);
  while (c === 32 || c === 9 || c === 10 || c === 13) c = text.charCodeAt(++i);
  return i;
}
