/**
 * Options completed with their defaults: every field of `options` that is not `undefined`
 * overrides the default (so `{ retries: undefined }` keeps the default, where a spread would
 * not). The one such merge of the library. @internal
 */
export function withDefaults<T extends object>(defaults: Required<T>, options: T | undefined): Required<T> {
  const merged: Required<T> = { ...defaults };
  if (options === undefined) return merged;
  for (const key of Object.keys(defaults) as (keyof T)[]) {
    const value = options[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}
