/**
 * The wire of the bus: every name and format a relay writes and a consumer reads, in one
 * place. Nothing here talks to NATS (the relay and the consumers do).
 *
 * - One JetStream stream (`ER_UPDATES`, subjects `er.u.>`) holds the updates of every
 *   stream: one subject per stream key (`er.u.<channel>.<scope tokens>`). One message is a
 *   BATCH: the consecutive updates `first..last` of one stream that a relay applied in one
 *   turn of its event loop (one socket read of the exchange feed: no added wait), see
 *   {@link encodeUpdateBatch}. Its JetStream message id is `<streamKey>#<first>-<last>`
 *   (header `Nats-Msg-Id`), the relay in header `Er-Relay`.
 * - One KV bucket (`er_snapshots`) holds one snapshot per stream (key `<channel>.<scope
 *   tokens>`): the snapshot's data, its exchange sequence S and the JetStream sequence a
 *   consumer reads the stream's subject from (`jsStartSeq`).
 * - Heartbeats (core NATS, not stored): `er.hb.<relayId>`, the relay's streams and their
 *   statuses.
 *
 * What the subject holds (one relay): its batches in seq order, each starting where the one
 * before ended + 1, within an epoch (see StreamRelay: between two epochs, a hole).
 *
 * What the subject holds (two relays carrying the same stream, HA): JetStream stores a batch
 * id once within its duplicate window, so a batch the other relay already stored with the
 * SAME bounds is dropped (the PubAck names the stored copy). Two relays read the exchange on
 * their own sockets and may cut different batches ([10..12] and [10..15]): both are stored,
 * and the subject then holds overlapping batches. No update is ever lost to deduplication:
 * a batch is dropped only when one with the same bounds, hence the same updates, is stored.
 * (An id from the first seq alone would drop [10..15] after [10..12], and 13..15 would be
 * missing from that relay's run.) Each relay's own batches stay contiguous, so the
 * interleaving of two relays' batches, read with the rule below, never shows a gap: when a
 * batch of relay B comes, B's previous batch (which ended at its first - 1) was already read.
 *
 * A consumer: read the KV entry (data, S, jsStartSeq), read the subject from `jsStartSeq`;
 * of each batch keep only the updates above the last one kept (above S at first: an
 * overlapping batch is trimmed, one wholly at or below is dropped), require the first one
 * kept to be the last + 1, and on a gap read the KV entry again (it is refreshed by every
 * relay at least every `snapshotRefreshMs`). Every update is thus delivered exactly once,
 * in seq order.
 *
 * Every bigint travels as a decimal string; JetStream sequences are JSON numbers (they are
 * numbers in the NATS clients). Every record carries the format version; a reader refuses
 * another version with an error that says so (relays and consumers must speak the same one).
 */
import * as z from 'zod/mini';
import type { SourceUpdate } from '../replicas/ReplicaSource';
import { CHANNELS, decodeAndValidate, HOT_CHANNELS, isChannelName, safeParse, streamKey, updateFramePrefix, validateScope, writeUpdateData, writeUpdateFrame, type ChannelName, type HotChannel, type OperationName, type Scope, type ValidateOptions } from '../protocol';

import { ExchangeReplicaError } from '../errors';

/** A bus message or name this module cannot read or write: `ERR_BUS`, with what is wrong. */
const busError = (message: string): ExchangeReplicaError => new ExchangeReplicaError('ERR_BUS', message);

/**
 * Version of the formats below; a reader refuses a record of another version. 3: update
 * messages are batches ({@link encodeUpdateBatch}); 2 had one update per message.
 */
export const BUS_FORMAT_VERSION = 3;

/** @default prefix of every name of the bus */
export const DEFAULT_BUS_PREFIX = 'er';

/** The names of one bus (one prefix: several exchanges can share a NATS account with different prefixes). */
export interface BusNames {
  /** The prefix, e.g. `er`. */
  readonly prefix: string;
  /** JetStream stream of the updates, e.g. `ER_UPDATES`. */
  readonly stream: string;
  /** Subjects of that stream, e.g. `er.u.>`. */
  readonly updateSubjects: string;
  /** KV bucket of the snapshots, e.g. `er_snapshots`. */
  readonly bucket: string;
  /** Subjects of the heartbeats, e.g. `er.hb.>`. */
  readonly heartbeatSubjects: string;
}

const PREFIX_RE = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * The names of the bus with `prefix`.
 * @throws Error when the prefix is not 1 to 32 characters of `a-z 0-9 _ -` starting with a letter.
 */
export function busNames(prefix: string = DEFAULT_BUS_PREFIX): BusNames {
  if (!PREFIX_RE.test(prefix)) throw busError(`invalid bus prefix ${JSON.stringify(prefix)}: expected 1 to 32 characters of a-z 0-9 _ - starting with a letter`);
  return {
    prefix,
    stream: `${prefix.toUpperCase().replace(/-/g, '_')}_UPDATES`,
    updateSubjects: `${prefix}.u.>`,
    bucket: `${prefix}_snapshots`,
    heartbeatSubjects: `${prefix}.hb.>`,
  };
}

// ---- subjects and keys --------------------------------------------------------

/** Bytes kept as they are in a token; every other byte is `-` and two uppercase hex digits. */
const PLAIN_BYTE = /[A-Za-z0-9_=]/;

/**
 * One subject token (and KV key token) for any text: letters, digits, `_` and `=` stay, every
 * other UTF-8 byte becomes `-XX` (so no `.`, space, `*` or `>` can reach a subject, the
 * result is also a valid KV key part, and two texts never give the same token).
 */
export function encodeToken(text: string): string {
  let out = '';
  for (const ch of text) {
    if (PLAIN_BYTE.test(ch)) {
      out += ch;
      continue;
    }
    for (const b of Buffer.from(ch, 'utf8')) out += `-${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out === '' ? '-' : out;
}

/** The tokens of a stream: the channel, then `key=value` for each scope key in the stream key's order. */
function streamTokens(key: string): string {
  return key.split('|').map(encodeToken).join('.');
}

/** The subject of a stream's updates, e.g. `er.u.book.market_id=0.is_perps=true`. */
export function updateSubject(names: BusNames, channel: ChannelName, scope: Scope): string {
  return `${names.prefix}.u.${streamTokens(streamKey(channel, scope))}`;
}

/** The KV key of a stream's snapshot, e.g. `book.market_id=0.is_perps=true`. */
export function snapshotKey(channel: ChannelName, scope: Scope): string {
  return streamTokens(streamKey(channel, scope));
}

/** The subject of one relay's heartbeats, e.g. `er.hb.host-1234-ab12`. */
export function heartbeatSubject(names: BusNames, relayId: string): string {
  return `${names.prefix}.hb.${encodeToken(relayId)}`;
}

/**
 * The JetStream message id of the batch of updates `first..last` of a stream: JetStream stores
 * each id once within the duplicate window, so two relays' batches are stored once only when
 * they have the same bounds (see the module comment).
 */
export function messageId(key: string, first: bigint, last: bigint): string {
  return `${key}#${first}-${last}`;
}

// ---- update messages ----------------------------------------------------------

/** Headers of an update message. */
export const UPDATE_HEADERS = {
  /** JetStream's deduplication header: {@link messageId}. */
  msgId: 'Nats-Msg-Id',
  /** The relay that stored the message (the first one to publish it). */
  relay: 'Er-Relay',
} as const;

/**
 * Largest batch payload a relay builds (bytes of UTF-16 text, about the UTF-8 size for the
 * ASCII frames): far below nats-server's default max_payload (1 MiB). A turn that applied
 * more (a snapshot's folded updates) is published as several consecutive batches.
 */
export const MAX_BATCH_CHARS = 256 * 1024;

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
 * @throws Error when a channel without a compact form holds what JSON cannot carry exactly.
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
 * @throws Error naming what is wrong.
 */
export function decodeUpdateMessage(text: string, key: string, channel: ChannelName): UpdateMessage {
  return readFrame(text, key, channel, (seq, timestampNs, data) => ({ streamKey: key, channel, seq, timestampNs, data }));
}

/** {@link decodeUpdateMessage}'s checks, the update made by `make` (no intermediate object on the hot path). */
function readFrame<T>(text: string, key: string, channel: ChannelName, make: (seq: bigint, timestampNs: bigint, data: unknown) => T): T {
  const r = decodeAndValidate(text, STRICT);
  if (!r.ok) throw busError(`update message of ${key}: ${r.message}`);
  const f = r.frame;
  if (f.type !== 'update') throw busError(`update message of ${key}: a ${f.type} frame`);
  if (f.subscription_id !== key || f.channel !== channel) throw busError(`update message of ${key}: it names stream ${f.subscription_id} of channel ${f.channel}`);
  if (!r.dataValidated) throw busError(`update message of ${key}: data not validated`);
  return make(uint64(f.seq), BigInt(f.timestamp_ns), r.data);
}

/** `BigInt(number)` costs a third of `BigInt(string)`: the common case of a seq (exact below 2^53). */
function uint64(digits: string): bigint {
  return digits.length <= 15 ? BigInt(+digits) : BigInt(digits);
}

// ---- update batches (the payload of an update message) ------------------------

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
 * @throws Error naming the version of a message of another format version (a version 2
 * message is a bare update frame), or what is wrong.
 */
export function readBatchHead(text: string, key: string): BatchHead {
  const nl = text.indexOf('\n');
  const head = nl < 0 ? text : text.slice(0, nl);
  const m = BATCH_HEAD.exec(head);
  if (m === null || nl < 0) throw busError(`update message of ${key}: ${unreadableHead(head)}`);
  const first = uint64(m[1]!);
  const last = uint64(m[2]!);
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
 * @throws Error naming what is wrong (a message of another format version says so).
 */
export function decodeUpdateBatch(text: string, key: string, channel: ChannelName, after?: bigint): { readonly head: BatchHead; readonly updates: UpdateMessage[] } {
  return readBatch(text, key, channel, after, (seq, timestampNs, data) => ({ streamKey: key, channel, seq, timestampNs, data }));
}

/**
 * {@link decodeUpdateBatch} straight into the source's updates, each received at
 * `receivedAtNs` (a bus consumer's hot path: one object per update).
 * @throws Error naming what is wrong.
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

// ---- resets ---------------------------------------------------------------------

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

// ---- acknowledgements (JetStream's answer to a publish) ----------------------

/** What JetStream answers to a stored (or deduplicated) message. */
export interface PublishAck {
  /** The JetStream sequence of the message (of the stored copy for a duplicate). */
  readonly seq: number;
  /** The message id was already stored within the duplicate window. */
  readonly duplicate: boolean;
}

/** nats-server's own rendering of a PubAck, read without `JSON.parse`; anything else takes the general path. */
const PUB_ACK = /^\{"stream":"[^"\\]*",(?:"domain":"[^"\\]*",)?"seq":(\d{1,15})(,"duplicate":true)?\}$/;

/**
 * Reads JetStream's answer to a publish (`{"stream":..,"seq":..,"duplicate":..}` or
 * `{"error":{..}}`).
 * @throws Error with JetStream's description for a negative answer or an unreadable one.
 */
export function decodePublishAck(text: string): PublishAck {
  const m = PUB_ACK.exec(text);
  if (m !== null) return { seq: Number(m[1]), duplicate: m[2] !== undefined };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw busError(`unreadable JetStream acknowledgement ${JSON.stringify(text.slice(0, 200))}`);
  }
  const o = (typeof v === 'object' && v !== null ? v : {}) as { seq?: unknown; duplicate?: unknown; error?: { code?: unknown; err_code?: unknown; description?: unknown } | null };
  if (typeof o.error === 'object' && o.error !== null) throw busError(`JetStream refused the message: ${String(o.error.description ?? 'no description')} (code ${String(o.error.code)}, err_code ${String(o.error.err_code)})`);
  if (typeof o.seq !== 'number' || !Number.isSafeInteger(o.seq) || o.seq < 1) throw busError(`unreadable JetStream acknowledgement ${JSON.stringify(text.slice(0, 200))}`);
  return { seq: o.seq, duplicate: o.duplicate === true };
}

const DECIMAL = /^[0-9]{1,20}$/;

function isHotChannel(channel: string): channel is HotChannel {
  return (HOT_CHANNELS as readonly string[]).includes(channel);
}

/**
 * JSON of a value made of JSON values only, exactly: a bigint, a non-finite number or
 * anything JSON cannot carry is refused rather than changed (the REST and feed records hold
 * u64 quantities as decimal strings, so their `data` always passes).
 * @throws Error naming the path of the first value JSON cannot carry exactly.
 */
export function exactJson(value: unknown): string {
  checkJsonValue(value, '$');
  return JSON.stringify(value);
}

function checkJsonValue(v: unknown, path: string): void {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(v)) throw busError(`${path} is ${v}: JSON cannot carry it`);
      return;
    case 'object':
      if (v === null) return;
      if (Array.isArray(v)) {
        v.forEach((x, i) => checkJsonValue(x, `${path}[${i}]`));
        return;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) throw busError(`${path} is a ${(v as object).constructor?.name ?? 'non-plain object'}: only plain objects are carried`);
      for (const [k, x] of Object.entries(v)) if (x !== undefined) checkJsonValue(x, `${path}.${k}`);
      return;
    default:
      throw busError(`${path} is a ${typeof v}: JSON cannot carry it exactly`);
  }
}

/** @throws Error saying so when a record names another format version. */
function checkVersion(json: unknown, what: string): void {
  const v = typeof json === 'object' && json !== null ? (json as { v?: unknown }).v : undefined;
  if (typeof v === 'number' && v !== BUS_FORMAT_VERSION) throw busError(`invalid ${what}: bus format version ${v}, this reader reads version ${BUS_FORMAT_VERSION} (run relays and consumers of the same version)`);
}

// ---- snapshots (KV) -----------------------------------------------------------

/**
 * One KV entry: a snapshot of a stream aligned with the stream's subject. A consumer builds
 * its state with the channel's reducer (`fromSnapshot(data, scope)`), then applies the
 * messages of `subject` read from JetStream sequence `jsStartSeq`, dropping those with
 * `seq <= sequence`; the first one kept is `sequence + 1`.
 */
export interface SnapshotRecord {
  readonly v: typeof BUS_FORMAT_VERSION;
  readonly streamKey: string;
  readonly channel: ChannelName;
  readonly scope: Scope;
  /** The update subject of the stream. */
  readonly subject: string;
  /** The REST operation the snapshot came from (`CHANNELS[channel].snapshot`). */
  readonly operation: OperationName;
  /** The exchange sequence S the snapshot includes. */
  readonly sequence: bigint;
  /** The exchange's time of the snapshot answer (ns), 0 when it gave none. */
  readonly timestampNs: bigint;
  /**
   * What the channel's reducer builds from (`Reducer.fromSnapshot`), exactly as the REST
   * client returned it: the answer's `data` for one-page snapshots, every page's records
   * for `orders`, `{records, exhausted}` (the newest page) for the event channels.
   */
  readonly data: unknown;
  /** The JetStream stream of the updates. */
  readonly jsStream: string;
  /** Read `subject` from this JetStream sequence: every update above S is at or after it. */
  readonly jsStartSeq: number;
  /** When the relay wrote the entry (Unix ns, the relay's clock). */
  readonly writtenAtNs: bigint;
  /** The relay that wrote it. */
  readonly relayId: string;
}

const Decimal = z.string().check(z.regex(DECIMAL, 'expected a decimal integer string'));
const ScopeSchema = z.record(z.string(), z.union([z.number(), z.boolean(), z.string()]));
const SnapshotRecordSchema = z.object({
  v: z.literal(BUS_FORMAT_VERSION),
  streamKey: z.string().check(z.minLength(1)),
  channel: z.string().check(z.refine(isChannelName, 'expected a channel name')),
  scope: ScopeSchema,
  subject: z.string().check(z.minLength(1)),
  operation: z.string().check(z.minLength(1)),
  sequence: Decimal,
  timestampNs: Decimal,
  data: z.unknown(),
  jsStream: z.string().check(z.minLength(1)),
  jsStartSeq: z.number().check(z.int(), z.gte(1)),
  writtenAtNs: Decimal,
  relayId: z.string(),
});

/** The KV value of a snapshot (JSON, bigints as decimal strings). @throws Error when `data` holds what JSON cannot carry exactly. */
export function encodeSnapshotRecord(r: SnapshotRecord): string {
  checkJsonValue(r.data, '$.data');
  return JSON.stringify({ ...r, sequence: r.sequence.toString(), timestampNs: r.timestampNs.toString(), writtenAtNs: r.writtenAtNs.toString() });
}

/**
 * Reads a KV value written by {@link encodeSnapshotRecord}, checking its shape, its version,
 * that its scope is valid for its channel and that `streamKey` matches them.
 * @throws Error naming what is wrong.
 */
export function decodeSnapshotRecord(text: string): SnapshotRecord {
  const json: unknown = JSON.parse(text);
  checkVersion(json, 'snapshot record');
  const parsed = safeParse(SnapshotRecordSchema, json);
  if (!parsed.success) throw busError(`invalid snapshot record: ${parsed.error.issues.map((i) => `${i.path.join('.') || '$'}: ${i.message}`).join('; ')}`);
  const p = parsed.data;
  const channel = p.channel as ChannelName;
  const scoped = validateScope(channel, p.scope);
  if (!scoped.ok) throw busError(`invalid snapshot record: ${scoped.message}`);
  if (streamKey(channel, scoped.scope) !== p.streamKey) throw busError(`invalid snapshot record: streamKey ${p.streamKey} does not match channel ${channel} and its scope`);
  if (CHANNELS[channel].snapshot !== p.operation) throw busError(`invalid snapshot record: operation ${p.operation} is not the snapshot of ${channel}`);
  return {
    v: BUS_FORMAT_VERSION,
    streamKey: p.streamKey,
    channel,
    scope: scoped.scope,
    subject: p.subject,
    operation: p.operation as OperationName,
    sequence: BigInt(p.sequence),
    timestampNs: BigInt(p.timestampNs),
    data: p.data,
    jsStream: p.jsStream,
    jsStartSeq: p.jsStartSeq,
    writtenAtNs: BigInt(p.writtenAtNs),
    relayId: p.relayId,
  };
}

// ---- heartbeats ---------------------------------------------------------------

/** Status of one stream a relay carries (the statuses of `ExchangeClient` replicas). */
export type RelayStreamStatus = 'syncing' | 'live' | 'resyncing' | 'stale' | 'failed';

/** One stream in a heartbeat. */
export interface HeartbeatStream {
  readonly streamKey: string;
  readonly channel: ChannelName;
  readonly scope: Scope;
  readonly subject: string;
  /** The KV key of its snapshot. */
  readonly snapshotKey: string;
  readonly status: RelayStreamStatus;
  /** The newest exchange `seq` this relay published (acknowledged by JetStream), or null. */
  readonly publishedSeq: bigint | null;
  /** The exchange sequence S of the newest snapshot this relay wrote or found in the KV bucket, or null. */
  readonly snapshotSequence: bigint | null;
  /** Updates published (acknowledged) by this relay, duplicates included. */
  readonly published: number;
  /** Of those, the ones JetStream already held (in a batch with the same bounds published first by another relay). */
  readonly duplicates: number;
  /** Messages (batches) published (acknowledged) by this relay, duplicates included. */
  readonly messages: number;
  /** Times this stream was (re)synced from a snapshot. */
  readonly syncs: number;
}

/**
 * The heartbeat intervals a relay may announce (`ReplicaRelayOptions.heartbeatMs`), ms. A
 * consumer believes no other (`BusSourceOptions.maxHeartbeatIntervalMs`): a heartbeat that
 * announces one outside the range is judged at {@link DEFAULT_HEARTBEAT_MS}, so that a stream
 * still goes stale a few seconds after its relays stop.
 */
export const HEARTBEAT_INTERVAL_MS = Object.freeze({ min: 10, max: 60_000 });

/** @default the relays' heartbeat interval, ms */
export const DEFAULT_HEARTBEAT_MS = 1000;

/** The payload of a heartbeat (JSON on `er.hb.<relayId>`). */
export interface Heartbeat {
  readonly v: typeof BUS_FORMAT_VERSION;
  readonly relayId: string;
  /** `running`, or `closing` for the last heartbeat of a relay that stops. */
  readonly state: 'running' | 'closing';
  /** The relay's clock (Unix ns). */
  readonly atNs: bigint;
  /** Heartbeats are sent every this many ms: missing three means the relay is gone. */
  readonly intervalMs: number;
  /** Each stream's snapshot is rewritten at least this often (ms) while the stream is live. */
  readonly snapshotRefreshMs: number;
  /** The exchange feed connection's state (`open`, `reconnecting`, ...). */
  readonly feed: string;
  readonly jsStream: string;
  readonly bucket: string;
  readonly streams: readonly HeartbeatStream[];
}

const NullableDecimal = z.nullable(Decimal);
const HeartbeatSchema = z.object({
  v: z.literal(BUS_FORMAT_VERSION),
  relayId: z.string(),
  state: z.enum(['running', 'closing']),
  atNs: Decimal,
  intervalMs: z.number().check(z.positive()),
  snapshotRefreshMs: z.number().check(z.positive()),
  feed: z.string(),
  jsStream: z.string(),
  bucket: z.string(),
  streams: z.array(
    z.object({
      streamKey: z.string(),
      channel: z.string().check(z.refine(isChannelName, 'expected a channel name')),
      scope: ScopeSchema,
      subject: z.string(),
      snapshotKey: z.string(),
      status: z.enum(['syncing', 'live', 'resyncing', 'stale', 'failed']),
      publishedSeq: NullableDecimal,
      snapshotSequence: NullableDecimal,
      published: z.number().check(z.int(), z.gte(0)),
      duplicates: z.number().check(z.int(), z.gte(0)),
      messages: z.number().check(z.int(), z.gte(0)),
      syncs: z.number().check(z.int(), z.gte(0)),
    }),
  ),
});

/** The heartbeat payload (JSON, bigints as decimal strings). */
export function encodeHeartbeat(h: Heartbeat): string {
  return JSON.stringify({
    ...h,
    atNs: h.atNs.toString(),
    streams: h.streams.map((s) => ({ ...s, publishedSeq: s.publishedSeq?.toString() ?? null, snapshotSequence: s.snapshotSequence?.toString() ?? null })),
  });
}

/** Reads a heartbeat payload. @throws Error naming what is wrong. */
export function decodeHeartbeat(text: string): Heartbeat {
  const json: unknown = JSON.parse(text);
  checkVersion(json, 'heartbeat');
  const parsed = safeParse(HeartbeatSchema, json);
  if (!parsed.success) throw busError(`invalid heartbeat: ${parsed.error.issues.map((i) => `${i.path.join('.') || '$'}: ${i.message}`).join('; ')}`);
  const p = parsed.data;
  return {
    ...p,
    v: BUS_FORMAT_VERSION,
    atNs: BigInt(p.atNs),
    streams: p.streams.map((s) => ({
      ...s,
      channel: s.channel as ChannelName,
      scope: s.scope as Scope,
      publishedSeq: s.publishedSeq === null ? null : BigInt(s.publishedSeq),
      snapshotSequence: s.snapshotSequence === null ? null : BigInt(s.snapshotSequence),
    })),
  };
}

// ---- the JetStream stream and the KV bucket -----------------------------------

/** Limits of the updates stream (applied when a relay creates it; an existing stream is kept as it is). */
export interface BusStreamLimits {
  /** Window in which JetStream drops a second message with the same id. @default 120000 (2 min) */
  readonly duplicateWindowMs?: number;
  /** Messages older than this are removed. Must be at least the duplicate window. @default 900000 (15 min) */
  readonly maxAgeMs?: number;
  /** Messages kept per subject (per stream key); older ones are removed first. @default 100000 */
  readonly maxMsgsPerSubject?: number;
  /**
   * Bytes kept in the stream, the oldest messages removed first (-1: no bound besides the age
   * and per-subject bounds). A consumer needs only the messages since its stream's KV snapshot
   * (a few seconds, see `snapshotRefreshMs`); older ones serve slow consumers, which otherwise
   * resync from the KV. @default 536870912 (512 MiB)
   */
  readonly maxBytes?: number;
  /**
   * Where JetStream keeps the updates stream and the snapshot bucket. `memory` is the default
   * because on nats-server 2.9 the file store adds tens of milliseconds at p99 to a message's
   * way from publish to delivery (benchmarks/bus/natsProbe.ts: p99 17-43 ms on file, 1.2-3 ms
   * in memory, at 2,000 messages/s on this project's 2-core machine), and the bus holds
   * nothing the exchange cannot give again: after a nats-server restart the relays recreate
   * the stream and the bucket, start new epochs and write fresh snapshots, and the consumers
   * follow (stale meanwhile). `file` keeps the stream across restarts (the consumers resume
   * without a new snapshot) at that cost in latency.
   * @default 'memory'
   */
  readonly storage?: 'file' | 'memory';
  /** Copies in a JetStream cluster. @default 1 */
  readonly replicas?: number;
}

export const DEFAULT_STREAM_LIMITS: Required<BusStreamLimits> = Object.freeze({
  duplicateWindowMs: 120_000,
  maxAgeMs: 900_000,
  maxMsgsPerSubject: 100_000,
  maxBytes: 512 * 1024 * 1024,
  storage: 'memory',
  replicas: 1,
});

const NS_PER_MS = 1_000_000;

/**
 * The configuration of the updates stream (JetStream API field names; only what
 * nats-server 2.9 knows). Limits retention, discard old.
 */
export function updateStreamConfig(names: BusNames, limits: Required<BusStreamLimits>): UpdateStreamConfig {
  return {
    name: names.stream,
    subjects: [names.updateSubjects],
    retention: 'limits',
    discard: 'old',
    storage: limits.storage,
    num_replicas: limits.replicas,
    duplicate_window: limits.duplicateWindowMs * NS_PER_MS,
    max_age: limits.maxAgeMs * NS_PER_MS,
    max_msgs_per_subject: limits.maxMsgsPerSubject,
    max_bytes: limits.maxBytes,
  };
}

/** The updates stream's configuration, in the JetStream API's field names and units (ns). */
export interface UpdateStreamConfig {
  readonly name: string;
  readonly subjects: readonly string[];
  readonly retention: 'limits';
  readonly discard: 'old';
  readonly storage: 'file' | 'memory';
  readonly num_replicas: number;
  readonly duplicate_window: number;
  readonly max_age: number;
  readonly max_msgs_per_subject: number;
  readonly max_bytes: number;
}

/** Entries of a streams's snapshot kept in the bucket: the newest only. */
export const SNAPSHOT_HISTORY = 1;

// ---- exchange metadata (KV) ---------------------------------------------------

/** KV key of the exchange's market list, written by every relay when it starts (no channel is named `meta`). */
export const MARKETS_META_KEY = 'meta.markets';

/** The value under {@link MARKETS_META_KEY}: what consumers without REST need to label markets. */
export interface MarketsMeta {
  readonly v: typeof BUS_FORMAT_VERSION;
  /** The `data` of REST `markets` (market_type all), as the relay's REST client returned it. */
  readonly markets: readonly unknown[];
  /** The `data` of REST `tokens`, or null when the exchange does not serve it. */
  readonly tokens: readonly unknown[] | null;
  readonly relayId: string;
}
