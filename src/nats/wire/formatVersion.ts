/** The version every record of the bus carries. */
import { busError } from './busError';

/**
 * Version of the bus's formats (every record of this folder); a reader refuses a record of
 * another version. 3: update messages are batches ({@link encodeUpdateBatch}); 2 had one
 * update per message.
 */
export const BUS_FORMAT_VERSION = 3;

/** @throws ExchangeReplicaError `ERR_BUS` saying so when a record names another format version. */
export function checkVersion(json: unknown, what: string): void {
  const v = typeof json === 'object' && json !== null ? (json as { v?: unknown }).v : undefined;
  if (typeof v === 'number' && v !== BUS_FORMAT_VERSION) throw busError(`invalid ${what}: bus format version ${v}, this reader reads version ${BUS_FORMAT_VERSION} (run relays and consumers of the same version)`);
}
