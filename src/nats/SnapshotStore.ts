/**
 * Writes snapshots to the KV bucket so that the entry of a stream only moves forward: a
 * write replaces the entry only when its exchange sequence S is above the entry's (compare
 * and set on the entry's revision, retried on a conflict). Two relays writing the same
 * stream therefore leave the newest snapshot, whatever the order of their writes; every
 * entry is aligned by the relay that wrote it (see SnapshotAligner), so any of them is valid.
 *
 * One exception: an entry above the writer's `ceiling` (the seq its own replica is at) is
 * ahead of anything the writer applied from the exchange, which no relay of the same exchange
 * is for long: it is replaced too, so that an entry no relay could have written (a sequence
 * far ahead) cannot hold the bucket for good. (Between two relays, one briefly ahead of the
 * other may see its entry replaced by an older one: consumers read older entries correctly.)
 */
import type { KV } from '@nats-io/kv';
import { natsFailure } from './natsConnection';
import { decodeSnapshotRecord, encodeSnapshotRecord, type SnapshotRecord } from './wire';

/** Tries of one write when other writers keep changing the entry. */
const MAX_TRIES = 5;
/** JetStream's codes for an expected last sequence that did not match (a concurrent write). */
const WRONG_LAST_SEQUENCE = new Set([10071, 10164]);

/** What a write did, with the entry's sequence afterwards. */
export interface StoreResult {
  readonly outcome: 'written' | 'kept';
  /** The exchange sequence S the entry holds now. */
  readonly sequence: bigint;
  /** Its KV revision. */
  readonly revision: number;
}

export class SnapshotStore {
  constructor(private readonly kv: Pick<KV, 'get' | 'create' | 'update'>) {}

  /**
   * Writes `record` under `key` unless the entry already holds a snapshot at or above its
   * sequence (unless that entry is above `ceiling`: see the module comment). `wanted` is asked before each request: once false (the writer's epoch ended,
   * or NATS dropped and the bucket may have been recreated since, where a revision read
   * before would match an unrelated entry), the write stops with nothing more sent.
   * @throws ExchangeReplicaError `ERR_BUS` (`ERR_BUS_PERMISSION` for a refusal, the KV's error
   *   as its `cause`) when a read or a write fails for another reason than a conflict;
   *   {@link SnapshotWriteSuperseded} when `wanted()` turned false.
   */
  async write(key: string, record: SnapshotRecord, wanted: () => boolean = () => true, ceiling?: bigint): Promise<StoreResult> {
    const value = encodeSnapshotRecord(record);
    const check = (): void => {
      if (!wanted()) throw new SnapshotWriteSuperseded(key);
    };
    for (let attempt = 1; ; attempt++) {
      check();
      const entry = await this.kv.get(key).catch((error: unknown) => {
        throw natsFailure(error, `reading KV entry ${key}`);
      });
      check();
      const current = entry !== null && entry.operation === 'PUT' ? readRecord(entry.string()) : undefined;
      const ahead = ceiling !== undefined && current !== undefined && current.sequence > ceiling;
      if (current !== undefined && current.sequence >= record.sequence && !ahead) return { outcome: 'kept', sequence: current.sequence, revision: entry!.revision };
      try {
        const revision = entry === null ? await this.kv.create(key, value) : await this.kv.update(key, value, entry.revision);
        return { outcome: 'written', sequence: record.sequence, revision };
      } catch (error) {
        if (attempt >= MAX_TRIES || !isConflict(error)) throw natsFailure(error, `writing KV entry ${key}`);
      }
    }
  }

  /** The entry of `key`, undefined when there is none or it cannot be read. */
  async read(key: string): Promise<SnapshotRecord | undefined> {
    const entry = await this.kv.get(key);
    return entry !== null && entry.operation === 'PUT' ? readRecord(entry.string()) : undefined;
  }
}

/**
 * A write given up because its writer no longer wanted it (see {@link SnapshotStore.write}).
 * A signal between the store and its writer (SnapshotAligner holds the snapshot back on it),
 * never reported nor seen by a caller: not an `ExchangeReplicaError`.
 */
export class SnapshotWriteSuperseded extends Error {
  constructor(key: string) {
    super(`the snapshot write of ${key} was given up: its epoch ended or the bus changed`);
    this.name = 'SnapshotWriteSuperseded';
  }
}

function readRecord(text: string): SnapshotRecord | undefined {
  try {
    return decodeSnapshotRecord(text);
  } catch {
    return undefined; // unreadable: overwritten by the next write
  }
}

function isConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && WRONG_LAST_SEQUENCE.has(code)) return true;
  return /wrong last sequence/i.test((error as Error)?.message ?? '');
}
