/**
 * The schemas are zod/mini, which installs no locale: `safeParse` (and so every validation of
 * ours) still words issues in zod's English, naming what was expected, without configuring zod
 * for the whole process. This file never loads classic zod (which would install the locale).
 */
import fc from 'fast-check';
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { formatPath, OPERATIONS, safeParse, summarizeZodError, validateWithDrift, type OperationName } from '../../src/protocol';
import { OrderBook } from '../../src/protocol/records/book';
import { ServerFrame } from '../../src/protocol/frames';
import { CASES } from '../rest/fixtures';

test('issues are worded in English, with their paths', () => {
  const r = safeParse(OrderBook, { bids: [{ price_ticks: 5, size_base_lots: '1' }], asks: 'none', extra: 1 });
  expect(r.success).toBe(false);
  if (r.success) return;
  expect(r.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`)).toEqual([
    'bids[0].price_ticks: Invalid input: expected string, received number',
    'asks: Invalid input: expected array, received string',
    '(root): Unrecognized key: "extra"',
  ]);
});

test("a schema's own message wins; unions and literals are worded too", () => {
  const r = validateWithDrift(ServerFrame, { type: 'pong', request_id: '1', timestamp_ns: '-1' });
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(summarizeZodError(r.error)).toBe('timestamp_ns: expected Unix nanoseconds as an unsigned 64-bit decimal string');
  const u = validateWithDrift(ServerFrame, { type: 'nope' });
  expect(u.ok).toBe(false);
  if (u.ok) return;
  expect(summarizeZodError(u.error)).toBe("type: Invalid discriminator value. Expected 'subscribed' | 'unsubscribed' | 'pong' | 'update' | 'resync_required' | 'error'");
});

test('zod is not configured for the process: its global locale stays unset', () => {
  safeParse(OrderBook, null);
  expect(z.config().localeError).toBeUndefined();
  // Without our context, the same parse is worded with zod's bare default.
  const bare = OrderBook.safeParse(null);
  expect(bare.success ? '' : bare.error.issues[0]!.message).toBe('Invalid input');
});

/** Every path of a JSON value (the root is []). */
function pathsOf(v: unknown, path: readonly PropertyKey[] = []): PropertyKey[][] {
  const out: PropertyKey[][] = [[...path]];
  if (v && typeof v === 'object') for (const [k, child] of Object.entries(v)) out.push(...pathsOf(child, [...path, Array.isArray(v) ? Number(k) : k]));
  return out;
}

/** `value` with the node at `path` replaced, given an extra key, or removed. */
function mutate(value: unknown, path: readonly PropertyKey[], how: 'replace' | 'extra' | 'remove', by: unknown): unknown {
  const copy: unknown = structuredClone(value);
  if (path.length === 0) return how === 'replace' ? by : copy;
  let parent = copy as Record<PropertyKey, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<PropertyKey, unknown>;
  const last = path[path.length - 1]!;
  const node = parent[last];
  if (how === 'replace') parent[last] = by;
  else if (how === 'extra' && node && typeof node === 'object' && !Array.isArray(node)) (node as Record<string, unknown>).zz_extra = by;
  else if (!Array.isArray(parent)) delete parent[last];
  return copy;
}

test("the compiled parse accepts, rejects and words exactly as zod's regular parser, for every operation's records", () => {
  const english = { error: en().localeError };
  const cases = Object.entries(CASES).map(([name, c]) => ({ name, schema: OPERATIONS[name as OperationName].data, data: c.data, paths: pathsOf(c.data) }));
  fc.assert(
    fc.property(fc.constantFrom(...cases), fc.nat(), fc.constantFrom('replace', 'extra', 'remove' as const), fc.jsonValue(), ({ schema, data, paths }, at, how, by) => {
      const value = mutate(data, paths[at % paths.length]!, how, by);
      const regular = schema.safeParse(structuredClone(value), english);
      const ours = safeParse(schema, structuredClone(value));
      expect(ours.success ? ours.data : ours.error.issues).toEqual(regular.success ? regular.data : regular.error.issues);
    }),
    { seed: 77, numRuns: 3000 },
  );
});
