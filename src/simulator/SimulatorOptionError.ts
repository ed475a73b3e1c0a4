/**
 * The error of a simulator option or fault argument out of its range, with the checks that
 * throw it (shared by the Simulator, the FaultInjector and the `simulate` command).
 */
import { ExchangeReplicaError } from '../errors';

/** A simulator option or fault argument is out of range. `context.param` names it. */
export class SimulatorOptionError extends ExchangeReplicaError {
  constructor(param: string, message: string) {
    super('ERR_SIMULATOR_OPTION', `${param}: ${message}`, { param });
  }
}

/** @throws SimulatorOptionError unless `value` is a finite number >= 0 */
export function checkNonNegative(param: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new SimulatorOptionError(param, `expected a finite number >= 0, got ${String(value)}`);
  return value;
}

/** @throws SimulatorOptionError unless `value` is a finite number > 0 */
export function checkPositive(param: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new SimulatorOptionError(param, `expected a finite number > 0, got ${String(value)}`);
  return value;
}

/** @throws SimulatorOptionError unless `value` is an integer in [min, max] */
export function checkInteger(param: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new SimulatorOptionError(param, `expected an integer from ${min} to ${max}, got ${String(value)}`);
  return value;
}

/** @throws SimulatorOptionError unless `value` is a probability in [0, 1] */
export function checkRate(param: string, value: number): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new SimulatorOptionError(param, `expected a rate from 0 to 1, got ${String(value)}`);
  return value;
}
