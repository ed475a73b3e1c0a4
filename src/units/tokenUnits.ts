/** Exact conversions between token atoms and decimal token amounts (amount = atoms / 10^decimals). */
import { InvalidParameterError } from '../errors';
import { decimalToUnits, formatScaled, toBigInt, formatRatio, type FormatOptions, type ToIntegerOptions } from './decimal';
import type { IntegerInput } from './decimal';

function checkDecimals(decimals: number): bigint {
  if (!Number.isSafeInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new InvalidParameterError(`invalid decimals ${String(decimals)}: expected an integer from 0 to 255`, { param: 'decimals' });
  }
  return BigInt(decimals);
}

/**
 * Token atoms -> decimal amount (always exact: a power of ten always has a finite expansion).
 * @example atomsToAmount(1_500_000n, 6) // "1.5"
 * @throws InvalidParameterError for bad input.
 */
export function atomsToAmount(atoms: IntegerInput, decimals: number, opts: FormatOptions = {}): string {
  const a = toBigInt(atoms, 'atoms');
  const d = checkDecimals(decimals);
  return opts.maxDecimals === undefined ? formatScaled(a, Number(d)) : formatRatio(a, 10n ** d, opts, 'amount');
}

/**
 * Decimal amount -> token atoms.
 * @example amountToAtoms('1.5', 6) // 1500000n
 * @throws InvalidParameterError naming the amount when it has more decimals than the token (unless `rounding`).
 */
export function amountToAtoms(amount: string, decimals: number, opts: ToIntegerOptions = {}): bigint {
  return decimalToUnits(amount, 1n, 10n ** checkDecimals(decimals), opts, 'amount', 'token atom');
}
