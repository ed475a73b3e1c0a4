/**
 * One stream key read from the bus by one `BusSource`: ONE JetStream consumer on the stream's
 * subject, shared by every replica of that key in the process (`account()` and `fills()` read
 * the same fills stream). Each replica is a reader: it gets `subscribed` when it joins a
 * running feed or the feed (re)starts, then every update.
 *
 * A reader that joins late must see what its first snapshot does not include. The feed keeps
 * an anchor (a KV entry: S and `jsStartSeq`, where the subject holds S + 1). A joiner gets
 * `subscribed`, then the updates S + 1 .. the last one delivered, read again from JetStream
 * by a catch-up consumer of its own from `jsStartSeq` (BusSource), then live updates (queued
 * meanwhile); its first snapshot request is answered with the anchor: exactly what
 * `StreamSync` needs. JetStream is the tail: the feed keeps no messages. Keeping about a
 * second of them for joiners (as text) made every scavenge copy them and the old generation
 * fill with them: about a seventh of a bus consumer's CPU at 10k updates/s, for an event
 * (a reader joining a running feed) that is rare. The anchor moves forward whenever a newer
 * KV entry at or below what was delivered is read, so a catch-up reads about one relay
 * snapshot interval.
 * @internal
 */
import type { Subscriber } from 'rxjs';
import { streamKey, type ChannelName, type Scope } from '../protocol';
import type { SourceEvent, SourceUpdate } from '../replicas';
import type { PushConsumer } from './PushConsumer';
import { snapshotKey, updateSubject, type BusNames, type SnapshotRecord } from './wire';

/** One replica reading a feed. */
export interface FeedReader {
  readonly subscriber: Subscriber<SourceEvent>;
  /** `subscribed` was sent since the last `disconnected`. */
  up: boolean;
  /** Its first snapshot request since its last `subscribed` is still to come. */
  awaitingFirst: boolean;
  /** The id of its last `subscribed` (one per reader and join: a snapshot request names it). */
  subscriptionId?: string;
  /** The entry its last join started it from: the answer to its first snapshot request. */
  anchor?: SnapshotRecord;
  /** Bumped at every join: a catch-up of an earlier one stops. */
  joins?: number;
  /** While it catches up: the live updates that wait for it, in order. */
  queue?: SourceUpdate[];
  /** Its catch-up while it runs: the consumer (once created) and how to end it. */
  catchUp?: { consumer?: PushConsumer; readonly end: () => void };
}

/** What a joiner lacks: the updates `after + 1 .. until`, on the subject from stream sequence `from`. */
export interface CatchUpPlan {
  readonly from: number;
  readonly after: bigint;
  readonly until: bigint;
}

export class BusFeed {
  readonly key: string;
  readonly subject: string;
  readonly kvKey: string;
  readonly readers = new Set<FeedReader>();
  /** Bumped on every start and stop: async work of an older one is dropped. */
  token = 0;
  phase: 'waiting' | 'starting' | 'running' | 'closed' = 'waiting';
  /** The KV entry joiners start from (see the module comment). */
  anchor?: SnapshotRecord;
  /** The entry this generation started from: every update above it the subject holds was delivered since, but in {@link holes}. */
  base?: SnapshotRecord;
  /**
   * The oldest entry of this bus the feed started a generation from, kept across restarts on
   * the same bus (with {@link holes}): a reader that was behind the anchor when the feed
   * restarted (resyncing, catching up) starts again from it, not past records the stream holds.
   */
  floor?: SnapshotRecord;
  /** Where each hole seen in this generation starts (its first seq missing): a reader below one cannot be given what it lacks. */
  holes: bigint[] = [];
  /** The highest seq delivered in this generation. */
  lastSeq?: bigint;
  /** First seq after a hole seen in this generation. */
  gapTo?: bigint;
  /** The JetStream consumer reading the subject (deleted when the feed stops). */
  consumer?: PushConsumer;
  /** Catch-up consumers being deleted. */
  private readonly deleting = new Set<Promise<void>>();
  /** Waiting for every catch-up to end (see {@link caughtUp}). */
  private readonly waiters: (() => void)[] = [];
  /** The KV entry last read, its revision and creation time (an unchanged entry is not parsed again). */
  entryCache?: { readonly revision: number; readonly createdMs: number; readonly record: SnapshotRecord };
  /** When the KV entry was last compared with what was delivered (clock ms). */
  kvCheckedMs = 0;
  /** `lastSeq` when the KV entry was last seen above it (two such checks in a row resync). */
  aheadMark?: string;
  /** Batches received wholly below the anchor while nothing was delivered above it (a stream moving below its snapshot). */
  belowAnchor = 0;
  /** `belowAnchor` when first seen above 0 by a check, and then (see BusSource.check). */
  belowMark?: { readonly count: number; readonly atMs: number };
  /** A KV entry no relay could have written (ahead of the stream, vouched by no relay): never used again ({@link entryId}). */
  refused?: string;
  /** The last entry not started from because no relay vouched for it yet: its id, the heartbeats counted when it was first seen, whether it was reported. */
  unbelieved?: { readonly id: string; readonly heartbeats: number; reported: boolean };
  /** Where the last reset read on the subject is stored: entries must start past it (wire/resetMessage.ts). */
  resetAt?: number;

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
  begin(entry: SnapshotRecord, sameBus = false): void {
    this.anchor = entry;
    this.base = entry;
    if (!sameBus || this.floor === undefined || this.floor.sequence > entry.sequence) {
      this.floor = entry;
      this.holes = [];
    }
    this.lastSeq = undefined;
    this.gapTo = undefined;
    this.aheadMark = undefined;
    this.belowAnchor = 0;
    this.belowMark = undefined;
  }

  /** Whether `entry` may start or anchor this feed: not refused, and past the last reset read. */
  usable(entry: SnapshotRecord): boolean {
    return entryId(entry) !== this.refused && (this.resetAt === undefined || entry.jsStartSeq > this.resetAt);
  }

  /**
   * Records the updates of one batch that were delivered (the ones above `lastSeq`, or above
   * the anchor's S before any, in seq order) and hands each to every reader (to the queue of
   * one catching up).
   */
  deliver(updates: readonly SourceUpdate[]): void {
    const top = updates[updates.length - 1];
    if (top === undefined) return;
    const base = this.lastSeq ?? this.anchor?.sequence;
    if (base !== undefined && updates[0]!.seq > base + 1n) {
      this.gapTo = updates[0]!.seq;
      this.holes.push(base + 1n);
    }
    if (this.lastSeq === undefined || top.seq > this.lastSeq) this.lastSeq = top.seq;
    for (const u of updates) {
      for (const r of this.readers) {
        if (r.queue !== undefined) r.queue.push(u);
        else r.subscriber.next(u);
      }
    }
  }

  /** Moves the anchor to `entry` when it is newer. */
  reanchor(entry: SnapshotRecord): void {
    const a = this.anchor;
    if ((a !== undefined && entry.sequence <= a.sequence) || !this.usable(entry)) return;
    this.anchor = entry;
    if (this.gapTo !== undefined && entry.sequence >= this.gapTo - 1n) this.gapTo = undefined;
  }

  /**
   * `subscribed` to one reader, started from `from` (the feed's anchor unless told: its first
   * snapshot will be that entry). Returns what it lacks when updates above the entry were delivered (the reader's live updates queue until its
   * catch-up ends, see {@link endCatchUp}), undefined when it is live now.
   */
  join(reader: FeedReader, subscriptionId: string, generation: number, from: SnapshotRecord | undefined = this.anchor): CatchUpPlan | undefined {
    this.stopCatchUp(reader);
    reader.joins = (reader.joins ?? 0) + 1;
    reader.up = true;
    reader.awaitingFirst = true;
    reader.subscriptionId = subscriptionId;
    reader.anchor = from;
    const a = from;
    // Where the feed stands: what it delivered, or its generation's entry before any update.
    const at = this.lastSeq ?? this.base?.sequence;
    const plan = a === undefined || at === undefined || at <= a.sequence ? undefined : { from: a.jsStartSeq, after: a.sequence, until: at };
    // Catching up before `subscribed`: the snapshot request it triggers waits for the catch-up.
    if (plan !== undefined) reader.queue = [];
    reader.subscriber.next({ kind: 'subscribed', subscriptionId, generation });
    return plan;
  }

  /**
   * A reader's catch-up ended with `after` the last update it was given: the queued live
   * updates above it follow (a hole between shows the reader a gap, which it heals).
   */
  endCatchUp(reader: FeedReader, after: bigint): void {
    const queue = reader.queue;
    this.stopCatchUp(reader);
    if (queue === undefined) return;
    for (const u of queue) if (u.seq > after) reader.subscriber.next(u);
  }

  /** Stops a reader's catch-up, its queue dropped. */
  stopCatchUp(reader: FeedReader): void {
    reader.queue = undefined;
    const stopping = reader.catchUp?.consumer?.stop();
    reader.catchUp = undefined;
    if (stopping !== undefined) {
      this.deleting.add(stopping);
      void stopping.finally(() => this.deleting.delete(stopping));
    }
    if (this.waiters.length > 0 && !this.catchingUp) for (const w of this.waiters.splice(0)) w();
  }

  /** Whether a reader is catching up. */
  get catchingUp(): boolean {
    for (const r of this.readers) if (r.queue !== undefined) return true;
    return false;
  }

  /**
   * Resolves when no reader catches up: a joiner's first snapshot is answered then, so that
   * its replica folds the updates above the anchor onto it (one state, as if they had come
   * with it) rather than applying them one by one after it.
   */
  async caughtUp(): Promise<void> {
    if (this.catchingUp) await new Promise<void>((resolve) => this.waiters.push(resolve));
    // Their consumers deleted too: a reader live on this feed leaves only the feed's consumer on the server.
    if (this.deleting.size > 0) await Promise.all([...this.deleting]);
  }

  /** `disconnected` to every reader that was up. */
  disconnect(reason: string): void {
    for (const r of this.readers) {
      if (!r.up) continue;
      this.stopCatchUp(r);
      r.up = false;
      r.awaitingFirst = false;
      r.subscriber.next({ kind: 'disconnected', reason });
    }
  }

  /** The reader whose last `subscribed` carried `subscriptionId`, if it still reads. */
  readerOf(subscriptionId: string): FeedReader | undefined {
    for (const r of this.readers) if (r.subscriptionId === subscriptionId) return r;
    return undefined;
  }

  /** Marks a reader's first request answered: `reader`'s when the request named it, else the first one awaiting. */
  answeredFirst(reader?: FeedReader): void {
    if (reader !== undefined) {
      reader.awaitingFirst = false;
      return;
    }
    for (const r of this.readers) {
      if (!r.awaitingFirst) continue;
      r.awaitingFirst = false;
      return;
    }
  }
}

/**
 * What tells one KV entry from another: its content's position (a forger writing the same
 * entry again under a new revision is still refused).
 */
export function entryId(entry: SnapshotRecord): string {
  return `${entry.sequence}|${entry.jsStartSeq}|${entry.writtenAtNs}|${entry.relayId}`;
}
