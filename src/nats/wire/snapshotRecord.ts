/** A stream's KV entry: a snapshot aligned with the stream's subject. */
import * as z from 'zod/mini';
import { CHANNELS, isChannelName, safeParse, streamKey, validateScope, type ChannelName, type OperationName, type Scope } from '../../protocol';
import { busError } from './busError';
import { checkJsonValue, parseJson } from './exactJson';
import { BUS_FORMAT_VERSION, checkVersion } from './formatVersion';
import { Decimal, ScopeSchema } from './schemas';

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

/** The KV value of a snapshot (JSON, bigints as decimal strings). @throws ExchangeReplicaError `ERR_BUS` when `data` holds what JSON cannot carry exactly. */
export function encodeSnapshotRecord(r: SnapshotRecord): string {
  checkJsonValue(r.data, '$.data');
  return JSON.stringify({ ...r, sequence: r.sequence.toString(), timestampNs: r.timestampNs.toString(), writtenAtNs: r.writtenAtNs.toString() });
}

/**
 * Reads a KV value written by {@link encodeSnapshotRecord}, checking its shape, its version,
 * that its scope is valid for its channel and that `streamKey` matches them.
 * @throws ExchangeReplicaError `ERR_BUS` naming what is wrong.
 */
export function decodeSnapshotRecord(text: string): SnapshotRecord {
  const json = parseJson(text, 'snapshot record');
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

/**
 * Whether a snapshot record leaves no record above `watermark` (a record's sequence, not an
 * update's seq) out: it is no event stream's page, or its page (the newest records,
 * `{ records, exhausted }`) is the whole history, holds nothing, or reaches back to the record
 * after it.
 */
export function snapshotPageReaches(entry: SnapshotRecord, watermark: bigint): boolean {
  const page = entry.data as { readonly records?: unknown; readonly exhausted?: unknown } | null;
  if (page === null || typeof page !== 'object' || !Array.isArray(page.records) || page.exhausted === true) return true;
  let oldest: bigint | undefined;
  for (const r of page.records as unknown[]) {
    const seq = (r as { readonly sequence?: unknown } | null)?.sequence;
    if (typeof seq !== 'string' || !/^\d{1,20}$/.test(seq)) continue;
    const s = BigInt(seq);
    if (oldest === undefined || s < oldest) oldest = s;
  }
  return oldest === undefined || oldest <= watermark + 1n;
}
