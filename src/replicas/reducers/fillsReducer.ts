/** `fills`: the fills of a subaccount, an event stream ordered by `Fill.sequence`. */
import type { Fill } from '../../protocol';
import { createEventReducer, type EventReducerOptions } from '../eventReducer';

/** @throws InvalidParameterError when an option is not a positive integer. */
export function createFillsReducer(options: EventReducerOptions = {}) {
  return createEventReducer<Fill>(
    { channel: 'fills', recordsOf: (data) => (data as { fills: readonly Fill[] }).fills, sequenceOf: (f) => BigInt(f.sequence) },
    options,
  );
}
