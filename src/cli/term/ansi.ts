/**
 * ANSI escape helpers for the terminal views: colours (off when `NO_COLOR` is set), and
 * width-aware padding and truncation that ignore escape sequences. @internal
 */

/** Every SGR / cursor sequence this module writes (CSI ... letter). */
const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]/g;

const colorOn = !('NO_COLOR' in process.env);

function sgr(code: string): (text: string) => string {
  return (text) => (colorOn ? `\x1b[${code}m${text}\x1b[0m` : text);
}

export const bold = sgr('1');
export const dim = sgr('2');
export const inverse = sgr('7');
export const red = sgr('31');
export const green = sgr('32');
export const yellow = sgr('33');
export const cyan = sgr('36');

/** Cursor and screen control sequences. */
export const CSI = {
  home: '\x1b[H',
  clearLine: '\x1b[K',
  clearBelow: '\x1b[J',
  hideCursor: '\x1b[?25l',
  showCursor: '\x1b[?25h',
  altScreenOn: '\x1b[?1049h',
  altScreenOff: '\x1b[?1049l',
} as const;

/** The text without escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, '');
}

/** Columns the text takes on screen (escape sequences take none). */
export function visibleLength(text: string): number {
  return stripAnsi(text).length;
}

/** Cuts the text to `width` visible columns, keeping escape sequences (and resetting style if cut). */
export function truncate(text: string, width: number): string {
  if (visibleLength(text) <= width) return text;
  let out = '';
  let seen = 0;
  let i = 0;
  while (i < text.length && seen < width) {
    if (text[i] === '\x1b') {
      ESCAPES.lastIndex = i;
      const m = ESCAPES.exec(text);
      if (m && m.index === i) {
        out += m[0];
        i += m[0].length;
        continue;
      }
    }
    out += text[i];
    seen++;
    i++;
  }
  return colorOn ? `${out}\x1b[0m` : out;
}

/** Pads (or cuts) the text to exactly `width` visible columns, text on the left. */
export function padEnd(text: string, width: number): string {
  const t = truncate(text, width);
  return t + ' '.repeat(Math.max(0, width - visibleLength(t)));
}

/** Pads (or cuts) the text to exactly `width` visible columns, text on the right. */
export function padStart(text: string, width: number): string {
  const t = truncate(text, width);
  return ' '.repeat(Math.max(0, width - visibleLength(t))) + t;
}

/** A bar of `fraction` (0..1) of `width` columns, in eighths of a block for smooth lengths. */
export function bar(fraction: number, width: number): string {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const eighths = Math.round(f * width * 8);
  const full = Math.floor(eighths / 8);
  const rest = eighths % 8;
  const partial = rest > 0 ? String.fromCharCode(0x2590 - rest) : '';
  return '\u2588'.repeat(full) + partial;
}
