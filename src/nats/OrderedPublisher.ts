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
 * ({@link OrderedPublisher.disconnected}: the answer was lost with the connection) or the
 * publisher closing. The owner's recovery (StreamRelay: the stream resyncs from a fresh
 * snapshot, its later jobs are dropped unsent, and what it publishes again JetStream
 * deduplicates by message id) keeps each stream ordered and complete.
 */
import type { Msg, MsgHdrs, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Clock, Timer } from '../clock';
import { decodePublishAck, UPDATE_HEADERS, type PublishAck } from './busProtocol';

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
}

/** A publish awaiting its acknowledgement. */
interface InFlight {
  readonly token: number;
  readonly job: PublishJob;
  readonly sentAtMs: number;
  settled: boolean;
}

export class OrderedPublisher {
  private readonly queue: PublishJob[] = [];
  private head = 0;
  /** Publishes sent, in token order (consecutive tokens); settled ones leave from the head. */
  private readonly flight: InFlight[] = [];
  private flightHead = 0;
  private outstanding = 0;
  private nextToken = 1;
  private readonly replyPrefix: string;
  private readonly inbox: Subscription;
  private timer?: Timer;
  private closed = false;

  constructor(
    private readonly nc: Pick<NatsConnection, 'publish' | 'subscribe'>,
    private readonly options: OrderedPublisherOptions,
  ) {
    this.replyPrefix = `${options.inbox}.`;
    this.inbox = nc.subscribe(`${options.inbox}.*`, { callback: (err, msg) => (err ? this.failOutstanding(err) : this.onReply(msg)) });
  }

  /** Publishes waiting or outstanding. */
  get pending(): number {
    return this.queue.length - this.head + this.outstanding;
  }

  /** Queues a job; false (and nothing queued) when the queue is full or the publisher closed. */
  submit(job: PublishJob): boolean {
    if (this.closed || this.queue.length - this.head >= this.options.maxQueued) return false;
    this.queue.push(job);
    this.pump();
    return true;
  }

  /**
   * The NATS connection dropped: the acknowledgements of what was sent are lost with it, so
   * every outstanding publish fails now rather than at its timeout.
   */
  disconnected(): void {
    this.failOutstanding(new Error('NATS disconnected before JetStream acknowledged the message'));
  }

  /**
   * The server refused a publish to `subject` to these credentials (no answer will come): the
   * publishes to it awaiting their acknowledgement fail now with `error`.
   */
  refused(subject: string, error: Error): void {
    const end = this.nextToken;
    const failing: InFlight[] = [];
    for (let i = this.flightHead; i < this.flight.length; i++) {
      const entry = this.flight[i]!;
      if (entry.token >= end) break;
      if (!entry.settled && entry.job.subject === subject) failing.push(entry);
    }
    for (const entry of failing) if (!entry.settled) this.settle(entry, () => entry.job.onError(error));
  }

  /** Fails every job not acknowledged yet (their `onError` is called) and leaves the inbox. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const waiting = this.queue.slice(this.head);
    this.queue.length = 0;
    this.head = 0;
    for (const job of waiting) safe(() => job.onError(new Error('the publisher is closed')));
    this.failOutstanding(new Error('the publisher closed before JetStream acknowledged the message'));
    this.timer?.cancel();
    this.timer = undefined;
    this.inbox.unsubscribe();
  }

  private pump(): void {
    while (!this.closed && this.outstanding < this.options.maxInFlight && this.head < this.queue.length) {
      const job = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      if (job.wanted()) this.send(job);
    }
  }

  private send(job: PublishJob): void {
    const token = this.nextToken++;
    const { headers } = this.options;
    try {
      headers.set(UPDATE_HEADERS.msgId, job.msgID);
      // Written to the client's buffer now, in call order; the headers are encoded now too.
      this.nc.publish(job.subject, job.payload, { reply: this.replyPrefix + token, headers });
    } catch (error) {
      // Not sent: the job fails, after the caller's `submit` returned.
      queueMicrotask(() => safe(() => job.onError(error)));
      return;
    }
    this.flight.push({ token, job, sentAtMs: this.options.clock.nowMs(), settled: false });
    this.outstanding++;
    if (this.timer === undefined) this.armTimer();
  }

  private onReply(msg: Msg): void {
    const entry = this.entryOf(Number(msg.subject.slice(this.replyPrefix.length)));
    // Unknown: an answer after its publish timed out or its connection dropped.
    if (entry === undefined) return;
    let ack: PublishAck;
    try {
      ack = readAck(msg);
    } catch (error) {
      return this.settle(entry, () => entry.job.onError(error));
    }
    this.settle(entry, () => entry.job.onAck(ack));
  }

  /** The outstanding publish with this token, if any (tokens of `flight` are consecutive). */
  private entryOf(token: number): InFlight | undefined {
    const first = this.flight[this.flightHead];
    if (first === undefined || !Number.isSafeInteger(token)) return undefined;
    const entry = this.flight[this.flightHead + token - first.token];
    return entry !== undefined && entry.token === token && !entry.settled ? entry : undefined;
  }

  private settle(entry: InFlight, step: () => void): void {
    entry.settled = true;
    this.outstanding--;
    while (this.flightHead < this.flight.length && this.flight[this.flightHead]!.settled) this.flightHead++;
    if (this.flightHead === this.flight.length) {
      this.flight.length = 0;
      this.flightHead = 0;
    } else if (this.flightHead > 1024 && this.flightHead * 2 > this.flight.length) {
      this.flight.splice(0, this.flightHead);
      this.flightHead = 0;
    }
    safe(step);
    this.pump();
  }

  /** Fails what is outstanding now (not what the callbacks' pumping sends meanwhile). */
  private failOutstanding(error: Error): void {
    const end = this.nextToken;
    for (let entry = this.flight[this.flightHead]; entry !== undefined && entry.token < end; entry = this.flight[this.flightHead]) {
      const failed = entry;
      this.settle(failed, () => failed.job.onError(error));
    }
  }

  /** One timer, for the oldest outstanding publish (the head of `flight`). */
  private armTimer(): void {
    const oldest = this.flight[this.flightHead];
    if (oldest === undefined || this.closed) return;
    const wait = Math.max(0, oldest.sentAtMs + this.options.timeoutMs - this.options.clock.nowMs());
    this.timer = this.options.clock.setTimer(() => this.onTimer(), wait, { unref: true });
  }

  private onTimer(): void {
    this.timer = undefined;
    const now = this.options.clock.nowMs();
    for (let oldest = this.flight[this.flightHead]; oldest !== undefined && now - oldest.sentAtMs >= this.options.timeoutMs; oldest = this.flight[this.flightHead]) {
      const entry = oldest;
      this.settle(entry, () => entry.job.onError(new Error(`no acknowledgement from JetStream within ${this.options.timeoutMs} ms`)));
    }
    if (this.timer === undefined) this.armTimer();
  }
}

/** JetStream's answer, or a status without one (503: no stream takes the subject). */
function readAck(msg: Msg): PublishAck {
  if (msg.data.length === 0 && msg.headers?.hasError) {
    throw new Error(`JetStream did not take the message: ${msg.headers.code} ${msg.headers.description}`);
  }
  return decodePublishAck(msg.string());
}

function safe(step: () => void): void {
  try {
    step();
  } catch {
    // A job's callback must not stop the pipeline.
  }
}
