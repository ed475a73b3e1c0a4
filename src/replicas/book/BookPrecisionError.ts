import { ExchangeReplicaError } from '../../errors';

/**
 * A number accessor of the order book was asked for a value that a JS number cannot hold
 * exactly (above 2^53 - 1). The book itself stays exact: read that value with the bigint
 * accessors (`priceAtBig`, `forEachLevelBig`, ...). Thrown instead of returning a rounded value.
 */
export class BookPrecisionError extends ExchangeReplicaError {
  constructor(what: string, value: bigint) {
    super('ERR_BOOK_PRECISION', `${what} ${value} is above 2^53 - 1 and has no exact number form: use the bigint accessors`, {
      channel: 'book',
    });
  }
}

const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/** Converts an exact value to a number, or throws {@link BookPrecisionError} when it would round. */
export function toExactNumber(what: string, v: bigint): number {
  if (v > MAX_SAFE_BIG) throw new BookPrecisionError(what, v);
  return Number(v);
}
