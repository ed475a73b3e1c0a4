/**
 * One stream key read from the bus by one `BusSource`: ONE JetStream consumer on the stream's
 * subject, shared by every replica of that key in the process (`account()` and `fills()` read
 * the same fills stream). Each replica is a reader: it gets `subscribed` when it joins a
 * running feed or the feed (re)starts, then every update.
 *
 * A reader that joins late must see what its first snapshot does not include. The feed keeps
 * an anchor (a KV entry: S and where to read from) and the tail: every update delivered since,
 * with `seq > S`, in delivery order. A joiner gets `subscribed`, the tail, then live updates,
 * and its first snapshot request is answered with the anchor: exactly what `StreamSync` needs
 * (the updates above S, from S + 1). The anchor moves forward whenever a newer KV entry at or
 * below what was delivered is read, so the tail holds about one relay snapshot interval.
 * The tail keeps the messages' text (a batch is one flat string), not the decoded updates:
 * holding about a second of decoded books alive made every collection copy them to the old
 * generation; a joiner (rare) has the tail read again, with the same validation.
 * @internal
 */
import type { Subscriber } from 'rxjs';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { SourceEvent, SourceUpdate } from '../replicas';
import type { PushConsumer } from './PushConsumer';
import { decodeUpdateBatch, snapshotKey, updateSubject, type BusNames, type SnapshotRecord } from './busProtocol';

/** Updates kept for late joiners; past it, a joiner restarts the feed (every reader resyncs). */
export const MAX_TAIL = 50_000;

/** One message of the tail: a batch as read from JetStream. */
interface TailBatch {
  readonly text: string;
  readonly first: bigint;
  readonly last: bigint;
  readonly receivedAtNs: bigint;
}

/** One replica reading a feed. */
export interface FeedReader {
  readonly subscriber: Subscriber<SourceEvent>;
  /** `subscribed` was sent since the last `disconnected`. */
  up: boolean;
  /** Its first snapshot request since its last `subscribed` is still to come. */
  awaitingFirst: boolean;
}

export class BusFeed {
  readonly key: string;
  readonly subject: string;
  readonly kvKey: string;
  readonly readers = new Set<FeedReader>();
  /** Bumped on every start and stop: async work of an older one is dropped. */
  token = 0;
  phase: 'waiting' | 'starting' | 'running' | 'closed' = 'waiting';
  /** The KV entry the tail starts after (see the module comment). */
  anchor?: SnapshotRecord;
  /** The batches that delivered updates with seq above the anchor's S, in delivery order; undefined when it overflowed. */
  tail?: TailBatch[] = [];
  /** Updates the tail holds (at most, counting a batch's updates below S too). */
  private tailCount = 0;
  /** The highest seq delivered in this generation. */
  lastSeq?: bigint;
  /** First seq after a hole seen in this generation. */
  gapTo?: bigint;
  /** The JetStream consumer reading the subject (deleted when the feed stops). */
  consumer?: PushConsumer;
  /** When the KV entry was last compared with what was delivered (clock ms). */
  kvCheckedMs = 0;
  /** `lastSeq` when the KV entry was last seen above it (two such checks in a row resync). */
  aheadMark?: string;

  constructor(
    readonly channel: ChannelName,
    readonly scope: Scope,
    names: BusNames,
  ) {
    this.key = streamKey(channel, scope);
    this.subject = updateSubject(names, channel, scope);
    this.kvKey = snapshotKey(channel, scope);
  }

  /** Readers still to ask for their first snapshot. */
  get awaitingFirst(): boolean {
    for (const r of this.readers) if (r.awaitingFirst) return true;
    return false;
  }

  /** A new generation from `entry`: nothing delivered yet. */
  begin(entry: SnapshotRecord): void {
    this.anchor = entry;
    this.tail = [];
    this.tailCount = 0;
    this.lastSeq = undefined;
    this.gapTo = undefined;
    this.aheadMark = undefined;
  }

  /**
   * Records the updates of one batch (`text`, bounds `first..last`) that were delivered (the
   * ones above `lastSeq`, or above the anchor's S before any, in seq order) and hands each to
   * every reader.
   */
  deliver(text: string, first: bigint, last: bigint, updates: readonly SourceUpdate[]): void {
    const top = updates[updates.length - 1];
    if (top === undefined) return;
    const base = this.lastSeq ?? this.anchor?.sequence;
    if (base !== undefined && updates[0]!.seq > base + 1n) this.gapTo = updates[0]!.seq;
    if (this.lastSeq === undefined || top.seq > this.lastSeq) this.lastSeq = top.seq;
    if (this.tail !== undefined && last > (this.anchor?.sequence ?? -1n)) {
      this.tail.push({ text, first, last, receivedAtNs: top.receivedAtNs });
      this.tailCount += updates.length;
      if (this.tailCount > MAX_TAIL) this.tail = undefined;
    }
    for (const u of updates) for (const r of this.readers) r.subscriber.next(u);
  }

  /**
   * Moves the anchor to `entry` when it is newer; the tail keeps only what is above it.
   * A tail that overflowed is valid again from an entry at or above every seq delivered.
   */
  reanchor(entry: SnapshotRecord): void {
    const a = this.anchor;
    if (a !== undefined && entry.sequence <= a.sequence) return;
    this.anchor = entry;
    if (this.gapTo !== undefined && entry.sequence >= this.gapTo - 1n) this.gapTo = undefined;
    if (this.tail !== undefined) {
      this.tail = this.tail.filter((b) => b.last > entry.sequence);
      this.tailCount = this.tail.reduce((n, b) => n + Number(b.last - b.first) + 1, 0);
    } else if (this.lastSeq === undefined || entry.sequence >= this.lastSeq) {
      this.tail = [];
      this.tailCount = 0;
    }
  }

  /** `subscribed` to one reader, then the tail (its first snapshot will be the anchor). */
  join(reader: FeedReader, subscriptionId: string, generation: number): void {
    reader.up = true;
    reader.awaitingFirst = true;
    reader.subscriber.next({ kind: 'subscribed', subscriptionId, generation });
    for (const u of this.tailUpdates()) reader.subscriber.next(u);
  }

  /**
   * The updates of the tail above the anchor, as they were delivered: each batch read again
   * (it was read and validated when it came), keeping what is above the last one kept.
   */
  private *tailUpdates(): Generator<SourceUpdate> {
    let after = this.anchor?.sequence;
    for (const b of this.tail ?? []) {
      for (const u of decodeUpdateBatch(b.text, this.key, this.channel, after).updates) {
        after = u.seq;
        yield { kind: 'update', seq: u.seq, timestampNs: u.timestampNs, receivedAtNs: b.receivedAtNs, data: u.data };
      }
    }
  }

  /** `disconnected` to every reader that was up. */
  disconnect(reason: string): void {
    for (const r of this.readers) {
      if (!r.up) continue;
      r.up = false;
      r.awaitingFirst = false;
      r.subscriber.next({ kind: 'disconnected', reason });
    }
  }

  /** Marks one reader's first request answered. */
  answeredFirst(): void {
    for (const r of this.readers) {
      if (!r.awaitingFirst) continue;
      r.awaitingFirst = false;
      return;
    }
  }
}
