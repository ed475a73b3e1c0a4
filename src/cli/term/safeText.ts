/**
 * Exchange-chosen text made harmless for a terminal. A market name, token id, error message
 * or any other string from the exchange could otherwise carry escape sequences that the
 * terminal obeys (OSC 52 writes the clipboard, OSC 0 sets the window title, `ESC [2J` clears
 * the screen) or bidi overrides that reorder what is shown around them.
 *
 * Unsafe characters: C0 controls (U+0000-U+001F, newline and tab included: a field is one
 * line), DEL (U+007F), C1 controls (U+0080-U+009F: 8-bit CSI, OSC, ...), the Unicode bidi
 * controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the line and
 * paragraph separators (U+2028, U+2029).
 *
 * - {@link safeText}: each unsafe character becomes ONE visible character, so widths stay as
 *   they were: a C0 control its Control Picture (ESC `␛`, BEL `␇`, newline `␊`), DEL `␡`,
 *   anything else U+FFFD `�`.
 * - {@link safeJson}: JSON text with every unsafe character escaped (`\n`, `\u001b`,
 *   `\u009b`, ...): still valid JSON that parses to the very same value (nothing is lost).
 * - {@link safeLine}: the last guard before a line reaches the terminal: keeps the colour
 *   sequences the CLI writes itself (SGR, `ESC [ ... m`) and makes everything else safe.
 * @internal
 */

/** The unsafe characters above C0 (see the module comment). */
const UNSAFE_ABOVE_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069';
/** One unsafe character. */
const UNSAFE = new RegExp(`[\\u0000-\\u001f${UNSAFE_ABOVE_C0}]`);
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');
/** What JSON.stringify leaves raw in strings (it escapes C0; C0 outside strings is its indentation). */
const RAW_IN_JSON = new RegExp(`[${UNSAFE_ABOVE_C0}]`, 'g');

/** A colour sequence as `ansi.ts` writes them, or one unsafe character. */
const SGR_OR_UNSAFE = new RegExp(`\\x1b\\[[0-9;]*m|${UNSAFE.source}`, 'g');

/** Control Pictures start here: U+2400 is NUL, U+241B is ESC. */
const CONTROL_PICTURES = 0x2400;
const DEL = 0x7f;
const DEL_PICTURE = '\u2421';
const REPLACEMENT = '\ufffd';

function standIn(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(CONTROL_PICTURES + code);
  return code === DEL ? DEL_PICTURE : REPLACEMENT;
}

function escaped(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** True when `text` holds a character a terminal could act on (see the module comment). */
export function hasUnsafeChar(text: string): boolean {
  return UNSAFE.test(text);
}

/**
 * `text` with every unsafe character replaced by one visible stand-in (same length).
 * @example safeText('BTC\x1b]0;x\x07') // 'BTC␛]0;x␇'
 */
export function safeText(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, standIn) : text;
}

/**
 * `JSON.stringify(value, null, space)` with the unsafe characters it leaves raw (DEL, C1,
 * bidi controls; it escapes C0 itself) written as `\uXXXX`. They can only sit inside
 * strings, so the text stays valid JSON of the same value.
 * @returns `null` where `JSON.stringify` gives nothing (e.g. for `undefined`)
 */
export function safeJson(value: unknown, space?: number): string {
  const text: string | undefined = JSON.stringify(value, null, space);
  if (text === undefined) return 'null';
  return text.replace(RAW_IN_JSON, escaped);
}

/** A line of the CLI's own making: its colour sequences kept, every other unsafe character replaced as {@link safeText} does. */
export function safeLine(line: string): string {
  return UNSAFE.test(line) ? line.replace(SGR_OR_UNSAFE, (m) => (m.length > 1 ? m : standIn(m))) : line;
}
