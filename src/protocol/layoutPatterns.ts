/**
 * Whole-text patterns of the layout channels' update frames (feedRecordLayout.ts), built
 * from the same field lists as the writer and the reader: the envelope in its compact form,
 * then `data` with each record's keys in the layout's order (optional ones possibly absent,
 * no other key), each value in the textual shape its kind allows (Uint64 / Int64 digits,
 * an integer in its shortest form, `true` / `false`, an enum member, a string without
 * escapes or controls), no whitespace, nothing after the closing brace.
 *
 * A match tells the layout reader (fastDecodeLayout.ts) that the structure is right, so it
 * skips the required keys' tokens by their length instead of comparing them; the checks a
 * pattern cannot make (Uint64 / Int64 bounds, integer ranges, minimum string lengths,
 * base58 byte lengths) stay the reader's. A text the pattern rejects is read token by token
 * as before, so a pattern only ever speeds up what the reader accepts anyway. Like the hot
 * patterns (fastDecodeShapes.ts) they are tried only on texts up to `PATTERN_TEXT_LIMIT`:
 * a pattern's backtracking stack grows with the array items it repeats over. Linear: every
 * optional key's group starts with its own key, so a failed group backtracks over itself only.
 * @internal
 */
import { CHANNEL_DATA_LAYOUTS, LAYOUT_CHANNELS, type FieldLayout, type LayoutChannel, type ValueKind } from './feedRecordLayout';
import * as layout from './hotFrameLayout';
import { arrayOf, BOOLEAN, envelopePattern, literal, PLAIN_STRING_BODY, UINT64 } from './patternParts';

const INT64 = '"-?\\d{1,19}"';
// The reader's shortest integer form: no leading zero, no `-0`, at most 16 digits.
const INT = '(?:0|-?[1-9]\\d{0,15})';
const STRING = `"${PLAIN_STRING_BODY}"`;

/** The pattern of a value of `kind`; undefined for a record it cannot describe (an optional first key). */
function valuePattern(kind: ValueKind): string | undefined {
  switch (kind.t) {
    case 'uint64':
      return UINT64;
    case 'int64':
      return INT64;
    case 'int':
      return INT;
    case 'boolean':
      return BOOLEAN;
    case 'enum':
      return `"(?:${kind.values.map(literal).join('|')})"`;
    case 'string':
    case 'base58':
      return STRING;
    case 'array': {
      const item = valuePattern(kind.of);
      return item === undefined ? undefined : arrayOf(item);
    }
    case 'object':
      return recordPattern(kind.fields);
  }
}

function recordPattern(fields: FieldLayout): string | undefined {
  if (fields.length === 0) return '\\{\\}';
  // An absent optional first key would leave the next key without its comma: no pattern (the reader alone decides).
  if (fields[0]!.optional) return undefined;
  let out = '\\{';
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const value = valuePattern(f.kind);
    if (value === undefined) return undefined;
    const part = `${i === 0 ? '' : ','}"${literal(f.key)}":${value}`;
    out += f.optional ? `(?:${part})?` : part;
  }
  return `${out}\\}`;
}

/** The whole-frame pattern of one layout channel's update. */
function framePattern(channel: LayoutChannel): RegExp | undefined {
  const data = valuePattern(CHANNEL_DATA_LAYOUTS[channel]);
  if (data === undefined) return undefined;
  return new RegExp(
    `${envelopePattern(layout.channelToken(channel))}${data}${literal(layout.UPDATE_CLOSE)}$`,
  );
}

/** The pattern of each layout channel's update frame (absent for a channel whose layout it cannot describe). */
export const LAYOUT_FRAME_PATTERNS: ReadonlyMap<string, RegExp> = new Map(
  LAYOUT_CHANNELS.flatMap((c): [string, RegExp][] => {
    const p = framePattern(c);
    return p === undefined ? [] : [[c, p]];
  }),
);
