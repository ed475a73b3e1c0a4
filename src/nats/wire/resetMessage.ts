/** A reset on a stream's subject: what its readers read before it is void. */
import { encodeToken } from './busNames';
import { BUS_FORMAT_VERSION } from './formatVersion';

const RESET_PREFIX = `{"v":${BUS_FORMAT_VERSION},"reset":`;

/**
 * A reset: a message on a stream's subject that voids, for its readers, what they read from
 * the subject before it. A relay publishes one when JetStream answered one of its batches as
 * a duplicate of a stored message with other content (a forged or conflicting message id):
 * the stored message, which readers may have applied, is not what the relay applied. The
 * relay then starts a new epoch; a reader that meets the reset starts again from a KV entry
 * whose `jsStartSeq` is past it (the new epoch's). Payload `{"v":3,"reset":true,"relayId":".."}`,
 * message id {@link resetMessageId}.
 */
export function encodeResetMessage(relayId: string): string {
  return JSON.stringify({ v: BUS_FORMAT_VERSION, reset: true, relayId });
}

/** Whether a message of a stream's subject is a reset ({@link encodeResetMessage}). */
export function isResetMessage(text: string): boolean {
  return text.startsWith(RESET_PREFIX);
}

/** The message id of a reset: never the id of a batch, and unique per relay and time. */
export function resetMessageId(key: string, relayId: string, atNs: bigint): string {
  return `${key}#reset-${encodeToken(relayId)}-${atNs}`;
}
