/** The error of a bus record or name that cannot be read or written. */
import { ExchangeReplicaError } from '../../errors';

/** A bus message or name this module cannot read or write: `ERR_BUS`, with what is wrong (and what NATS threw, as `cause`). */
export const busError = (message: string, cause?: unknown): ExchangeReplicaError =>
  new ExchangeReplicaError('ERR_BUS', message, {}, cause === undefined ? undefined : { cause });
