/**
 * A fake NATS server with JetStream and one KV bucket, at the seam `BusSource` reads through
 * (`loadNats()`'s modules and a NatsConnection given as `nats`): the bus-feed model
 * (busFeed.model.test.ts) drives it step by step. It holds one updates stream (messages with
 * their stream sequence and subject), the push consumers the source creates (each with its
 * filter subject and its cursor: it delivers only when the model says so, in stream order),
 * and the KV entries. Nothing is delivered, answered or timed on its own: the model chooses
 * every interleaving.
 *
 * What it answers, as nats-server 2.9 does for these calls: `consumers.add` (a push consumer
 * from `opt_start_seq`, delivering to `deliver_subject`), `consumers.delete`,
 * `streams.getMessage({ last_by_subj })`, `kv.get`, core subscriptions (the heartbeat
 * wildcard, the consumers' inboxes) and publishes to them. An idle heartbeat is an empty
 * message, sent to a consumer only when it has nothing left to deliver.
 */
import type { NatsModules } from '../../src/nats/natsModules';

type Callback = (err: Error | null, msg: FakeMsg) => void;

/** What a subscription callback gets (the fields the source reads). */
export interface FakeMsg {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly reply?: string;
  string(): string;
  respond(): boolean;
}

export interface StoredMessage {
  readonly seq: number;
  readonly subject: string;
  readonly text: string;
}

/** A push consumer the source created. */
export interface FakeConsumer {
  readonly name: string;
  readonly deliver: string;
  readonly filter: string;
  /** The next stream sequence it looks at. */
  cursor: number;
  deleted: boolean;
}

const UTF8 = new TextEncoder();

export class FakeBus {
  readonly messages: StoredMessage[] = [];
  readonly consumers: FakeConsumer[] = [];
  private readonly subs = new Map<number, { readonly subject: string; readonly callback: Callback }>();
  private nextSub = 1;
  private nextInbox = 1;
  private readonly kv = new Map<string, { revision: number; text: string }>();
  private revision = 0;
  /** Consumer creations not answered yet (the server may deliver before it answers). */
  readonly creations: (() => void)[] = [];
  /** Answer each creation at once (else the model answers them: {@link answerCreation}). */
  answerAtOnce = true;
  private statusWaiters: ((v: IteratorResult<{ type: string }>) => void)[] = [];
  private readonly statusQueue: { type: string }[] = [];

  constructor(readonly streamName: string) {}

  // ---- the model's hands -------------------------------------------------------

  publish(subject: string, text: string): number {
    const seq = this.messages.length + 1;
    this.messages.push({ seq, subject, text });
    return seq;
  }

  putKv(key: string, text: string): void {
    this.kv.set(key, { revision: ++this.revision, text });
  }

  /** Consumers not deleted, in creation order. */
  active(): FakeConsumer[] {
    return this.consumers.filter((c) => !c.deleted);
  }

  /** Messages the consumer has still to deliver. */
  pending(c: FakeConsumer): StoredMessage[] {
    return this.messages.filter((m) => m.seq >= c.cursor && m.subject === c.filter);
  }

  /** Answers the oldest consumer creation waiting for its answer. */
  answerCreation(): void {
    this.creations.shift()?.();
  }

  /** Delivers up to `n` messages of the consumer, in stream order; returns how many. */
  deliver(c: FakeConsumer, n: number): number {
    let done = 0;
    for (const m of this.pending(c)) {
      if (done >= n || c.deleted) break;
      c.cursor = m.seq + 1;
      this.route(c.deliver, m.text, `$JS.ACK.${this.streamName}.${c.name}.1.${m.seq}.1.0.0`);
      done++;
    }
    return done;
  }

  /** An idle heartbeat, when the consumer has delivered everything there is. */
  idle(c: FakeConsumer): boolean {
    if (c.deleted || this.pending(c).length > 0) return false;
    this.route(c.deliver, '', undefined);
    return true;
  }

  /** Sends a core NATS message to the subscriptions matching `subject`. */
  route(subject: string, text: string, reply: string | undefined): void {
    const data = UTF8.encode(text);
    for (const s of [...this.subs.values()]) {
      if (!matches(s.subject, subject)) continue;
      s.callback(null, { subject, data, reply, string: () => text, respond: () => true });
    }
  }

  /** A status event of the connection (`disconnect`, `reconnect`). */
  status(type: string): void {
    const w = this.statusWaiters.shift();
    if (w !== undefined) w({ value: { type }, done: false });
    else this.statusQueue.push({ type });
  }

  // ---- what the source is given ------------------------------------------------

  /** The connection (`BusSourceOptions.nats`). */
  connection(): unknown {
    return {
      isClosed: () => false,
      close: async () => undefined,
      subscribe: (subject: string, opts: { callback: Callback }) => {
        const id = this.nextSub++;
        this.subs.set(id, { subject, callback: opts.callback });
        return { unsubscribe: () => void this.subs.delete(id) };
      },
      publish: (subject: string, data: string | Uint8Array) => this.route(subject, typeof data === 'string' ? data : new TextDecoder().decode(data), undefined),
      status: () => ({
        [Symbol.asyncIterator]: () => ({
          next: () => {
            const q = this.statusQueue.shift();
            if (q !== undefined) return Promise.resolve({ value: q, done: false });
            return new Promise<IteratorResult<{ type: string }>>((resolve) => this.statusWaiters.push(resolve));
          },
        }),
      }),
    };
  }

  /** The three NATS modules (`loadNats()`), on this fake. */
  modules(): NatsModules {
    const manager = {
      consumers: {
        add: async (_stream: string, cfg: { deliver_subject: string; filter_subject: string; opt_start_seq: number }) => {
          const c: FakeConsumer = { name: `c${this.consumers.length + 1}`, deliver: cfg.deliver_subject, filter: cfg.filter_subject, cursor: cfg.opt_start_seq, deleted: false };
          this.consumers.push(c);
          if (!this.answerAtOnce) await new Promise<void>((resolve) => this.creations.push(resolve));
          return { name: c.name };
        },
        delete: async (_stream: string, name: string) => {
          const c = this.consumers.find((x) => x.name === name);
          if (c !== undefined) c.deleted = true;
          return true;
        },
      },
      streams: {
        getMessage: async (_stream: string, q: { last_by_subj?: string; seq?: number }) => {
          const m = q.last_by_subj !== undefined ? [...this.messages].reverse().find((x) => x.subject === q.last_by_subj) : this.messages[(q.seq ?? 0) - 1];
          return m === undefined ? null : { seq: m.seq, subject: m.subject, string: () => m.text };
        },
      },
    };
    const js = { jetstreamManager: async () => manager };
    const kv = {
      get: async (key: string) => {
        const e = this.kv.get(key);
        return e === undefined ? null : { operation: 'PUT', revision: e.revision, created: new Date(1_700_000_000_000 + e.revision), string: () => e.text };
      },
    };
    class Kvm {
      open = async (): Promise<typeof kv> => kv;
    }
    const mods = {
      transport: { createInbox: () => `_INBOX.fake${this.nextInbox++}`, nanos: (ms: number) => ms * 1_000_000 },
      jetstream: { jetstream: () => js, AckPolicy: { None: 'none' }, DeliverPolicy: { StartSequence: 'by_start_sequence' } },
      kv: { Kvm },
    };
    return mods as unknown as NatsModules;
  }
}

/** NATS subject matching: `*` one token, `>` the rest. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
