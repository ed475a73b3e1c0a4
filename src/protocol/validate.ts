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
 * rejection too, the thrown error as the `cause` of the zod error.
 */
import type * as z from 'zod/mini';
import { $ZodRealError } from 'zod/v4/core';
import { safeParse, safeParseUnworded } from './safeParse';

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

export type ValidateResult<T> = { ok: true; value: T } | { ok: false; error: z.core.$ZodError };

export function formatPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || '(root)';
}

/** Validates `value` (which the caller owns: it may be mutated to drop keys). */
export function validateWithDrift<S extends z.core.$ZodType>(schema: S, value: unknown, opts: ValidateOptions = {}): ValidateResult<z.infer<S>> {
  // Unworded first: a dropped key costs no wording, only a rejection is worded (parsed again).
  const first = parseNeverThrowing(safeParseUnworded, schema, value);
  if (first.success) return { ok: true, value: first.data };
  const issues = first.error.issues;
  if (opts.strict || !issues.every((i) => i.code === 'unrecognized_keys')) return reject(schema, value);
  for (const i of issues) {
    let target: unknown = value;
    for (const p of i.path) target = (target as Record<PropertyKey, unknown>)?.[p as PropertyKey];
    if (target && typeof target === 'object') {
      for (const k of (i as { keys: string[] }).keys) delete (target as Record<string, unknown>)[k];
    }
    opts.onDrift?.({ path: formatPath(i.path), keys: (i as { keys: string[] }).keys });
  }
  const second = parseNeverThrowing(safeParseUnworded, schema, value);
  return second.success ? { ok: true, value: second.data } : reject(schema, value);
}

/** The rejection of `value`, its issues worded. */
function reject<S extends z.core.$ZodType>(schema: S, value: unknown): ValidateResult<z.infer<S>> {
  const worded = parseNeverThrowing(safeParse, schema, value);
  // Not reached with a deterministic schema: it accepts now what it refused a moment ago.
  return worded.success ? { ok: true, value: worded.data } : { ok: false, error: worded.error };
}

type Parse = <S extends z.core.$ZodType>(schema: S, value: unknown) => z.util.SafeParseResult<z.infer<S>>;

/** `parse(schema, value)`, with anything it throws turned into a failure (the thrown error as `cause`). */
function parseNeverThrowing<S extends z.core.$ZodType>(parse: Parse, schema: S, value: unknown): { success: true; data: z.infer<S> } | { success: false; error: z.core.$ZodError } {
  try {
    return parse(schema, value);
  } catch (e) {
    const error = new $ZodRealError([{ code: 'custom', path: [], message: `the value could not be validated: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` }]);
    (error as Error).cause = e;
    return { success: false, error };
  }
}

/** A one-line summary of a zod error: the first few issues with their paths. */
export function summarizeZodError(error: z.core.$ZodError, max = 3): string {
  const parts = error.issues.slice(0, max).map((i) => `${formatPath(i.path)}: ${i.message}`);
  if (error.issues.length > max) parts.push(`(+${error.issues.length - max} more)`);
  return parts.join('; ');
}
