/**
 * zod's `safeParse` for the protocol's schemas (zod/mini): compiled, and worded in English.
 *
 * Compiled: each schema is parsed through its `z.compile` clone (made on first use), zod's
 * generated fast path, which falls back to the regular parser for anything it does not accept,
 * so results and issues are the regular parser's. zod/mini's objects have no generated parser
 * of their own (classic zod's do): without this, records parse 2 to 3 times slower. Where code
 * generation is not allowed (a Content-Security-Policy without 'unsafe-eval'), `z.compile`
 * hands the schema back and the regular parser runs.
 *
 * English: zod/mini installs no locale, so zod words every issue "Invalid input". The locale is
 * passed to the one parse whose error is read, not set with `z.config`, which would change
 * every zod user's messages in the process (no global state); a message a schema sets itself
 * still wins. A parse context costs ~1 µs on every parse (zod spreads it into a new object), so
 * a valid value is parsed without one and only a rejected one is parsed again to word its error.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

const ENGLISH: z.core.ParseContext<z.core.$ZodIssue> = { error: en().localeError };

const compiled = new WeakMap<z.core.$ZodType, z.core.$ZodType>();

function compiledOf<S extends z.core.$ZodType>(schema: S): S {
  let c = compiled.get(schema);
  if (c === undefined) {
    c = z.compile(schema);
    compiled.set(schema, c);
  }
  return c as S;
}

/**
 * `schema.safeParse(value)`, compiled, its issues' paths and codes as zod's but each message
 * zod's bare "Invalid input" unless the schema words it. For callers that branch on success
 * and on issue codes only; {@link safeParse} words the error.
 */
export function safeParseUnworded<S extends z.core.$ZodType>(schema: S, value: unknown): z.util.SafeParseResult<z.infer<S>> {
  return z.safeParse(compiledOf(schema), value);
}

/**
 * `schema.safeParse(value)` with zod's English messages; accepts any zod 4 schema (mini or
 * classic). A rejected value is parsed twice (the second time to word the error).
 * @example safeParse(Uint64, 12) // => { success: false, error } with error.issues[0].message 'Invalid input: expected string, received number'
 */
export function safeParse<S extends z.core.$ZodType>(schema: S, value: unknown): z.util.SafeParseResult<z.infer<S>> {
  const r = safeParseUnworded(schema, value);
  return r.success ? r : z.safeParse(schema, value, ENGLISH);
}
