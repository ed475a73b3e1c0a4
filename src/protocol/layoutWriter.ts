/**
 * Writes a value in the compact form of a layout (feedRecordLayout.ts): record keys in the
 * layout's order whatever the order of the object's own keys, absent optional keys left
 * out, no whitespace. Strings through `JSON.stringify` (escapes as JSON writes them), Uint64
 * and Int64 strings and integers as they are. The value must be valid for the layout (the
 * channel's schema); the writer does not check it. @internal
 */
import type { FieldLayout, ValueKind } from './feedRecordLayout';

/**
 * The compact text of `value` of kind `kind`.
 *
 * @example
 * writeLayoutValue({ t: 'object', fields: [{ key: 'a', kind: { t: 'uint64' }, optional: false }] }, { a: '1' }) // => '{"a":"1"}'
 */
export function writeLayoutValue(kind: ValueKind, value: unknown): string {
  switch (kind.t) {
    case 'uint64':
    case 'int64':
      return '"' + (value as string) + '"';
    case 'int':
      return String(value as number);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'enum':
    case 'string':
    case 'base58':
      return JSON.stringify(value as string);
    case 'array':
      return writeArray(kind.of, value as readonly unknown[]);
    case 'object':
      return writeRecord(kind.fields, value as Readonly<Record<string, unknown>>);
  }
}

function writeArray(of: ValueKind, items: readonly unknown[]): string {
  let s = '[';
  for (let i = 0; i < items.length; i++) s += (i === 0 ? '' : ',') + writeLayoutValue(of, items[i]);
  return s + ']';
}

function writeRecord(fields: FieldLayout, record: Readonly<Record<string, unknown>>): string {
  let s = '{';
  let first = true;
  for (const f of fields) {
    const v = record[f.key];
    // JSON.stringify leaves out undefined values too.
    if (v === undefined && f.optional) continue;
    s += (first ? '"' : ',"') + f.key + '":' + writeLayoutValue(f.kind, v);
    first = false;
  }
  return s + '}';
}
