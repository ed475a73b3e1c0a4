/**
 * Publishes to JetStream in submission order, pipelined, on core NATS: each message is a
 * plain publish to its subject with the `Nats-Msg-Id` header (JetStream deduplicates by it)
 * and a reply subject `<inbox>.<token>` under ONE shared inbox subscription, where JetStream
 * sends its acknowledgement. Up to `maxInFlight` publishes await theirs; the rest wait in a
 * FIFO queue of at most `maxQueued`. The NATS client writes publishes to its socket in call
 * order and the server stores the messages of one connection in that order, so the order of
 * submission is the order in the stream.
 *
 * Why not `js.publish`: that is a NATS request per message (a promise, a timer, a reply
 * subscription entry, two `Error`s with stack traces): at 10k updates/s it took most of a
 * core. Here a message costs its encoding and one entry in the in-flight window; one timer
 * watches the oldest publish for `timeoutMs`.
 *
 * Each job learns its outcome by its callbacks, exactly once: `onAck` with JetStream's
 * acknowledgement, or `onError` for a negative or unreadable acknowledgement, no answer
 * within `timeoutMs`, a publish the client refused, a NATS disconnect before the answer
 * ({@link OrderedPublisher.disconnected}: the answer was lost with the connection; with
 * `noLeaderWaitMs` it is sent again after the reconnect instead) or the publisher closing. The owner's recovery (StreamRelay: the stream resyncs from a fresh
 * snapshot, its later jobs are dropped unsent, and what it publishes again JetStream
 * deduplicates by message id) keeps each stream ordered and complete.
 *
 * No leader. In a JetStream cluster, losing the node of a stream's leader leaves the stream
 * without one for the election (seconds): publishes are answered 503 (no responders), and
 * those the dead leader had taken are never answered. Failing them would end every stream's
 * epoch at once, on every relay, leaving a hole on each subject that no relay fills
 * (consumers heal a state stream from the KV entry, but an event stream's entry holds its
 * newest page only: a gap). So, within `noLeaderWaitMs` of its first send, a publish
 * answered 503 (or not answered within `timeoutMs`) is sent again, in order: the pipeline
 * stops, every publish awaiting its answer goes back to the head of the queue, the answers
 * still on their way are awaited (a 503: sent again; stored: kept when no earlier publish of
 * its subject waits; none within `timeoutMs`: sent again, a duplicate if it was stored),
 * then after a short backoff they are sent again in their order (JetStream deduplicates by
 * message id). A subject whose order cannot be kept (a publish stored while an earlier one
 * of its subject waits; one sent again acknowledged at a lower stream sequence than one of
 * its subject sent again before it) has its publishes fail: its stream resyncs, as for any
 * failure. Past the wait a publish fails as any other.
 */
import type { Msg, MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Clock, Timer } from '../clock';
import { InFlightWindow, type InFlight } from './InFlightWindow';
import { PublishQueue } from './PublishQueue';
import { busError, isNoLeader, noLeaderError, readPublishReply, UPDATE_HEADERS, type PublishAck } from './wire';

/** One message to publish. */
export interface PublishJob {
  readonly subject: string;
  readonly payload: string;
  /** The JetStream message id (deduplication). */
  readonly msgID: string;
  /** False when the job is no longer wanted (its stream broke): it is dropped unsent. */
  wanted(): boolean;
  onAck(ack: PublishAck): void;
  onError(error: unknown): void;
}

export interface OrderedPublisherOptions {
  readonly maxInFlight: number;
  readonly maxQueued: number;
  /** Bound of one publish's wait for its acknowledgement. */
  readonly timeoutMs: number;
  /** A fresh inbox subject (e.g. `createInbox()`): acknowledgements come to `<inbox>.<token>`. */
  readonly inbox: string;
  /**
   * The header set every message carries, reused (the client encodes it when `publish` is
   * called); the publisher sets `Nats-Msg-Id` on it for each message.
   */
  readonly headers: MsgHdrs;
  readonly clock: Clock;
  /**
   * How long (ms from its first send) a publish answered 503 (no leader for the stream: an
   * election in a cluster) or not answered within `timeoutMs` is sent again, in order, before
   * it fails. 0: it fails at once. @default 0
   */
  readonly noLeaderWaitMs?: number;
}

/** First backoff before publishes are sent again after a 503; it doubles up to {@link NO_LEADER_MAX_BACKOFF_MS}. */
const NO_LEADER_BACKOFF_MS = 50;
const NO_LEADER_MAX_BACKOFF_MS = 1000;

export class OrderedPublisher {
  private readonly queue = new PublishQueue<PublishJob>();
  /** Publishes sent and awaiting their answer. */
  private readonly window = new InFlightWindow();
  private readonly replyPrefix: string;
  private readonly inbox: Subscription;
  private timer?: Timer;
  private closed = false;
  // ---- no leader (see the module comment) ----
  /** When each job sent again was first sent (clock ms). */
  private readonly firstSent = new WeakMap<PublishJob, number>();
  /** Jobs to send again once the stream may have a leader, in submission order. */
  private retry: PublishJob[] = [];
  /** Publishes moved to `retry` whose answer is still on its way, by token. */
  private readonly limbo = new Map<number, { readonly job: PublishJob; readonly sentAtMs: number }>();
  /** Per subject: the highest stream sequence a publish sent again was acknowledged at (since the pipeline last stopped). */
  private readonly resentTop = new Map<string, number>();
  private retryTimer?: Timer;
  private retryBackoffMs = NO_LEADER_BACKOFF_MS;
  /** Disconnected, holding what awaited its answer (see {@link disconnected}): nothing is sent until {@link reconnected}. */
  private offline = false;
  /**
   * Sending again (after a 503, a lost answer or a reconnect): one publish at a time until one
   * is answered. Pipelined, a publish answered 503 could be followed by one stored once the
   * new leader was up: stored before it, the subject's order lost (its stream resynced, on
   * every relay that sent them: a hole, a gap for an event stream's consumers).
   */
  private probing = false;

  constructor(
    private readonly nc: Pick<NatsConnection, 'publish' | 'subscribe'>,
    private readonly options: OrderedPublisherOptions,
  ) {
    this.replyPrefix = `${options.inbox}.`;
    this.inbox = nc.subscribe(`${options.inbox}.*`, { callback: (err, msg) => (err ? this.failOutstanding(err) : this.onReply(msg)) });
  }

  /** Publishes waiting or outstanding. */
  get pending(): number {
    return this.queue.length + this.window.outstanding + this.retry.length;
  }

  /** Queues a job; false (and nothing queued) when the queue is full or the publisher closed. */
  submit(job: PublishJob): boolean {
    if (this.closed || this.queue.length >= this.options.maxQueued) return false;
    this.queue.push(job);
    this.pump();
    return true;
  }

  /**
   * The NATS connection dropped: the acknowledgements of what was sent are lost with it. With
   * `noLeaderWaitMs` (a replicated stream, where a node's loss moves the connection to another
   * node), every publish awaiting its answer is kept and sent again, in order and ahead of the
   * queue, once NATS is back ({@link reconnected}); nothing is sent meanwhile. Each may have been
   * stored: JetStream deduplicates by message id, and the answer says so. Failing them instead
   * ended every stream's epoch on every relay connected to the lost node: a hole in each
   * subject that no relay filled, a gap for every consumer of an event stream. Past the wait
   * (from a publish's first send) a publish fails when it would be sent again. Without it,
   * every outstanding publish fails now rather than at its timeout.
   */
  disconnected(): void {
    if ((this.options.noLeaderWaitMs ?? 0) > 0 && !this.closed) return this.hold();
    const error = busError('NATS disconnected before JetStream acknowledged the message');
    this.failRetry(error);
    this.failOutstanding(error);
  }

  /** NATS is back: the publishes held since the disconnect are sent again, in order, then the queue. */
  reconnected(): void {
    if (!this.offline || this.closed) return;
    this.offline = false;
    if (this.retry.length > 0) this.resume();
    else this.pump();
  }

  /**
   * The server refused a publish to `subject` to these credentials (no answer will come): the
   * publishes to it awaiting their acknowledgement fail now with `error`.
   */
  refused(subject: string, error: Error): void {
    const failing = this.window.unsettled(this.window.nextToken, (entry) => entry.job.subject === subject);
    for (const entry of failing) if (!entry.settled) this.settle(entry, () => entry.job.onError(error));
  }

  /** Fails every job not acknowledged yet (their `onError` is called) and leaves the inbox. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue.takeAll()) safe(() => job.onError(busError('the publisher is closed')));
    this.failRetry(busError('the publisher closed before JetStream acknowledged the message'));
    this.failOutstanding(busError('the publisher closed before JetStream acknowledged the message'));
    this.timer?.cancel();
    this.timer = undefined;
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    this.inbox.unsubscribe();
  }

  private pump(): void {
    if (this.retry.length > 0 || this.offline) return; // stopped: the publishes to send again go first
    const limit = this.probing ? 1 : this.options.maxInFlight;
    while (!this.closed && this.window.outstanding < limit && this.queue.length > 0) {
      const job = this.queue.shift()!;
      if (job.wanted()) this.send(job);
    }
  }

  private send(job: PublishJob): void {
    const { headers } = this.options;
    try {
      headers.set(UPDATE_HEADERS.msgId, job.msgID);
      // Written to the client's buffer now, in call order; the headers are encoded now too.
      this.nc.publish(job.subject, job.payload, { reply: this.replyPrefix + this.window.nextToken, headers });
    } catch (error) {
      // Refused (e.g. over max_payload), nothing written: no token taken, the job fails after the caller's `submit` returned.
      const refused = busError(`NATS refused the publish to ${job.subject}: ${error instanceof Error ? error.message : String(error)}`, error);
      return queueMicrotask(() => safe(() => job.onError(refused)));
    }
    this.window.add(job, this.options.clock.nowMs());
    if (this.timer === undefined) this.armTimer();
  }

  private onReply(msg: Msg): void {
    const token = Number(msg.subject.slice(this.replyPrefix.length));
    const moved = this.limbo.get(token);
    if (moved !== undefined) return this.onMovedReply(token, moved.job, msg);
    const entry = this.window.entryOf(token);
    // Unknown: an answer after its publish timed out or its connection dropped.
    if (entry === undefined) return;
    let ack: PublishAck;
    try {
      ack = readPublishReply(msg);
    } catch (error) {
      if (isNoLeader(error) && this.mayWait(entry.job, entry.sentAtMs)) return this.stop(entry);
      return this.settle(entry, () => entry.job.onError(error));
    }
    this.retryBackoffMs = NO_LEADER_BACKOFF_MS;
    if (this.firstSent.has(entry.job) && !this.inOrder(entry.job, ack)) {
      return this.settle(entry, () => entry.job.onError(busError(`JetStream stored message ${entry.job.msgID}, sent again after a leader change, before an earlier one of ${entry.job.subject}: the subject's order cannot be kept`)));
    }
    this.settle(entry, () => entry.job.onAck(ack));
  }

  // ---- no leader: publishes sent again, in order (see the module comment) ----

  private mayWait(job: PublishJob, sentAtMs: number): boolean {
    const wait = this.options.noLeaderWaitMs ?? 0;
    return wait > 0 && this.options.clock.nowMs() - (this.firstSent.get(job) ?? sentAtMs) < wait;
  }

  /**
   * `failed` was answered 503 or not at all: every publish awaiting its answer goes back, in
   * order, ahead of the queue (and of those already waiting: they were sent after these);
   * the answers of the others are awaited before anything is sent again.
   */
  private stop(failed: InFlight): void {
    for (const e of this.takeOutstanding()) if (e !== failed) this.limbo.set(e.token, { job: e.job, sentAtMs: e.sentAtMs });
    this.armRetry();
  }

  /** The connection dropped: every publish awaiting its answer waits, in order, to be sent again after the reconnect (their answers are lost). */
  private hold(): void {
    this.takeOutstanding();
    this.limbo.clear();
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    this.retryBackoffMs = NO_LEADER_BACKOFF_MS;
    this.offline = true;
  }

  /** Every publish awaiting its answer goes back, in order, ahead of those already waiting (sent after them): returned, oldest first. */
  private takeOutstanding(): InFlight[] {
    if (this.retry.length === 0) this.resentTop.clear();
    const taken = this.window.takeAll();
    for (const e of taken) if (!this.firstSent.has(e.job)) this.firstSent.set(e.job, e.sentAtMs);
    this.timer?.cancel();
    this.timer = undefined;
    this.retry = [...taken.map((e) => e.job), ...this.retry];
    return taken;
  }

  /** A publish sent again must be stored after those of its subject sent again before it. */
  private inOrder(job: PublishJob, ack: PublishAck): boolean {
    const top = this.resentTop.get(job.subject);
    if (top !== undefined && ack.seq < top) return false;
    this.resentTop.set(job.subject, ack.seq);
    return true;
  }

  /** The answer to a publish that waits to be sent again. */
  private onMovedReply(token: number, job: PublishJob, msg: Msg): void {
    this.limbo.delete(token);
    const i = this.retry.indexOf(job);
    if (i < 0) return; // failed meanwhile
    let ack: PublishAck;
    try {
      ack = readPublishReply(msg);
    } catch {
      return; // not stored: sent again with the others
    }
    // Stored while it waits to be sent again: in order only when no earlier publish of its subject waits.
    if (this.retry.slice(0, i).some((j) => j.subject === job.subject)) {
      return this.failSubject(job.subject, busError(`JetStream stored message ${job.msgID} while an earlier message of ${job.subject} awaited a stream leader: the subject's order cannot be kept`));
    }
    this.retry.splice(i, 1);
    if (this.inOrder(job, ack)) safe(() => job.onAck(ack));
    else safe(() => job.onError(busError(`JetStream stored message ${job.msgID} before an earlier one of ${job.subject} sent again: the subject's order cannot be kept`)));
    if (this.retry.length === 0) this.resume();
  }

  private armRetry(): void {
    if (this.retryTimer !== undefined || this.closed) return;
    const wait = this.retryBackoffMs;
    this.retryBackoffMs = Math.min(NO_LEADER_MAX_BACKOFF_MS, this.retryBackoffMs * 2);
    this.retryTimer = this.options.clock.setTimer(() => this.onRetryTimer(), wait, { unref: true });
  }

  private onRetryTimer(): void {
    this.retryTimer = undefined;
    if (this.closed || this.offline) return;
    // An answer that never came (taken by a leader that died): sent again, a duplicate if it was stored.
    const now = this.options.clock.nowMs();
    for (const [token, m] of [...this.limbo]) if (now - m.sentAtMs >= this.options.timeoutMs) this.limbo.delete(token);
    if (this.limbo.size > 0) return this.armRetry();
    this.resume();
  }

  /** Sends the waiting publishes again, in order, ahead of the queue; one past its wait fails (its stream resyncs: its later jobs are then unwanted). */
  private resume(): void {
    const jobs = this.retry;
    this.retry = [];
    this.limbo.clear();
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    const again: PublishJob[] = [];
    for (const job of jobs) {
      if (!job.wanted()) continue;
      if (!this.mayWait(job, this.options.clock.nowMs())) {
        safe(() => job.onError(noLeaderError(`JetStream had no leader for the stream (503, or no answer) for ${this.options.noLeaderWaitMs ?? 0} ms`)));
        continue;
      }
      again.push(job);
    }
    this.queue.unshift(again);
    if (again.length > 0) this.probing = true;
    this.pump();
  }

  /** Fails every waiting publish of `subject` (the first failure resyncs its stream: the others are then unwanted). */
  private failSubject(subject: string, error: Error): void {
    const failing = this.retry.filter((j) => j.subject === subject);
    this.retry = this.retry.filter((j) => j.subject !== subject);
    for (const job of failing) safe(() => job.onError(error));
    if (this.retry.length === 0) this.resume();
  }

  /** Fails every publish waiting to be sent again (a disconnect or close: their answers are lost). */
  private failRetry(error: Error): void {
    const failing = this.retry;
    this.retry = [];
    this.limbo.clear();
    this.retryTimer?.cancel();
    this.retryTimer = undefined;
    for (const job of failing) safe(() => job.onError(error));
  }

  private settle(entry: InFlight, step: () => void): void {
    // Answered (or failed for good): the pipeline opens again.
    this.probing = false;
    this.window.settle(entry);
    safe(step);
    this.pump();
  }

  /** Fails what is outstanding now (not what the callbacks' pumping sends meanwhile). */
  private failOutstanding(error: Error): void {
    const end = this.window.nextToken;
    for (let entry = this.window.oldest; entry !== undefined && entry.token < end; entry = this.window.oldest) {
      const failed = entry;
      this.settle(failed, () => failed.job.onError(error));
    }
  }

  /** One timer, for the oldest outstanding publish. */
  private armTimer(): void {
    const oldest = this.window.oldest;
    if (oldest === undefined || this.closed) return;
    const wait = Math.max(0, oldest.sentAtMs + this.options.timeoutMs - this.options.clock.nowMs());
    this.timer = this.options.clock.setTimer(() => this.onTimer(), wait, { unref: true });
  }

  private onTimer(): void {
    this.timer = undefined;
    const now = this.options.clock.nowMs();
    for (let oldest = this.window.oldest; oldest !== undefined && now - oldest.sentAtMs >= this.options.timeoutMs; oldest = this.window.oldest) {
      const entry = oldest;
      if (this.mayWait(entry.job, entry.sentAtMs)) return this.stop(entry);
      this.settle(entry, () => entry.job.onError(busError(`no acknowledgement from JetStream within ${this.options.timeoutMs} ms`)));
    }
    if (this.timer === undefined) this.armTimer();
  }
}

function safe(step: () => void): void {
  try {
    step();
  } catch {
    // A job's callback must not stop the pipeline.
  }
}
