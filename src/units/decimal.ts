/**
 * Exact decimal arithmetic on bigint: parsing decimal text into a scaled integer, dividing
 * with an explicit rounding mode, and printing a ratio as decimal text. No floating point
 * anywhere, so values beyond 2^53 keep every digit.
 */
import { InvalidParameterError } from '../errors';

/** How a value that falls between two representable ones is resolved. */
export type RoundingMode = 'floor' | 'ceil' | 'trunc' | 'half-up' | 'half-even';

export const ROUNDING_MODES: readonly RoundingMode[] = ['floor', 'ceil', 'trunc', 'half-up', 'half-even'];

/** Options for integer -> decimal text. */
export interface FormatOptions {
  /**
   * Print at most this many decimals, rounding with `rounding`. Without it the result is
   * exact, and a ratio without a finite decimal expansion (e.g. 1/3) throws.
   * @default undefined (exact)
   */
  readonly maxDecimals?: number;
  /** Rounding applied when `maxDecimals` cuts digits. @default 'half-even' */
  readonly rounding?: RoundingMode;
}

/** Options for decimal text -> integer. */
export interface ToIntegerOptions {
  /** Round to a whole unit instead of throwing when the value is not an exact multiple. @default undefined (exact) */
  readonly rounding?: RoundingMode;
}

/** A decimal value as `units / 10^scale`. */
export interface ScaledDecimal {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL_TEXT = /^(-)?([0-9]+)(?:\.([0-9]+))?$/;
const INTEGER_TEXT = /^-?[0-9]+$/;

function show(v: unknown): string {
  return typeof v === 'bigint' ? `${v}n` : JSON.stringify(v) ?? String(v);
}

/**
 * Parses decimal text such as `"-12.3400"` (optional minus, digits, optional fraction; no
 * exponent, no spaces).
 * @throws InvalidParameterError naming `param` when the text is not a decimal number.
 */
export function parseDecimal(text: string, param = 'value'): ScaledDecimal {
  const m = typeof text === 'string' ? DECIMAL_TEXT.exec(text) : null;
  if (!m) throw new InvalidParameterError(`invalid ${param} ${show(text)}: expected decimal text such as "12.5" (digits, optional '-' and '.')`, { param });
  const frac = m[3] ?? '';
  const units = BigInt(`${m[2]}${frac}`);
  return { units: m[1] ? -units : units, scale: frac.length };
}

/** An integer count (ticks, lots, atoms) as the library hands them out: bigint, decimal text, or a safe-integer number. */
export type IntegerInput = string | bigint | number;

/**
 * Reads an integer given as bigint, decimal integer text, or a safe-integer number (what the
 * book's number path returns). A number beyond 2^53 or with a fraction is refused: it may
 * already have lost precision.
 * @throws InvalidParameterError naming `param` otherwise.
 */
export function toBigInt(value: IntegerInput, param = 'value'): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) return BigInt(value);
  throw new InvalidParameterError(`invalid ${param} ${show(value)}: expected an integer as bigint, decimal text or a safe-integer number (|n| <= 2^53 - 1)`, { param });
}

/** `num / den` rounded to an integer with `mode` (`den` non-zero). */
export function divideRounded(num: bigint, den: bigint, mode: RoundingMode): bigint {
  if (den < 0n) return divideRounded(-num, -den, mode);
  const q = num / den; // truncates toward zero
  const r = num % den;
  if (r === 0n) return q;
  const negative = num < 0n;
  switch (mode) {
    case 'trunc':
      return q;
    case 'floor':
      return negative ? q - 1n : q;
    case 'ceil':
      return negative ? q : q + 1n;
    case 'half-up':
    case 'half-even': {
      const twice = 2n * (negative ? -r : r);
      const away = negative ? q - 1n : q + 1n;
      if (twice > den) return away;
      if (twice < den) return q;
      return mode === 'half-up' || q % 2n !== 0n ? away : q;
    }
  }
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Decimals of the exact expansion of `1/den` (den > 0, reduced), or undefined when it never ends. */
function terminatingScale(den: bigint): number | undefined {
  let twos = 0;
  let fives = 0;
  while (den % 2n === 0n) {
    den /= 2n;
    twos++;
  }
  while (den % 5n === 0n) {
    den /= 5n;
    fives++;
  }
  return den === 1n ? Math.max(twos, fives) : undefined;
}

/** Prints `units / 10^scale` with the fraction's trailing zeros removed. */
export function formatScaled(units: bigint, scale: number): string {
  const negative = units < 0n;
  let digits = (negative ? -units : units).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    const int = digits.slice(0, -scale);
    const frac = digits.slice(-scale).replace(/0+$/, '');
    digits = frac ? `${int}.${frac}` : int;
  }
  return negative && digits !== '0' ? `-${digits}` : digits;
}

function checkMaxDecimals(v: number): number {
  if (!Number.isSafeInteger(v) || v < 0) throw new InvalidParameterError(`invalid maxDecimals ${show(v)}: expected an integer >= 0`, { param: 'maxDecimals' });
  return v;
}

/**
 * Prints `num / den` as decimal text: exact (shortest form) by default.
 * @throws InvalidParameterError naming `param` when the ratio has no finite decimal
 * expansion and no `maxDecimals` was given, or when `den` is zero.
 */
export function formatRatio(num: bigint, den: bigint, opts: FormatOptions = {}, param = 'value'): string {
  if (den === 0n) throw new InvalidParameterError(`cannot convert ${param}: the divisor is zero`, { param });
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den) || 1n;
  const n = num / g;
  const d = den / g;
  const exact = terminatingScale(d);
  if (opts.maxDecimals === undefined) {
    if (exact === undefined) {
      throw new InvalidParameterError(`cannot print ${param} ${num}/${den} exactly: it has no finite decimal expansion; pass maxDecimals (and rounding) to round it`, { param });
    }
    return formatScaled((n * 10n ** BigInt(exact)) / d, exact);
  }
  const max = checkMaxDecimals(opts.maxDecimals);
  if (exact !== undefined && exact <= max) return formatScaled((n * 10n ** BigInt(exact)) / d, exact);
  return formatScaled(divideRounded(n * 10n ** BigInt(max), d, opts.rounding ?? 'half-even'), max);
}

/**
 * Converts decimal text to a whole number of units where one unit is `unitNum / unitDen`
 * in the text's terms: result = value * unitDen / unitNum. Exact unless `rounding` is given.
 * @throws InvalidParameterError naming `param` and the value when it is not an exact
 * multiple of the unit (and no rounding was asked for).
 */
export function decimalToUnits(text: string, unitNum: bigint, unitDen: bigint, opts: ToIntegerOptions, param: string, unitName: string): bigint {
  const { units, scale } = parseDecimal(text, param);
  if (unitNum === 0n || unitDen === 0n) throw new InvalidParameterError(`cannot convert ${param}: the ${unitName} is zero`, { param });
  const num = units * unitDen;
  const den = unitNum * 10n ** BigInt(scale);
  if (num % den === 0n) return num / den;
  if (opts.rounding) return divideRounded(num, den, opts.rounding);
  let step: string;
  try {
    step = formatRatio(unitNum, unitDen, {}, param);
  } catch {
    step = `${unitNum}/${unitDen}`;
  }
  throw new InvalidParameterError(`${param} ${text} is not a whole multiple of the ${unitName} (${step}); pass a rounding mode to round it`, { param });
}
