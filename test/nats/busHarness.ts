/**
 * What the bus tests share: a real nats-server per test file, a simulator per test, relays
 * with fast retries, reading a subject back from JetStream (one filter subject per consumer,
 * as nats-server 2.9 allows), and waits that poll with a bound (never a fixed sleep).
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { Simulator, type SimulatorOptions } from '../../src/simulator';
import { ReplicaRelay, type ReplicaRelayOptions } from '../../src/nats';
import { decodeSnapshotRecord, decodeUpdateBatch, UPDATE_HEADERS, type UpdateMessage, type BusNames, type SnapshotRecord } from '../../src/nats/busProtocol';
import { isChannelName } from '../../src/protocol';
import { WAIT_MS } from '../helpers/deadlines';

/** Polls `probe` until it returns a value other than undefined/false; `ms` only catches a hang. */
export async function waitUntil<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = WAIT_MS, everyMs = 25): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function startSim(options: Partial<SimulatorOptions> = {}): Promise<Simulator> {
  return Simulator.start({ seed: 1, eventsPerSecond: 300, ...options });
}

/** A relay on the simulator and NATS server given, with retries fast enough for tests. */
export function startRelay(sim: Simulator, natsUrl: string, options: Partial<ReplicaRelayOptions>): Promise<ReplicaRelay> {
  return ReplicaRelay.start({
    exchange: {
      restUrl: sim.restUrl,
      connection: { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } },
      rest: { retry: { initialDelayMs: 10, maxDelayMs: 100 } },
    },
    natsUrl,
    heartbeatMs: 200,
    quietMs: 100,
    retry: { initialDelayMs: 20, maxDelayMs: 500 },
    ...options,
  });
}

/** The truth of a snapshot operation on the (paused) simulator: `sequence` and `data`. */
export function truth<T = unknown>(sim: Simulator, op: Parameters<Simulator['truth']>[0], params: Record<string, string | number>): { sequence: bigint; data: T } {
  const r = sim.truth(op, params);
  if (r.status !== 200) throw new Error(`truth ${op} answered ${r.status}: ${JSON.stringify(r.body)}`);
  const body = r.body as { data: T; sequence?: string };
  return { sequence: BigInt(body.sequence ?? '0'), data: body.data };
}

/** One update of a stored message (a batch), decoded: a batch gives one per update it holds. */
export interface BusMessage {
  readonly jsSeq: number;
  /** The bounds of the batch it came in. */
  readonly first: bigint;
  readonly last: bigint;
  readonly streamKey: string;
  readonly seq: bigint;
  readonly timestampNs: bigint;
  readonly relayId: string;
  readonly msgId: string;
  readonly data: unknown;
}

/** A NATS connection for a test (closed by the caller). */
export function natsConnect(url: string): Promise<NatsConnection> {
  return connect({ servers: url });
}

/**
 * The messages of `subject` from JetStream sequence `fromSeq` (an ephemeral pull consumer with
 * one filter subject), until one with exchange seq >= `untilSeq` arrived (when given) or the
 * consumer has nothing pending.
 */
export async function readSubject(nc: NatsConnection, names: BusNames, subject: string, fromSeq = 1, untilSeq?: bigint, ms = WAIT_MS): Promise<BusMessage[]> {
  const jsm = await jetstreamManager(nc);
  const ci = await jsm.consumers.add(names.stream, {
    // Explicit acks: a fetch the client abandons (a pull's idle heartbeat missed while this
    // loaded test process was busy) leaves its unread messages to be delivered again.
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(1_000),
    max_ack_pending: 10_000,
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: fromSeq,
    filter_subject: subject,
    inactive_threshold: nanos(60_000),
    mem_storage: true,
  });
  const consumer = await jetstream(nc).consumers.get(names.stream, ci.name);
  const out: BusMessage[] = [];
  const deadline = Date.now() + ms;
  let lastJsSeq = 0;
  try {
    for (;;) {
      let pending = 1;
      try {
        const batch = await consumer.fetch({ max_messages: 1000, expires: 1000 });
        for await (const m of batch) {
          m.ack();
          pending = m.info.pending;
          if (m.seq <= lastJsSeq) continue; // delivered again after an abandoned fetch
          lastJsSeq = m.seq;
          const relayId = m.headers?.get(UPDATE_HEADERS.relay) ?? '';
          const msgId = m.headers?.get(UPDATE_HEADERS.msgId) ?? '';
          const { first, last, updates } = readBatch(m.string());
          for (const u of updates) out.push({ jsSeq: m.seq, first, last, streamKey: u.streamKey, seq: u.seq, timestampNs: u.timestampNs, relayId, msgId, data: u.data });
        }
      } catch (e) {
        if (!/heartbeats missed/.test(String(e))) throw e;
        pending = 1; // the pull was abandoned by the client: fetch again
      }
      const last = out[out.length - 1];
      if (untilSeq === undefined ? pending === 0 : last !== undefined && last.seq >= untilSeq) return out;
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms reading ${subject} (${out.length} messages, last seq ${last?.seq}, waiting for ${untilSeq})`);
    }
  } finally {
    await jsm.consumers.delete(names.stream, ci.name).catch(() => undefined);
  }
}

/** A batch of whichever stream its first frame names (the bus's decoder checks every frame against that stream). */
function readBatch(text: string): { first: bigint; last: bigint; updates: UpdateMessage[] } {
  const named = JSON.parse(text.split('\n')[1] ?? '') as { subscription_id?: unknown; channel?: unknown };
  if (typeof named.subscription_id !== 'string' || !isChannelName(named.channel)) throw new Error(`not an update message: ${text.slice(0, 200)}`);
  const { head, updates } = decodeUpdateBatch(text, named.subscription_id, named.channel);
  return { first: head.first, last: head.last, updates };
}

/**
 * The updates a consumer takes from `msgs` (one subject, in stored order): of each batch the
 * ones above the last one taken (busProtocol.ts); throws on a gap between two taken.
 */
export function consumerView(msgs: readonly BusMessage[]): BusMessage[] {
  const out: BusMessage[] = [];
  for (const m of msgs) {
    const top = out[out.length - 1];
    if (top !== undefined && m.seq <= top.seq) continue;
    if (top !== undefined && m.seq !== top.seq + 1n) throw new Error(`gap: ${top.seq} then ${m.seq} (js ${top.jsSeq} then ${m.jsSeq})`);
    out.push(m);
  }
  return out;
}

/** The snapshot record of a KV key, or undefined. */
export async function readSnapshot(nc: NatsConnection, names: BusNames, key: string): Promise<{ record: SnapshotRecord; revision: number } | undefined> {
  const kv = await new Kvm(nc).open(names.bucket);
  const e = await kv.get(key);
  if (e === null || e.operation !== 'PUT') return undefined;
  return { record: decodeSnapshotRecord(e.string()), revision: e.revision };
}
