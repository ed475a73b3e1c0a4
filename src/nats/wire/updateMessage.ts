/** One update on the bus: the exchange's own update frame, in the protocol's compact form (one line of a batch). */
import { decodeAndValidate, HOT_CHANNELS, updateFramePrefix, writeUpdateData, writeUpdateFrame, type ChannelName, type HotChannel, type ValidateOptions } from '../../protocol';
import { busError } from './busError';
import { checkJsonValue } from './exactJson';
import { uint64FromDigits } from '../../protocol/scalars';

/** Headers of an update message. */
export const UPDATE_HEADERS = {
  /** JetStream's deduplication header: {@link messageId}. */
  msgId: 'Nats-Msg-Id',
  /** The relay that stored the message (the first one to publish it). */
  relay: 'Er-Relay',
} as const;

/**
 * One update of a batch: the exchange's own update frame in the compact form of
 * the protocol's writer (streaming-protocol.md section 3), its `subscription_id` the stream
 * key, e.g. `{"type":"update","subscription_id":"book|market_id=0|is_perps=true","channel":"book","seq":"42","timestamp_ns":"...","data":{...}}`.
 * A consumer reads it with the protocol's decoder: `book`, `bbo` and `trades` with one
 * pattern test and the values sliced out, the other channels through their schemas.
 */
export interface UpdateMessage {
  readonly streamKey: string;
  readonly channel: ChannelName;
  readonly seq: bigint;
  readonly timestampNs: bigint;
  /** Validated for the channel (its schema, strict: no key beyond the documented ones). */
  readonly data: unknown;
}

/** The constant head of a stream's update messages (computed once per stream), for {@link encodeUpdateMessage}. */
export function updateMessagePrefix(channel: ChannelName, key: string): string {
  return updateFramePrefix(key, channel);
}

/**
 * The payload of one update of a stream (`prefix` from {@link updateMessagePrefix}): `data`
 * must be valid for the channel, as the router delivers it.
 * @throws ExchangeReplicaError `ERR_BUS` when a channel without a compact form holds what JSON cannot carry exactly.
 */
export function encodeUpdateMessage(prefix: string, channel: ChannelName, seq: bigint, timestampNs: bigint, data: unknown): string {
  // The compact writer writes the validated strings of the hot channels as they are; the
  // others go through JSON, which must not change them.
  if (!isHotChannel(channel)) checkJsonValue(data, '$.data');
  return writeUpdateFrame(prefix, seq, timestampNs, writeUpdateData(channel, data));
}

const STRICT: ValidateOptions = Object.freeze({ strict: true });

/**
 * Reads an update message of the stream `key` (of `channel`): the frame and its `data` are
 * validated as the exchange's own (strictly: a bus message holds the documented keys only),
 * and must name that stream.
 * @throws ExchangeReplicaError `ERR_BUS` naming what is wrong.
 */
export function decodeUpdateMessage(text: string, key: string, channel: ChannelName): UpdateMessage {
  return readFrame(text, key, channel, (seq, timestampNs, data) => ({ streamKey: key, channel, seq, timestampNs, data }));
}

/** {@link decodeUpdateMessage}'s checks, the update made by `make` (no intermediate object on the hot path). */
export function readFrame<T>(text: string, key: string, channel: ChannelName, make: (seq: bigint, timestampNs: bigint, data: unknown) => T): T {
  const r = decodeAndValidate(text, STRICT);
  if (!r.ok) throw busError(`update message of ${key}: ${r.message}`);
  const f = r.frame;
  if (f.type !== 'update') throw busError(`update message of ${key}: a ${f.type} frame`);
  if (f.subscription_id !== key || f.channel !== channel) throw busError(`update message of ${key}: it names stream ${f.subscription_id} of channel ${f.channel}`);
  if (!r.dataValidated) throw busError(`update message of ${key}: data not validated`);
  return make(uint64FromDigits(f.seq), BigInt(f.timestamp_ns), r.data);
}

function isHotChannel(channel: string): channel is HotChannel {
  return (HOT_CHANNELS as readonly string[]).includes(channel);
}
