/**
 * Opaque keyset cursors: base64url of a small JSON object naming the operation and the
 * position after which the next page starts. A cursor that does not decode, belongs to
 * another operation or carries the wrong fields is a 400 naming `cursor`. @internal
 */
import type { OperationName } from '../../protocol';
import { invalidParam } from './QueryError';

export type CursorFields = Readonly<Record<string, string | number>>;

const MESSAGE = 'malformed, expired or foreign cursor; pass the next_cursor of the previous page of the same operation unchanged';

export function encodeCursor(op: OperationName, fields: CursorFields): string {
  return Buffer.from(JSON.stringify({ op, ...fields })).toString('base64url');
}

/**
 * Decodes a cursor of `op` whose fields have the given types.
 * @throws QueryError 400 naming `cursor` when it is not one.
 */
export function decodeCursor<T extends Record<string, 'string' | 'number'>>(op: OperationName, raw: string, shape: T): { [K in keyof T]: T[K] extends 'number' ? number : string } {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalidParam('cursor', MESSAGE);
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { op?: unknown }).op !== op) throw invalidParam('cursor', MESSAGE);
  const obj = parsed as Record<string, unknown>;
  for (const [k, t] of Object.entries(shape)) {
    const v = obj[k];
    if (t === 'number' ? !Number.isSafeInteger(v) || (v as number) < 0 : typeof v !== 'string') throw invalidParam('cursor', MESSAGE);
  }
  return obj as { [K in keyof T]: T[K] extends 'number' ? number : string };
}
