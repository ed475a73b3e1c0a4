/**
 * Publishes to JetStream in submission order without waiting for each acknowledgement:
 * up to `maxInFlight` publishes are outstanding, the rest wait in a FIFO queue of at most
 * `maxQueued`. The NATS client writes publishes to its socket in call order and the server
 * stores the messages of one connection in that order, so the order of submission is the
 * order in the stream. Each job learns its outcome (PubAck or error) by its own callbacks.
 */
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';

/** One message to publish. */
export interface PublishJob {
  readonly subject: string;
  readonly payload: string;
  readonly headers: MsgHdrs;
  /** The JetStream message id (deduplication). */
  readonly msgID: string;
  /** False when the job is no longer wanted (its stream broke): it is dropped unsent. */
  wanted(): boolean;
  onAck(ack: PubAck): void;
  onError(error: unknown): void;
}

export interface OrderedPublisherOptions {
  readonly maxInFlight: number;
  readonly maxQueued: number;
  /** Bound of one publish's wait for its PubAck. */
  readonly timeoutMs: number;
}

export class OrderedPublisher {
  private readonly queue: PublishJob[] = [];
  private head = 0;
  private inFlight = 0;
  private closed = false;

  constructor(
    private readonly js: Pick<JetStreamClient, 'publish'>,
    private readonly options: OrderedPublisherOptions,
  ) {}

  /** Publishes waiting or outstanding. */
  get pending(): number {
    return this.queue.length - this.head + this.inFlight;
  }

  /** Queues a job; false (and nothing queued) when the queue is full or the publisher closed. */
  submit(job: PublishJob): boolean {
    if (this.closed || this.queue.length - this.head >= this.options.maxQueued) return false;
    this.queue.push(job);
    this.pump();
    return true;
  }

  /** Fails every job not yet sent (their `onError` is called); outstanding ones settle by themselves. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const waiting = this.queue.slice(this.head);
    this.queue.length = 0;
    this.head = 0;
    for (const job of waiting) safe(() => job.onError(new Error('the publisher is closed')));
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.options.maxInFlight && this.head < this.queue.length) {
      const job = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      if (!job.wanted()) continue;
      this.inFlight++;
      let sent: Promise<PubAck>;
      try {
        // Called synchronously, in queue order: the client writes it to the socket now.
        sent = this.js.publish(job.subject, job.payload, { msgID: job.msgID, headers: job.headers, timeout: this.options.timeoutMs });
      } catch (error) {
        sent = Promise.reject(error);
      }
      sent.then(
        (ack) => this.settle(() => job.onAck(ack)),
        (error: unknown) => this.settle(() => job.onError(error)),
      );
    }
  }

  private settle(step: () => void): void {
    this.inFlight--;
    safe(step);
    this.pump();
  }
}

function safe(step: () => void): void {
  try {
    step();
  } catch {
    // A job's callback must not stop the pipeline.
  }
}
