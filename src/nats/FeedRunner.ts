/**
 * The lifecycle of a bus consumer's feeds (`BusSource`: one `BusFeed`, one JetStream
 * consumer, per stream key), and the answers to their readers' snapshot requests.
 *
 * One stream (`subscribe(channel, scope, sink)`):
 * - it starts when NATS is connected, a relay heartbeat lists the stream as `live` or
 *   `resyncing` (within `missedHeartbeats` of that relay's interval) and the stream's KV
 *   entry exists; until then nothing is emitted (the replica stays `syncing`);
 * - start: a push consumer on the stream's subject read by one core NATS subscription
 *   (PushConsumer.ts: no acks, one filter subject, deliver from the entry's `jsStartSeq`:
 *   nats-server 2.9 compatible), then `subscribed` (a new generation);
 *   each message is a batch of updates (wire/updateBatch.ts, read and validated by
 *   `readSourceUpdates`): the ones above the last seq delivered in this generation are
 *   `update`s (`receivedAtNs` from the clock, one reading per batch), the others (a batch
 *   overlapping what another relay's batch already delivered) are dropped unread; an
 *   unreadable one is reported and sends `resync_required`;
 * - `snapshot()` answers a reader's first request after its `subscribed` with the anchor entry (the
 *   relay's stored snapshot: data, sequence, time); a later request (the replica
 *   resyncs: a gap, a `seq` it refused, the liveness window) reads the KV entry again:
 *   - the stream resumed after a hole at seq J and the entry is still below J - 1: a
 *     retryable `SnapshotError` (the replica backs off and asks again: every relay writes
 *     a new entry when it resyncs);
 *   - the entry covers every seq delivered in this generation: it is the answer (the
 *     consumer keeps reading; the replica drops seq <= S), unless its page (an event
 *     stream's newest records) does not reach back to the reader's watermark while the
 *     subject holds the records between: then the reader starts again from an entry at or
 *     below its watermark and catches up (no gap marker for records the bus holds);
 *   - the entry is below what was delivered: the reader asking (the request names its
 *     `subscribed`) gets `subscribed` and the updates delivered above the anchor (the
 *     consumer keeps reading; it catches up from the entry's `jsStartSeq`); the feed's other
 *     readers are left alone;
 * - `disconnected` when NATS drops: the consumer is deleted, and a new one starts (a new
 *   generation, from the KV entry of that time) when NATS and a relay heartbeat are back;
 * - `disconnected` when no relay heartbeat listed the stream `live` or `resyncing` for
 *   `missedHeartbeats` intervals (relays gone, or every relay's exchange feed down: relay
 *   status `stale`): the consumer keeps reading (a status, not a teardown), and the readers
 *   join again (the anchor and a catch-up) at the first heartbeat that carries the stream.
 *   A check timer that fires late (this process stalled) does not judge missing heartbeats:
 *   the ones that arrived meanwhile are read first;
 * - a consumer that sent nothing, not even its idle heartbeat, for two `consumerHeartbeatMs`
 *   (gone on the server) is replaced: `disconnected`, then a new generation from the KV entry.
 */
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import type { Clock } from '../clock';
import { streamKey } from '../protocol';
import { AbortedError, ExchangeReplicaError } from '../errors';
import type { LoadedSnapshot, SnapshotQuery } from '../replicas';
import { SnapshotError } from '../replicas/SnapshotError';
import type { BusFeed, FeedReader } from './BusFeed';
import type { BusStoreReader } from './BusStoreReader';
import type { ResolvedBusSourceOptions } from './busSourceOptions';
import { EntryTrust } from './EntryTrust';
import { FeedJoins } from './FeedJoins';
import { loadNats } from './natsModules';
import { PushConsumer, streamSeqOf } from './PushConsumer';
import type { RelayHeartbeats } from './RelayHeartbeats';
import { isResetMessage, readSourceUpdates, snapshotPageReaches, type SnapshotRecord } from './wire';

/**
 * How long the server keeps a consumer no process reads (ms): a feed deletes its consumer
 * when it stops; this removes the consumers of a process that died.
 */
export const CONSUMER_INACTIVE_MS = 30_000;

/** Payloads are UTF-8 (one decoder: the client's `Msg.string()` would read `Msg.data`, a view made per call, again). */
export const UTF8 = new TextDecoder();

/** What the feeds run on (given by their `BusSource`). */
export interface FeedContext {
  readonly options: ResolvedBusSourceOptions;
  readonly heartbeats: RelayHeartbeats;
  /** The source closed. */
  readonly closed: () => boolean;
  /** NATS is up. */
  readonly connected: () => boolean;
  /** The NATS connection (once connected). */
  readonly nats: () => NatsConnection;
  /** The reads of the KV bucket and the stream (once connected). */
  readonly store: () => BusStoreReader;
  /** Something went wrong and was survived. */
  readonly report: (error: unknown) => void;
}

export class FeedRunner {
  private readonly o: ResolvedBusSourceOptions;
  private readonly clock: Clock;
  private readonly joins: FeedJoins;
  private readonly trust: EntryTrust;

  constructor(private readonly ctx: FeedContext) {
    this.o = ctx.options;
    this.clock = ctx.options.clock;
    this.joins = new FeedJoins(ctx);
    this.trust = new EntryTrust(ctx);
  }

  /** The snapshot of a running bus stream: the relay's KV entry as it stored it (an event stream's newest page, its history marked not exhausted). */
  async answer(feed: BusFeed | undefined, query: SnapshotQuery): Promise<LoadedSnapshot> {
    const { signal } = query;
    if (feed === undefined || feed.anchor === undefined || feed.phase !== 'running') {
      throw new SnapshotError(`no bus stream is running for ${streamKey(query.channel, query.scope)}`, { channel: query.channel, stream: streamKey(query.channel, query.scope) });
    }
    const token = feed.token;
    // The reader asking, when the request names it (its `subscribed`): only it rejoins below.
    const reader = query.subscriptionId === undefined ? undefined : feed.readerOf(query.subscriptionId);
    // A reader's first request after its `subscribed`: the entry it joined from, whose updates above S it was given (once caught up).
    if (reader !== undefined ? reader.awaitingFirst : feed.awaitingFirst) {
      await feed.caughtUp();
      if (signal.aborted || token !== feed.token || feed.phase !== 'running' || feed.anchor === undefined) throw new AbortedError('the snapshot request was aborted', { stream: feed.key });
      feed.answeredFirst(reader);
      // (Its entry's page may not reach back to what it had: a reader behind when the feed restarted.)
      return this.answerFor(feed, reader?.anchor ?? feed.anchor, reader, query);
    }
    const fresh = await this.ctx.store().readEntry(feed);
    if (signal.aborted || token !== feed.token || feed.phase !== 'running') throw new AbortedError('the snapshot request was aborted', { stream: feed.key });
    if (fresh === undefined) throw new SnapshotError(`the KV entry of ${feed.key} is missing or unreadable`, { stream: feed.key });
    if (feed.gapTo !== undefined && fresh.sequence < feed.gapTo - 1n) {
      throw new SnapshotError(`the KV entry of ${feed.key} is at ${fresh.sequence}, the stream resumed at ${feed.gapTo}: waiting for a newer snapshot`, { stream: feed.key });
    }
    if (fresh.sequence > (feed.lastSeq ?? feed.anchor.sequence)) return this.aheadAnswer(feed, fresh, token, signal, reader, query);
    feed.reanchor(fresh);
    // At or above everything delivered: every update it lacks is still to come.
    if (feed.lastSeq === undefined || fresh.sequence >= feed.lastSeq) return this.answerFor(feed, fresh, reader, query);
    // Below what was delivered: the reader asking starts again from the anchor, catching up from
    // JetStream (the updates it lacks were delivered before this request); every reader when the
    // request did not say whose it is. Not awaited: this request ends now.
    this.joins.rejoin(feed, reader);
    throw new AbortedError(`${feed.key}: restarted from snapshot ${feed.anchor.sequence}`, { stream: feed.key });
  }

  /**
   * `entry` as the answer to `reader`'s request, unless it would skip records the reader lacks
   * and the subject holds (an event stream's entry holds its newest page only: a reader further
   * behind would mark a gap): then the reader starts again from an entry whose page does reach
   * its watermark (the feed's anchor, or the entry its generation started from) and is given the
   * records since from JetStream; not from one below a hole of this generation (no relay
   * published those records: the gap is real). A watermark is a record's sequence, not an
   * update's seq: only pages are compared with it.
   */
  private answerFor(feed: BusFeed, entry: SnapshotRecord, reader: FeedReader | undefined, query: SnapshotQuery): LoadedSnapshot {
    const watermark = query.since === undefined ? undefined : (query.since.watermark ?? 0n);
    if (reader === undefined || watermark === undefined || snapshotPageReaches(entry, watermark)) return loadedOf(entry);
    const from = [feed.anchor, feed.base, feed.floor].find((e): e is SnapshotRecord => e !== undefined && feed.usable(e) && snapshotPageReaches(e, watermark) && !feed.holes.some((h) => h > e.sequence));
    if (from === undefined) return loadedOf(entry);
    this.joins.joinFrom(feed, reader, from);
    throw new AbortedError(`${feed.key}: the snapshot at ${entry.sequence} does not reach back to ${watermark}, which the stream holds: restarted from snapshot ${from.sequence}`, { stream: feed.key });
  }

  /**
   * The answer when the KV entry is ahead of what the feed delivered: believed when a relay
   * could have written it (EntryTrust.believable); otherwise refused, and the readers start
   * again from the feed's anchor and the stream's history (when updates above the anchor were
   * delivered), or wait for the next write.
   */
  private async aheadAnswer(feed: BusFeed, fresh: SnapshotRecord, token: number, signal: AbortSignal, reader: FeedReader | undefined, query: SnapshotQuery): Promise<LoadedSnapshot> {
    const verdict = feed.usable(fresh) ? await this.trust.believable(feed, fresh) : { believed: false, held: false, top: undefined };
    if (signal.aborted || token !== feed.token || feed.phase !== 'running' || feed.anchor === undefined) throw new AbortedError('the snapshot request was aborted', { stream: feed.key });
    // Believed: the answer. The feed's anchor stays at or below what it delivered (moved ahead,
    // the feed would skip the updates up to it that its other readers still need).
    if (verdict.believed) return this.answerFor(feed, fresh, reader, query);
    this.trust.refuse(feed, fresh, verdict.top);
    const a = feed.anchor;
    if (feed.lastSeq !== undefined && a.sequence <= feed.lastSeq && feed.usable(a)) {
      this.joins.rejoin(feed, reader);
      throw new AbortedError(`${feed.key}: the KV entry is ahead of the stream; restarted from snapshot ${a.sequence} and the stream's history`, { stream: feed.key });
    }
    throw new SnapshotError(`the KV entry of ${feed.key} is at ${fresh.sequence}, ahead of the stream (at ${verdict.top ?? 'no update'}) and of every relay: waiting for the next write`, { stream: feed.key });
  }

  /** Whether NATS is up and a relay heartbeat listed the stream as carried within `missedHeartbeats` intervals. */
  private carriedNow(feed: BusFeed): boolean {
    return this.ctx.connected() && this.ctx.heartbeats.carries(feed.key);
  }

  /**
   * Starts a waiting feed whose conditions hold. A running feed whose stream no relay
   * heartbeat carries any more (judged only when `judgeMissing`) keeps its consumer: its
   * readers go `stale`, and join again (the anchor and a catch-up: the feed's consumer
   * stays, no KV read) as soon as a heartbeat carries the stream again.
   */
  check(feed: BusFeed, judgeMissing = true): void {
    if (this.ctx.closed() || feed.phase === 'closed') return;
    const carried = this.carriedNow(feed);
    if (feed.phase === 'waiting') {
      if (carried) void this.start(feed);
      return;
    }
    if (feed.phase !== 'running') return;
    const now = this.clock.nowMs();
    // The stream keeps moving below the anchor, nothing above it: the anchor is an entry no relay wrote.
    if (feed.lastSeq === undefined && feed.belowAnchor > 0 && feed.anchor !== undefined) {
      const mark = feed.belowMark;
      if (mark === undefined) feed.belowMark = { count: feed.belowAnchor, atMs: now };
      else if (feed.belowAnchor > mark.count && now - mark.atMs >= (this.o.aheadCheckMs)) {
        this.trust.refuse(feed, feed.anchor, undefined);
        return this.restart(feed, `the KV entry of ${feed.key} is ahead of the stream, which keeps moving below it`);
      }
    }
    // A catch-up silent past its idle heartbeats is gone: its reader goes on (a hole shows as a gap).
    if (judgeMissing) for (const r of feed.readers) if (r.catchUp?.consumer?.stalled(this.clock.nowMs())) r.catchUp.end();
    // Silent past its idle heartbeats: the consumer is gone on the server; read from the KV entry again.
    if (judgeMissing && feed.consumer?.stalled(this.clock.nowMs())) {
      this.stop(feed, `the JetStream consumer of ${feed.key} sent nothing for ${2 * this.o.heartbeatMs} ms: restarting it from the KV entry`);
      if (carried) void this.start(feed);
      return;
    }
    if (!carried) {
      if (judgeMissing) feed.disconnect(`no relay heartbeat carrying ${feed.key} for ${this.o.missed} intervals`);
      return;
    }
    this.joins.rejoinWaiting(feed);
    if (this.clock.nowMs() - feed.kvCheckedMs >= (this.o.aheadCheckMs)) {
      feed.kvCheckedMs = this.clock.nowMs();
      void this.checkAhead(feed);
    }
  }

  /** A reader subscribed: it joins a running feed that is carried, or waits for the feed to start or be carried again. */
  admit(feed: BusFeed, reader: FeedReader): void {
    if (this.ctx.closed() || feed.phase === 'closed' || !feed.readers.has(reader) || reader.up) return;
    if (feed.phase === 'waiting') return this.check(feed);
    if (feed.phase === 'running' && this.carriedNow(feed)) this.joins.rejoinWaiting(feed);
    // starting: joined when it runs; not carried: joined when a heartbeat carries it again.
  }

  /**
   * Compares a running feed's KV entry with what was delivered: a newer entry at or below it
   * moves the anchor (a joiner's catch-up stays short); one above the last seq delivered at two checks in
   * a row (the relay resynced past updates it never published, and the stream is quiet since)
   * sends `resync_required`, unless the subject holds the entry's seq.
   */
  private async checkAhead(feed: BusFeed): Promise<void> {
    const token = feed.token;
    const entry = await this.ctx.store().readEntry(feed).catch((e: unknown) => (this.ctx.report(e), undefined));
    if (entry === undefined || token !== feed.token || feed.phase !== 'running') return;
    const at = feed.lastSeq ?? feed.anchor?.sequence ?? 0n;
    if (entry.sequence <= at) {
      feed.aheadMark = undefined;
      if (feed.gapTo === undefined || entry.sequence >= feed.gapTo - 1n) feed.reanchor(entry);
      return;
    }
    const mark = String(at);
    if (feed.aheadMark !== mark) {
      feed.aheadMark = mark;
      return;
    }
    feed.aheadMark = undefined;
    // The subject holds the entry's seq: the updates are on their way (a consumer that stopped
    // delivering is replaced after its idle heartbeats). Resyncing now answered the readers with
    // that entry, past records of an event stream they had not been given (a gap).
    const top = await this.ctx.store().subjectTop(feed).catch(() => undefined);
    if (token !== feed.token || feed.phase !== 'running' || (top !== undefined && top >= entry.sequence)) return;
    const reason = `the snapshot of ${feed.key} is at ${entry.sequence}, the subject stopped at ${at}`;
    for (const r of feed.readers) if (r.up) r.subscriber.next({ kind: 'resync_required', reason });
  }

  private async start(feed: BusFeed): Promise<void> {
    feed.phase = 'starting';
    const token = ++feed.token;
    const entry = await this.ctx.store().readEntry(feed).catch((e: unknown) => (this.ctx.report(e), undefined));
    if (token !== feed.token || feed.phase !== 'starting') return;
    // None yet, or one refused, or one from before a reset read on the subject: the next write.
    if (entry === undefined || !feed.usable(entry)) {
      feed.phase = 'waiting';
      return;
    }
    // One no relay could have written (see EntryTrust.believable) is not started from: a relay that
    // wrote it vouches for it in its next heartbeat, or the next write replaces it.
    const verdict = await this.trust.believable(feed, entry);
    if (token !== feed.token || feed.phase !== 'starting') return;
    if (!verdict.believed) {
      this.trust.reportUnbelieved(feed, entry, verdict.top);
      feed.phase = 'waiting';
      return;
    }
    // Starting again (a lost JetStream consumer, a NATS reconnect): from the anchor the feed
    // had when the entry read now is of the same bus (at or above it, in seq and position), so
    // the readers go on from what they were given; a newer entry alone could leave an event
    // stream's readers a gap (its page may not reach back to what they had).
    const had = feed.anchor;
    // (Not an anchor refused since, or one from before a reset read on the subject: see BusFeed.usable.)
    const same = had !== undefined && feed.usable(had) && entry.jsStream === had.jsStream && entry.sequence >= had.sequence && entry.jsStartSeq >= had.jsStartSeq;
    await this.startConsumer(feed, same ? had : entry, same);
  }

  /** A new generation: a push consumer from the entry's `jsStartSeq` (PushConsumer.ts), then `subscribed` to every reader. */
  private async startConsumer(feed: BusFeed, entry: SnapshotRecord, sameBus = false): Promise<void> {
    this.stopConsumer(feed);
    const token = ++feed.token;
    feed.phase = 'starting';
    let consumer: PushConsumer;
    // The server may deliver before it answers the creation: those messages wait for the readers' `subscribed`.
    let early: [Msg, Uint8Array][] | undefined = [];
    const onData = (m: Msg, data: Uint8Array): void => void (early !== undefined ? early.push([m, data]) : this.onMessage(feed, token, m, data));
    try {
      const mods = await loadNats();
      const spec = { stream: this.o.names.stream, subject: feed.subject, startSeq: entry.jsStartSeq, inactiveMs: CONSUMER_INACTIVE_MS, heartbeatMs: this.o.heartbeatMs };
      consumer = await PushConsumer.start(mods, this.ctx.nats(), await this.ctx.store().manager(), spec, this.clock.nowMs(), onData);
    } catch (e) {
      if (token === feed.token && feed.phase === 'starting') feed.phase = 'waiting';
      this.ctx.report(e);
      return;
    }
    if (token !== feed.token) return void consumer.stop();
    feed.consumer = consumer;
    feed.phase = 'running';
    feed.begin(entry, sameBus);
    this.joins.rejoinAll(feed);
    const pending = early;
    early = undefined;
    for (const [m, data] of pending) this.onMessage(feed, token, m, data);
  }

  /** One batch: its updates above the last one delivered, each to every reader (see wire/updateBatch.ts). */
  private onMessage(feed: BusFeed, token: number, m: Msg, data: Uint8Array): void {
    if (token !== feed.token) return;
    let batch: ReturnType<typeof readSourceUpdates>;
    try {
      // Above what was delivered, or above the anchor's S at first (its readers start from that snapshot).
      batch = readSourceUpdates(UTF8.decode(data), feed.key, feed.channel, feed.lastSeq ?? feed.anchor?.sequence, this.clock.nowNs());
    } catch (e) {
      const at = streamSeqOf(m);
      if (at !== undefined && isResetMessage(UTF8.decode(data))) return this.onReset(feed, Number(at));
      this.ctx.report(e);
      const reason = `unreadable message ${at ?? '?'} on ${feed.subject}: ${(e as Error).message}`;
      for (const r of feed.readers) if (r.up) r.subscriber.next({ kind: 'resync_required', reason });
      return;
    }
    if (batch.updates.length > 0) feed.deliver(batch.updates);
    else if (feed.lastSeq === undefined && feed.anchor !== undefined && batch.head.last < feed.anchor.sequence) feed.belowAnchor++;
  }

  /**
   * A reset at stream sequence `at` (wire/resetMessage.ts): what the feed delivered before it may
   * hold a message no relay applied. The feed starts again from a KV entry past the reset
   * (its relay writes one in its new epoch); its readers resync meanwhile.
   */
  private onReset(feed: BusFeed, at: number): void {
    if (!Number.isSafeInteger(at) || (feed.resetAt !== undefined && at <= feed.resetAt)) return;
    feed.resetAt = at;
    const reason = `a relay reset ${feed.key} at stream sequence ${at} (a message stored under one of its batch ids was not its batch): starting again from a snapshot written after it`;
    this.ctx.report(new ExchangeReplicaError('ERR_BUS', reason, { stream: feed.key }));
    this.restart(feed, reason);
  }

  /** The feed's consumer stops; its readers resync; it starts again (a new generation) from the next usable KV entry. */
  restart(feed: BusFeed, reason: string): void {
    if (feed.phase === 'closed') return;
    feed.token++;
    this.stopConsumer(feed);
    feed.phase = 'waiting';
    for (const r of feed.readers) {
      feed.stopCatchUp(r);
      if (r.up) r.subscriber.next({ kind: 'resync_required', reason });
    }
  }

  stop(feed: BusFeed, reason: string): void {
    if (feed.phase === 'closed') return;
    feed.token++;
    this.stopConsumer(feed);
    feed.phase = 'waiting';
    feed.disconnect(reason);
  }

  /** Stops reading and deletes the JetStream consumer (its `inactive_threshold` removes it when the server cannot be told). */
  stopConsumer(feed: BusFeed): void {
    const consumer = feed.consumer;
    feed.consumer = undefined;
    void consumer?.stop();
  }
}

function loadedOf(entry: SnapshotRecord): LoadedSnapshot {
  return { data: entry.data, sequence: entry.sequence, timestampNs: entry.timestampNs };
}
