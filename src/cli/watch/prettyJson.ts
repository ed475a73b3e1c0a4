/**
 * JSON for a terminal: a value that fits on the line is printed on one line, otherwise its
 * members go one per line, recursively (a book level stays one line). Control characters in
 * strings are `\uXXXX` escapes, C1 and bidi controls included (safeText.ts). @internal
 */
import { safeJson } from '../term/safeText';

/** Lines of `value` as JSON, each trying to fit in `width` columns. */
export function prettyJson(value: unknown, width: number, indent = ''): string[] {
  const flat = safeJson(value);
  if (indent.length + flat.length <= width || value === null || typeof value !== 'object') return [indent + flat];
  const inner = `${indent}  `;
  const isArray = Array.isArray(value);
  const entries = isArray ? (value as unknown[]).map((v) => [undefined, v] as const) : Object.entries(value as object);
  const lines = [indent + (isArray ? '[' : '{')];
  entries.forEach(([key, v], i) => {
    const member = prettyJson(v, width, inner);
    const comma = i < entries.length - 1 ? ',' : '';
    if (key !== undefined) member[0] = `${inner}${safeJson(key)}: ${member[0]!.trimStart()}`;
    member[member.length - 1] += comma;
    lines.push(...member);
  });
  lines.push(indent + (isArray ? ']' : '}'));
  return lines;
}
