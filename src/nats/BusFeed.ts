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
 * @internal
 */
import type { Consumer, ConsumerMessages } from '@nats-io/jetstream';
import type { Subscriber } from 'rxjs';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { SourceEvent, SourceUpdate } from '../replicas';
import { snapshotKey, updateSubject, type BusNames, type SnapshotRecord } from './busProtocol';

/** Updates kept for late joiners; past it, a joiner restarts the feed (every reader resyncs). */
export const MAX_TAIL = 50_000;

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
  /** Updates delivered with seq above the anchor's S, in delivery order; undefined when it overflowed. */
  tail?: SourceUpdate[] = [];
  /** The highest seq delivered in this generation. */
  lastSeq?: bigint;
  /** First seq after a hole seen in this generation. */
  gapTo?: bigint;
  messages?: ConsumerMessages;
  /** The JetStream consumer behind `messages` (deleted when the feed stops). */
  consumer?: Consumer;
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
    this.lastSeq = undefined;
    this.gapTo = undefined;
    this.aheadMark = undefined;
  }

  /** Records one delivered update and hands it to every reader. */
  deliver(u: SourceUpdate): void {
    if (this.lastSeq !== undefined && u.seq > this.lastSeq + 1n) this.gapTo = u.seq;
    if (this.lastSeq === undefined || u.seq > this.lastSeq) this.lastSeq = u.seq;
    if (this.tail !== undefined && u.seq > (this.anchor?.sequence ?? -1n)) {
      this.tail.push(u);
      if (this.tail.length > MAX_TAIL) this.tail = undefined;
    }
    for (const r of this.readers) r.subscriber.next(u);
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
    if (this.tail !== undefined) this.tail = this.tail.filter((u) => u.seq > entry.sequence);
    else if (this.lastSeq === undefined || entry.sequence >= this.lastSeq) this.tail = [];
  }

  /** `subscribed` to one reader, then the tail (its first snapshot will be the anchor). */
  join(reader: FeedReader, subscriptionId: string, generation: number): void {
    reader.up = true;
    reader.awaitingFirst = true;
    reader.subscriber.next({ kind: 'subscribed', subscriptionId, generation });
    for (const u of this.tail ?? []) reader.subscriber.next(u);
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
