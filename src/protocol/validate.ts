/**
 * Validation with a schema-drift policy.
 *
 * Records follow the API document exactly and reject properties beyond those listed. A live
 * server that starts sending a new field should not take a trading process down, so by
 * default the client DROPS unexpected keys and reports them (once per record location)
 * through `onDrift`; with `strict: true` it rejects the value instead. Every other issue
 * (missing field, wrong type, bad range) is always a rejection. The check costs nothing
 * extra when the value is clean: the strict schema runs first. Validation never throws: should
 * zod itself ever throw (it is not expected to, whatever the value's size), that is a
 * rejection too, the thrown error as the `cause` of the ZodError.
 */
import { z } from 'zod';

export interface DriftReport {
  /** Where the unexpected keys were, e.g. `data[0]` or `data.bids[3]`. */
  readonly path: string;
  readonly keys: readonly string[];
}

export interface ValidateOptions {
  /** Reject unexpected keys instead of dropping them. @default false */
  readonly strict?: boolean;
  /** Called for each location where keys were dropped. */
  readonly onDrift?: (report: DriftReport) => void;
}

export type ValidateResult<T> = { ok: true; value: T } | { ok: false; error: z.ZodError };

export function formatPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || '(root)';
}

/** Validates `value` (which the caller owns: it may be mutated to drop keys). */
export function validateWithDrift<S extends z.ZodType>(schema: S, value: unknown, opts: ValidateOptions = {}): ValidateResult<z.infer<S>> {
  const first = safeParse(schema, value);
  if (first.success) return { ok: true, value: first.data };
  if (opts.strict) return { ok: false, error: first.error };
  const issues = first.error.issues;
  if (!issues.every((i) => i.code === 'unrecognized_keys')) return { ok: false, error: first.error };
  for (const i of issues) {
    let target: unknown = value;
    for (const p of i.path) target = (target as Record<PropertyKey, unknown>)?.[p as PropertyKey];
    if (target && typeof target === 'object') {
      for (const k of (i as { keys: string[] }).keys) delete (target as Record<string, unknown>)[k];
    }
    opts.onDrift?.({ path: formatPath(i.path), keys: (i as { keys: string[] }).keys });
  }
  const second = safeParse(schema, value);
  return second.success ? { ok: true, value: second.data } : { ok: false, error: second.error };
}

/** `schema.safeParse(value)`, with anything it throws turned into a failure (the thrown error as `cause`). */
function safeParse<S extends z.ZodType>(schema: S, value: unknown): { success: true; data: z.infer<S> } | { success: false; error: z.ZodError } {
  try {
    return schema.safeParse(value);
  } catch (e) {
    const error = new z.ZodError([{ code: 'custom', path: [], message: `the value could not be validated: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` }]);
    (error as Error).cause = e;
    return { success: false, error };
  }
}

/** A one-line summary of a zod error: the first few issues with their paths. */
export function summarizeZodError(error: z.ZodError, max = 3): string {
  const parts = error.issues.slice(0, max).map((i) => `${formatPath(i.path)}: ${i.message}`);
  if (error.issues.length > max) parts.push(`(+${error.issues.length - max} more)`);
  return parts.join('; ');
}
