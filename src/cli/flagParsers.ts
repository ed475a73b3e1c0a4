/** Parsers of command-line flag values: each rejects bad text with a message naming what is accepted. @internal */
import { InvalidArgumentError } from 'commander';

/** An integer from `min` to `max`. */
export function integerFlag(min: number, max: number = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return n;
  };
}

/** A number of milliseconds > 0. */
export function positiveMsFlag(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of milliseconds > 0.');
  return n;
}

/** A number >= 0. */
export function nonNegativeFlag(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number >= 0.');
  return n;
}

/** An absolute URL with one of `schemes` (e.g. `['http:', 'https:']`). */
export function urlFlag(schemes: readonly string[]): (text: string) => string {
  return (text) => {
    let ok = false;
    try {
      ok = schemes.includes(new URL(text).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw new InvalidArgumentError(`expected a ${schemes.map((s) => s.replace(':', '')).join(' or ')} URL such as ${schemes[0]!.replace(':', '')}://127.0.0.1:8080.`);
    return text;
  };
}

/** `true` or `false` (a flag given without a value means `true`). */
export function booleanFlag(text: string | boolean): boolean {
  if (typeof text === 'boolean') return text;
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new InvalidArgumentError('expected true or false.');
}
