/** A relay's heartbeat (core NATS, not stored): the streams it carries and their statuses. */
import * as z from 'zod/mini';
import { isChannelName, safeParse, type ChannelName, type Scope } from '../../protocol';
import { busError } from './busError';
import { parseJson } from './exactJson';
import { BUS_FORMAT_VERSION, checkVersion } from './formatVersion';
import { Decimal, NullableDecimal, ScopeSchema } from './schemas';

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

/** Reads a heartbeat payload. @throws ExchangeReplicaError `ERR_BUS` naming what is wrong. */
export function decodeHeartbeat(text: string): Heartbeat {
  const json = parseJson(text, 'heartbeat');
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
