/**
 * The sanitizer every CLI output goes through (src/cli/term/safeText.ts): exchange-chosen
 * strings never carry a control character to the terminal, printable text is untouched and
 * keeps its width, JSON stays the same value, and the CLI's own colours survive `safeLine`.
 */
import fc from 'fast-check';
import { hasUnsafeChar, safeJson, safeLine, safeText } from '../../src/cli/term/safeText';
import { bold, red } from '../../src/cli/term/ansi';

/** Every unsafe character, listed by hand (the module's own pattern is not reused to check itself). */
const UNSAFE_CODES = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  0x7f,
  ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
  0x061c,
  0x200e,
  0x200f,
  0x2028,
  0x2029,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
];
const UNSAFE_SET = new Set(UNSAFE_CODES);
const containsUnsafe = (text: string): boolean => [...text].some((c) => UNSAFE_SET.has(c.codePointAt(0)!));

const unsafeChar = fc.constantFrom(...UNSAFE_CODES.map((c) => String.fromCharCode(c)));
/** Printable text: any character that is not unsafe. */
const printable = fc.string({ unit: 'grapheme' }).map((s) => [...s].filter((c) => !UNSAFE_SET.has(c.codePointAt(0)!)).join(''));
/** Text mixing printable runs, unsafe characters and the attacks of the issue. */
const hostile = fc.array(fc.oneof(printable, unsafeChar, fc.constantFrom('\x1b]52;c;SGVsbG8=\x07', '\x1b]0;pwned\x07', '\x1b[2J', '\x9b2J', '\x9d0;t\x9c', '\u202eevil')), { maxLength: 12 }).map((parts) => parts.join(''));

describe('safeText', () => {
  it('leaves no control character, whatever the input, and keeps the length (one stand-in each)', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const out = safeText(text);
        expect(containsUnsafe(out)).toBe(false);
        expect(hasUnsafeChar(out)).toBe(false);
        expect(out).toHaveLength(text.length);
      }),
    );
  });

  it('passes printable text unchanged', () => {
    fc.assert(fc.property(printable, (text) => expect(safeText(text)).toBe(text)));
    expect(safeText('SOL/USDC · 64995.5 ✓ 日本')).toBe('SOL/USDC · 64995.5 ✓ 日本');
  });

  it('shows C0 as Control Pictures, DEL as ␡, C1 and bidi controls as U+FFFD', () => {
    expect(safeText('BTC\x1b]52;c;SGVsbG8=\x07-PERP')).toBe('BTC␛]52;c;SGVsbG8=␇-PERP');
    expect(safeText('a\x1b[2Jb\nc\td\x00\x7f')).toBe('a␛[2Jb␊c␉d␀␡');
    expect(safeText('x\x9b2J\x9d0;t\x9c\u202eabc\u2066')).toBe('x\ufffd2J\ufffd0;t\ufffd\ufffdabc\ufffd');
  });
});

describe('safeJson', () => {
  it('is JSON of the same value, with no raw control character', () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostile, (value, text) => {
        const v = { value, text, [text]: text };
        const out = safeJson(v);
        expect(containsUnsafe(out)).toBe(false);
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(v)));
        const pretty = safeJson(v, 2);
        expect(containsUnsafe(pretty.replace(/\n/g, ''))).toBe(false);
        expect(JSON.parse(pretty)).toEqual(JSON.parse(out));
      }),
    );
  });

  it('escapes what JSON.stringify leaves raw, and is JSON.stringify otherwise', () => {
    expect(JSON.stringify('\x9b2J\u202e')).toBe('"\x9b2J\u202e"');
    expect(safeJson('\x9b2J\u202e\x7f')).toBe('"\\u009b2J\\u202e\\u007f"');
    expect(safeJson({ a: [1, 'b'] }, 2)).toBe(JSON.stringify({ a: [1, 'b'] }, null, 2));
    expect(safeJson(undefined)).toBe('null');
  });
});

describe('safeLine', () => {
  it("keeps the CLI's colour sequences and neutralizes every other control character", () => {
    const colour = process.env.NO_COLOR === undefined;
    const line = `${bold('BTC-PERP')} ${red('sell')} name \x1b]0;pwned\x07 \x1b[2J\x9b2J`;
    const out = safeLine(line);
    expect(out).toBe(`${bold('BTC-PERP')} ${red('sell')} name ␛]0;pwned␇ ␛[2J\ufffd2J`);
    if (colour) expect(out).toContain('\x1b[1m');
    fc.assert(fc.property(hostile, (text) => expect(safeLine(text).replace(/\x1b\[[0-9;]*m/g, '')).toBe(safeText(text.replace(/\x1b\[[0-9;]*m/g, '')))));
  });
});
