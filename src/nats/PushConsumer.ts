/**
 * One stream subject read from JetStream the cheapest way nats.js offers: an ephemeral PUSH
 * consumer (no acks, one filter subject, from a stream sequence: nats-server 2.9) delivering
 * to a fresh inbox, read by ONE core NATS subscription with a callback.
 *
 * Why not nats.js's ordered pull consumer: per message it builds a JsMsg, parses the
 * `$JS.ACK` reply subject into delivery info, keeps pull bookkeeping (re-pulls, pending
 * counts) and resets its heartbeat monitor's timer; at 10k updates/s that was most of what a
 * bus consumer cost beyond a direct client. What the ordered consumer gave is kept elsewhere:
 * - order and exactly-once: the payload's exchange seqs are checked for continuity by the
 *   caller (BusFeed/BusSource), so a lost or duplicated delivery shows as a gap (healed from
 *   the KV) or an overlap (trimmed); with no acks nothing is ever redelivered;
 * - a consumer that stops delivering (deleted on the server, lost in a server restart that
 *   the connection did not notice): the server sends an idle heartbeat when it has nothing
 *   to deliver, so silence for {@link PushConsumer.stalled} intervals means it is gone;
 * - a process that dies: its inbox loses interest and the server removes the consumer after
 *   `inactive_threshold`;
 * - NATS loss: handled by the caller (the consumer is dropped and a new one started).
 * @internal
 */
import type { JetStreamManager } from '@nats-io/jetstream';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { NatsModules } from './natsModules';

/** What to read and how the server should watch it. */
export interface PushConsumerSpec {
  /** The JetStream stream. */
  readonly stream: string;
  /** The one subject read (a filter subject). */
  readonly subject: string;
  /** The stream sequence to read from. */
  readonly startSeq: number;
  /** The server removes the consumer after this long without interest on its inbox (a dead process), ms. */
  readonly inactiveMs: number;
  /** The server's idle heartbeat interval, ms. */
  readonly heartbeatMs: number;
}

export class PushConsumer {
  /** Messages (updates or heartbeats) received; compared across checks by {@link stalled}. */
  private received = 0;
  private seenAtCheck = 0;
  private quietSinceMs: number;
  private stopped = false;

  private sub?: Subscription;
  /** The server's name of the consumer (known once created). */
  private name = '';

  private constructor(
    private readonly jsm: JetStreamManager,
    private readonly spec: PushConsumerSpec,
    nowMs: number,
  ) {
    this.quietSinceMs = nowMs;
  }

  /**
   * Subscribes to a fresh inbox, then creates the consumer delivering to it (interest first:
   * the server delivers from the first message). `onData` gets each message and its payload, in stream order,
   * from the first one (which may come before the server's answer to the creation);
   * heartbeats are counted, and reported to `onIdle` (the consumer delivered all there was).
   * @throws what nats.js throws when the consumer cannot be created (the inbox is released).
   */
  static async start(mods: NatsModules, nc: NatsConnection, jsm: JetStreamManager, spec: PushConsumerSpec, nowMs: number, onData: (msg: Msg, data: Uint8Array) => void, onIdle?: () => void): Promise<PushConsumer> {
    const self = new PushConsumer(jsm, spec, nowMs);
    const inbox = mods.transport.createInbox();
    const sub = nc.subscribe(inbox, {
      callback: (err, msg) => {
        if (err !== null) return;
        self.received++;
        // An empty payload is the server's (idle heartbeat; a flow-control request answers
        // itself): every update message holds at least its head line.
        const data = msg.data; // a view made per call: read once
        if (data.length === 0) {
          if (msg.reply) msg.respond();
          onIdle?.();
          return;
        }
        onData(msg, data);
      },
    });
    self.sub = sub;
    try {
      const info = await jsm.consumers.add(spec.stream, {
        deliver_subject: inbox,
        filter_subject: spec.subject,
        ack_policy: mods.jetstream.AckPolicy.None,
        deliver_policy: mods.jetstream.DeliverPolicy.StartSequence,
        opt_start_seq: spec.startSeq,
        inactive_threshold: mods.transport.nanos(spec.inactiveMs),
        idle_heartbeat: mods.transport.nanos(spec.heartbeatMs),
        // Its state is a cursor: nothing to keep on disk.
        mem_storage: true,
        num_replicas: 1,
      });
      self.name = info.name;
      return self;
    } catch (e) {
      self.stopped = true;
      sub.unsubscribe();
      throw e;
    }
  }

  /**
   * Whether nothing (update or heartbeat) came for more than two heartbeat intervals, as of
   * `nowMs`. Call it periodically (each call notes what came since the one before).
   */
  stalled(nowMs: number): boolean {
    if (this.received !== this.seenAtCheck) {
      this.seenAtCheck = this.received;
      this.quietSinceMs = nowMs;
      return false;
    }
    return nowMs - this.quietSinceMs > 2 * this.spec.heartbeatMs;
  }

  /** Stops reading and deletes the consumer; a failure is left to `inactive_threshold`. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.sub?.unsubscribe();
    await this.jsm.consumers.delete(this.spec.stream, this.name).catch(() => undefined);
  }
}

/**
 * The JetStream stream sequence of a message, from its `$JS.ACK` reply subject (for error
 * messages only: not read per message), undefined when the subject is not one.
 */
export function streamSeqOf(msg: Msg): string | undefined {
  const t = msg.reply?.split('.') ?? [];
  if (t[0] !== '$JS' || t[1] !== 'ACK') return undefined;
  // $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>, or with <domain>.<hash> and a token after.
  return t.length === 9 ? t[5] : t.length >= 12 ? t[7] : undefined;
}
