/** The JetStream stream of the updates (its limits and configuration) and the snapshot bucket's history. */
import type { BusNames } from './busNames';

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
