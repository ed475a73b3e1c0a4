/** The payload of an update message: a head line with the bounds, then one update frame per line. */
import type { ChannelName } from '../../protocol';
import type { SourceUpdate } from '../../replicas/ReplicaSource';
import { busError } from './busError';
import { BUS_FORMAT_VERSION } from './formatVersion';
import { uint64FromDigits } from '../../protocol/scalars';
import { readFrame, type UpdateMessage } from './updateMessage';

/**
 * Largest batch payload a relay builds (bytes of UTF-16 text, about the UTF-8 size for the
 * ASCII frames): far below nats-server's default max_payload (1 MiB). A turn that applied
 * more (a snapshot's folded updates) is published as several consecutive batches.
 */
export const MAX_BATCH_CHARS = 256 * 1024;

/** The first line of a batch: `{"v":3,"first":"<seq>","last":"<seq>"}`. */
const BATCH_HEAD = /^\{"v":3,"first":"(\d{1,20})","last":"(\d{1,20})"\}$/;
/** The version a message claims, read from whatever it starts with. */
const ANY_VERSION = /^\{"v":(\d+)[,}]/;

/**
 * The payload of an update message: a head line `{"v":3,"first":"F","last":"L"}`, then the
 * updates F..L of one stream, one update frame ({@link encodeUpdateMessage}) per line, in
 * seq order (`\n` separated; a compact frame never holds a raw line break). `frames[i]` must
 * be the frame of update `first + i`.
 */
export function encodeUpdateBatch(first: bigint, frames: readonly string[]): string {
  if (frames.length === 0) throw busError('an update batch holds at least one update');
  return `{"v":${BUS_FORMAT_VERSION},"first":"${first}","last":"${first + BigInt(frames.length - 1)}"}\n${frames.join('\n')}`;
}

/** The bounds of a batch. */
export interface BatchHead {
  readonly first: bigint;
  readonly last: bigint;
  /** Index in the text of the first frame. */
  readonly body: number;
}

/**
 * Reads the head line of a batch.
 * @throws ExchangeReplicaError `ERR_BUS` naming the version of a message of another format version (a version 2
 * message is a bare update frame), or what is wrong.
 */
export function readBatchHead(text: string, key: string): BatchHead {
  const nl = text.indexOf('\n');
  const head = nl < 0 ? text : text.slice(0, nl);
  const m = BATCH_HEAD.exec(head);
  if (m === null || nl < 0) throw busError(`update message of ${key}: ${unreadableHead(head)}`);
  const first = uint64FromDigits(m[1]!);
  const last = uint64FromDigits(m[2]!);
  if (last < first) throw busError(`update message of ${key}: batch ${first}..${last} ends before it starts`);
  return { first, last, body: nl + 1 };
}

function unreadableHead(head: string): string {
  const v = ANY_VERSION.exec(head);
  if (v !== null && Number(v[1]) !== BUS_FORMAT_VERSION) return `bus format version ${v[1]}, this reader reads version ${BUS_FORMAT_VERSION} (run relays and consumers of the same version)`;
  if (head.startsWith('{"type":')) return `a bare update frame (bus format version 2), this reader reads version ${BUS_FORMAT_VERSION} (run relays and consumers of the same version)`;
  return `not a version ${BUS_FORMAT_VERSION} batch head: ${JSON.stringify(head.slice(0, 120))}`;
}

/**
 * Reads a batch of the stream `key` (of `channel`), keeping the updates with `seq > after`
 * (all of them when `after` is undefined). The head's bounds must match the number of frames;
 * each kept frame is read and validated by {@link decodeUpdateMessage} and must carry the seq
 * of its place. Frames at or below `after` are not read: they are never applied. Nothing is
 * returned unless every kept frame is valid.
 * @throws ExchangeReplicaError `ERR_BUS` naming what is wrong (a message of another format version says so).
 */
export function decodeUpdateBatch(text: string, key: string, channel: ChannelName, after?: bigint): { readonly head: BatchHead; readonly updates: UpdateMessage[] } {
  return readBatch(text, key, channel, after, (seq, timestampNs, data) => ({ streamKey: key, channel, seq, timestampNs, data }));
}

/**
 * {@link decodeUpdateBatch} straight into the source's updates, each received at
 * `receivedAtNs` (a bus consumer's hot path: one object per update).
 * @throws ExchangeReplicaError `ERR_BUS` naming what is wrong.
 * @internal
 */
export function readSourceUpdates(text: string, key: string, channel: ChannelName, after: bigint | undefined, receivedAtNs: bigint): { readonly head: BatchHead; readonly updates: SourceUpdate[] } {
  return readBatch(text, key, channel, after, (seq, timestampNs, data): SourceUpdate => ({ kind: 'update', seq, timestampNs, receivedAtNs, data }));
}

function readBatch<T extends { readonly seq: bigint }>(text: string, key: string, channel: ChannelName, after: bigint | undefined, make: (seq: bigint, timestampNs: bigint, data: unknown) => T): { readonly head: BatchHead; readonly updates: T[] } {
  const head = readBatchHead(text, key);
  const count = head.last - head.first + 1n;
  const updates: T[] = [];
  let at = head.body;
  let seq = head.first;
  for (; at <= text.length; seq++) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    if (after === undefined || seq > after) {
      const u = readFrame(text.slice(at, end), key, channel, make);
      if (u.seq !== seq) throw busError(`update message of ${key}: frame ${seq - head.first} of batch ${head.first}..${head.last} holds seq ${u.seq}`);
      updates.push(u);
    }
    at = end + 1;
  }
  if (seq - head.first !== count) throw busError(`update message of ${key}: batch ${head.first}..${head.last} holds ${seq - head.first} frames`);
  return { head, updates };
}

const TIMESTAMP = /,"timestamp_ns":"\d{1,20}"/g;

/**
 * Whether two batches' texts hold the same updates but for the exchange's timestamps: two
 * relays' copies of a batch hold the same updates (seq and data, in the protocol's compact
 * form), each stamped with the time the exchange sent it on that relay's socket.
 */
export function sameUpdates(a: string, b: string): boolean {
  return a === b || a.replace(TIMESTAMP, '') === b.replace(TIMESTAMP, '');
}
