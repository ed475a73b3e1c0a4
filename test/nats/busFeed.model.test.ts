/**
 * The class, not the instances: the readers of one bus feed (BusSource + BusFeed, the real
 * code, over a fake NATS server at the source's seam: fakeBus.ts) against a model bus, with
 * fast-check `commands` reaching the interleavings of a relay's publishes and KV writes, the
 * server's deliveries to each JetStream consumer (the feed's and each joiner's catch-up),
 * readers joining a running feed and resyncing on their own, and time passing.
 *
 * Three readers of one event stream (`trades`: each an event replica, StreamSync running the
 * event reducer, as `client.trades()` builds it) share the feed. The model bus is what
 * relays keep it: the subject holds every update (batches, copies overlapping what another
 * relay published, never a hole) and each KV entry is aligned (`jsStartSeq` a message that
 * holds S + 1, or past the subject's end when S is its last update).
 *
 * After every step, for every reader:
 * - each event once: its items are the exchange's records, each exactly once, in order, with
 *   no hole and no gap marker (the bus holds every record);
 * - never live and wrong: a live replica's `recent` is the exchange's newest records at its seq;
 * - a resync by one reader leaves the others alone: no reader is ever resubscribed while
 *   live (a reader rebuilt for another's resync would be).
 * And at the end, liveness: healthy rounds make every reader live at the exchange's head.
 *
 * What it found (2026-11-28), each fixed in FeedRunner/BusFeed: a reader's resync answered
 * from a KV entry below what the feed delivered rebuilt EVERY reader of the key (a live one
 * was resubscribed); a resync answered with an entry whose page (an event stream's newest
 * records) does not reach back to the reader's watermark marked a gap for records the subject
 * holds (the entry ahead of the feed, or a reader that fell behind while resyncing); and an
 * entry ahead of the feed, once believed, became the feed's anchor, so the feed skipped the
 * updates up to it that its other readers still needed. With updates of two records: the
 * answer's check compared an update seq with a record watermark. At 10,000 runs: a reader
 * behind the anchor (resyncing) when NATS dropped was rebuilt from the restarted feed's entry,
 * whose page did not reach back to it (the feed now keeps its bus's oldest entry, the floor).
 *
 * Seeded: `MODEL_RUNS` (default 300, about a second) and `MODEL_SEED` (default fixed) set
 * the depth; `MODEL_RUNS=20000 npx jest busFeed.model` runs it longer.
 */
import fc from 'fast-check';
import type { NatsConnection } from '@nats-io/transport-node';
import { CHANNELS, streamKey, type Trade } from '../../src/protocol';
import { BusSource } from '../../src/nats/BusSource';
import { BUS_FORMAT_VERSION, busNames, encodeHeartbeat, encodeSnapshotRecord, encodeUpdateBatch, encodeUpdateMessage, snapshotKey, updateMessagePrefix, updateSubject } from '../../src/nats/busProtocol';
import type { NatsModules } from '../../src/nats/natsModules';
import { createEventReplica } from '../../src/replicas/createReplica';
import type { EventItem } from '../../src/replicas/EventItem';
import type { EventReplica } from '../../src/replicas/EventReplica';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { ManualClock } from '../helpers/ManualClock';
import { settle, trade } from '../replicas/fixtures';
import { FakeBus, type FakeConsumer } from './fakeBus';

let mockModules: NatsModules | undefined;
jest.mock('../../src/nats/natsModules', () => ({ loadNats: () => Promise.resolve(mockModules), NATS_PACKAGES: [] }));

const RUNS = Number(process.env.MODEL_RUNS ?? 300);
const SEED = Number(process.env.MODEL_SEED ?? 20261128);
const READERS = 3;
/** Records in a KV entry's page (an event stream's entry holds its newest page only). */
const PAGE = 3;
const HEARTBEAT_MS = 1000;

const PREFIX = 'mf';
const NAMES = busNames(PREFIX);
const SCOPE = { market_id: 0, is_perps: false };
const KEY = streamKey('trades', SCOPE);
const SUBJECT = updateSubject(NAMES, 'trades', SCOPE);
const KV_KEY = snapshotKey('trades', SCOPE);
const FRAME_PREFIX = updateMessagePrefix('trades', KEY);

/** The exchange and what the relays made of it. */
class ModelBus {
  /** The exchange's head: records 1..produced (one per update, the record's sequence the update's seq). */
  produced = 0;
  /** Every update up to this is on the subject. */
  published = 0;
  /** The S of the KV entry (-1: none yet). */
  kvS = -1;
  /** The subject's messages: their stream sequence and bounds. */
  readonly batches: { readonly seq: number; readonly first: number; readonly last: number }[] = [];
}

interface Reader {
  replica?: EventReplica<Trade>;
  /** What its replica delivered (a reader that left and joins again starts a new list). */
  items: EventItem<Trade>[];
}

class Real {
  readonly clock = new ManualClock();
  readonly bus = new FakeBus(NAMES.stream);
  readonly scheduler = new ResyncScheduler({ retry: { initialDelayMs: 10, maxDelayMs: 40, factor: 2, jitter: 0, retries: 2 } });
  readonly source: BusSource;
  readonly readers: Reader[] = Array.from({ length: READERS }, () => ({ items: [] }));
  readonly errors: unknown[] = [];

  constructor() {
    mockModules = this.bus.modules();
    this.source = new BusSource({ nats: this.bus.connection() as NatsConnection, prefix: PREFIX, clock: this.clock, checkMs: 250, aheadCheckMs: 1000, consumerHeartbeatMs: 5000, onError: (e) => this.errors.push(e) });
  }

  join(i: number): void {
    const r = this.readers[i]!;
    if (r.replica !== undefined) return;
    const items: EventItem<Trade>[] = [];
    r.items = items;
    r.replica = createEventReplica('trades', SCOPE, { source: this.source, scheduler: this.scheduler }, { clock: this.clock, retryAfterMs: 100, snapshotAheadMs: 500, livenessMs: 0, random: () => 0.5, onError: () => undefined, recentLimit: PAGE });
    r.replica.events$.subscribe((item) => items.push(item));
    r.replica.start();
  }

  leave(i: number): void {
    const r = this.readers[i]!;
    r.replica?.close();
    r.replica = undefined;
  }

  async close(): Promise<void> {
    for (const r of this.readers) r.replica?.close();
    await this.source.close();
    this.scheduler.close();
  }
}

// ---- what the relays do ----------------------------------------------------

/** Update `s` carries records 2s-1 and 2s: a record's sequence is not its update's seq (as on the exchange, where an update holds several trades). */
const RECORDS_PER_UPDATE = 2;
const recordsOf = (s: number): Trade[] => Array.from({ length: RECORDS_PER_UPDATE }, (_, k) => trade(RECORDS_PER_UPDATE * (s - 1) + k + 1));

function publishBatch(m: ModelBus, r: Real, first: number, last: number): void {
  const frames: string[] = [];
  for (let s = first; s <= last; s++) {
    const trades = recordsOf(s);
    frames.push(encodeUpdateMessage(FRAME_PREFIX, 'trades', BigInt(s), BigInt(trades[trades.length - 1]!.timestamp_ns), { trades }));
  }
  const seq = r.bus.publish(SUBJECT, encodeUpdateBatch(BigInt(first), frames));
  m.batches.push({ seq, first, last });
  if (last > m.published) m.published = last;
}

function writeEntry(m: ModelBus, r: Real, S: number, jsStartSeq: number): void {
  const records: Trade[] = [];
  // The newest PAGE records at S, newest first (as REST answers).
  for (let n = RECORDS_PER_UPDATE * S; n >= 1 && n > RECORDS_PER_UPDATE * S - PAGE; n--) records.push(trade(n));
  r.bus.putKv(
    KV_KEY,
    encodeSnapshotRecord({
      v: BUS_FORMAT_VERSION,
      streamKey: KEY,
      channel: 'trades',
      scope: SCOPE,
      subject: SUBJECT,
      operation: CHANNELS.trades.snapshot,
      sequence: BigInt(S),
      timestampNs: 0n,
      data: { records, exhausted: RECORDS_PER_UPDATE * S <= PAGE },
      jsStream: NAMES.stream,
      jsStartSeq,
      writtenAtNs: r.clock.nowNs(),
      relayId: 'relay-m',
    }),
  );
  m.kvS = S;
}

function heartbeat(m: ModelBus, r: Real): void {
  r.bus.route(
    `${PREFIX}.hb.relay-m`,
    encodeHeartbeat({
      v: BUS_FORMAT_VERSION,
      relayId: 'relay-m',
      state: 'running',
      atNs: r.clock.nowNs(),
      intervalMs: HEARTBEAT_MS,
      snapshotRefreshMs: 1000,
      feed: 'open',
      jsStream: NAMES.stream,
      bucket: NAMES.bucket,
      streams: [
        {
          streamKey: KEY,
          channel: 'trades',
          scope: SCOPE,
          subject: SUBJECT,
          snapshotKey: KV_KEY,
          status: 'live',
          publishedSeq: m.published === 0 ? null : BigInt(m.published),
          snapshotSequence: m.kvS < 0 ? null : BigInt(m.kvS),
          published: m.published,
          duplicates: 0,
          messages: m.batches.length,
          syncs: 1,
        },
      ],
    }),
    undefined,
  );
}

// ---- the invariant -----------------------------------------------------------

function check(r: Real, what: string): void {
  r.readers.forEach((reader, i) => {
    const replica = reader.replica;
    if (replica === undefined) return;
    let prev: bigint | undefined;
    for (const item of reader.items) {
      if (item.kind === 'gap') throw new Error(`reader ${i}: a gap marker ${item.fromSequence}..${item.toSequence} (${item.reason}) after ${what}, the bus holds every record`);
      if (prev !== undefined && item.sequence !== prev + 1n) {
        throw new Error(`reader ${i}: record ${item.sequence} after ${prev} (${item.sequence <= prev ? 'delivered twice or out of order' : 'records missing'}) after ${what}`);
      }
      if (JSON.stringify(item.record) !== JSON.stringify(trade(item.sequence))) throw new Error(`reader ${i}: record ${item.sequence} is not the exchange's after ${what}`);
      prev = item.sequence;
    }
    const latest = replica.sync.latest;
    if (replica.status === 'live' && latest !== undefined) {
      const recent = latest.state.recent.map((t) => BigInt(t.sequence));
      const want: bigint[] = [];
      const top = BigInt(RECORDS_PER_UPDATE) * latest.seq;
      for (let n = top; n >= 1n && n > top - BigInt(PAGE); n--) want.unshift(n);
      // `recent` follows the stream position (a rebuild from an older snapshot included); `lastSequence` is the last record delivered.
      const lastItem = reader.items.at(-1);
      const delivered = lastItem === undefined ? undefined : lastItem.kind === 'gap' ? lastItem.toSequence : lastItem.sequence;
      if (JSON.stringify(recent.map(String)) !== JSON.stringify(want.map(String)) || latest.state.lastSequence !== delivered) {
        throw new Error(`reader ${i}: live and wrong after ${what}: seq ${latest.seq}, recent ${recent.join(',')}, lastSequence ${latest.state.lastSequence}`);
      }
    }
    const resubscribed = replica.sync.resyncCounts.resubscribed;
    if (resubscribed > 0) throw new Error(`reader ${i}: resubscribed while live (${resubscribed}) after ${what}: another reader's resync rebuilt it`);
  });
}

type Cmd = fc.AsyncCommand<ModelBus, Real>;

abstract class Step implements Cmd {
  check(_m: Readonly<ModelBus>): boolean {
    return true;
  }
  abstract act(m: ModelBus, r: Real): void | Promise<void>;
  abstract toString(): string;
  async run(m: ModelBus, r: Real): Promise<void> {
    await this.act(m, r);
    await settle();
    await settle();
    check(r, this.toString());
  }
}

class Produce extends Step {
  constructor(readonly n: number) {
    super();
  }
  act(m: ModelBus): void {
    m.produced += this.n;
  }
  toString = () => `produce(${this.n})`;
}

/** A relay publishes the next updates as one batch; `back` > 0: a copy overlapping what another relay published (its batch started earlier). */
class Publish extends Step {
  constructor(
    readonly n: number,
    readonly back: number,
  ) {
    super();
  }
  act(m: ModelBus, r: Real): void {
    const last = Math.min(m.produced, m.published + this.n);
    const first = Math.max(1, m.published + 1 - this.back);
    if (last < first) return;
    publishBatch(m, r, first, last);
  }
  toString = () => `publish(${this.n}, back ${this.back})`;
}

/** A relay writes an entry aligned with the subject: S above the last one, at a message holding S + 1 (or past the subject's end when S is its last update). */
class WriteKv extends Step {
  constructor(
    readonly pickS: number,
    readonly pickAt: number,
  ) {
    super();
  }
  act(m: ModelBus, r: Real): void {
    if (m.published <= m.kvS) return;
    const S = m.kvS + 1 + (this.pickS % (m.published - m.kvS));
    const at = m.batches.filter((b) => b.first <= S + 1 && S + 1 <= b.last).map((b) => b.seq);
    if (S === m.published) at.push(r.bus.messages.length + 1);
    writeEntry(m, r, S, at[this.pickAt % at.length]!);
  }
  toString = () => `writeKv(${this.pickS}, ${this.pickAt})`;
}

function consumerAt(r: Real, pick: number): FakeConsumer | undefined {
  const active = r.bus.active();
  return active.length === 0 ? undefined : active[pick % active.length];
}

/** The server delivers to one consumer (the feed's or a catch-up's). */
class Deliver extends Step {
  constructor(
    readonly pick: number,
    readonly n: number,
  ) {
    super();
  }
  act(_m: ModelBus, r: Real): void {
    const c = consumerAt(r, this.pick);
    if (c !== undefined) r.bus.deliver(c, this.n);
  }
  toString = () => `deliver(${this.pick}, ${this.n})`;
}

/** A consumer that delivered everything there is gets an idle heartbeat. */
class Idle extends Step {
  constructor(readonly pick: number) {
    super();
  }
  act(_m: ModelBus, r: Real): void {
    const c = consumerAt(r, this.pick);
    if (c !== undefined) r.bus.idle(c);
  }
  toString = () => `idle(${this.pick})`;
}

class Join extends Step {
  constructor(readonly reader: number) {
    super();
  }
  act(_m: ModelBus, r: Real): void {
    r.join(this.reader);
  }
  toString = () => `join(${this.reader})`;
}

class Leave extends Step {
  constructor(readonly reader: number) {
    super();
  }
  act(_m: ModelBus, r: Real): void {
    if (r.readers.filter((x) => x.replica !== undefined).length > 1) r.leave(this.reader);
  }
  toString = () => `leave(${this.reader})`;
}

/** The server answers the oldest consumer creation (it may have delivered before). */
class AnswerCreation extends Step {
  act(_m: ModelBus, r: Real): void {
    r.bus.answerCreation();
  }
  toString = () => 'answerCreation';
}

/** The NATS connection drops and comes back at once (the source stops its feeds, and starts them again on the next heartbeat). */
class Drop extends Step {
  async act(_m: ModelBus, r: Real): Promise<void> {
    r.bus.status('disconnect');
    await settle();
    r.bus.status('reconnect');
  }
  toString = () => 'drop';
}

class Resync extends Step {
  constructor(readonly reader: number) {
    super();
  }
  act(_m: ModelBus, r: Real): void {
    r.readers[this.reader]!.replica?.sync.resync('the model');
  }
  toString = () => `resync(${this.reader})`;
}

/** Time passes: the relay's heartbeat (unless it is silent), and the server does what it does meanwhile (one message to each consumer with some, an idle heartbeat to the others). */
class Tick extends Step {
  constructor(
    readonly ms: number,
    readonly silent = false,
  ) {
    super();
  }
  async act(m: ModelBus, r: Real): Promise<void> {
    if (!this.silent) heartbeat(m, r);
    for (const c of r.bus.active()) if (r.bus.deliver(c, 1) === 0) r.bus.idle(c);
    await settle();
    await r.clock.advance(this.ms);
  }
  toString = () => `tick(${this.ms}${this.silent ? ', no heartbeat' : ''})`;
}

const commands: fc.Arbitrary<Cmd>[] = [
  fc.integer({ min: 1, max: 3 }).map((n) => new Produce(n)),
  fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 0, 1, 2)).map(([n, back]) => new Publish(n, back)),
  fc.tuple(fc.nat(), fc.nat()).map(([s, at]) => new WriteKv(s, at)),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 3 })).map(([pick, n]) => new Deliver(pick, n)),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 3 })).map(([pick, n]) => new Deliver(pick, n)),
  fc.nat().map((pick) => new Idle(pick)),
  fc.integer({ min: 1, max: READERS - 1 }).map((i) => new Join(i)),
  fc.integer({ min: 0, max: READERS - 1 }).map((i) => new Resync(i)),
  fc.integer({ min: 1, max: 700 }).map((ms) => new Tick(ms)),
  fc.integer({ min: 1, max: 1500 }).map((ms) => new Tick(ms, true)),
  fc.integer({ min: 0, max: READERS - 1 }).map((i) => new Leave(i)),
  fc.constant(new AnswerCreation()),
  fc.constant(new Drop()),
];

/** Healthy rounds: everything published and written, delivered, time passes. */
async function heal(m: ModelBus, r: Real): Promise<void> {
  m.produced++;
  publishBatch(m, r, m.published + 1, m.produced);
  writeEntry(m, r, m.published, r.bus.messages.length + 1);
  const done = (): boolean => r.readers.every((x) => x.replica === undefined || (x.replica.status === 'live' && x.replica.sync.latest?.seq === BigInt(m.produced)));
  r.bus.answerAtOnce = true;
  for (let round = 0; round < 40 && !done(); round++) {
    heartbeat(m, r);
    while (r.bus.creations.length > 0) r.bus.answerCreation();
    for (const c of r.bus.active()) {
      r.bus.deliver(c, Number.MAX_SAFE_INTEGER);
      r.bus.idle(c);
    }
    await settle();
    await settle();
    check(r, `healing round ${round}`);
    await r.clock.advance(300);
    await settle();
    check(r, `healing round ${round}`);
  }
  r.readers.forEach((x, i) => {
    if (x.replica === undefined) return;
    if (!done()) throw new Error(`reader ${i} not live at the head ${m.produced} after healthy rounds: ${x.replica.status} at ${x.replica.sync.latest?.seq}`);
    const last = x.items.at(-1);
    if (last === undefined || last.kind !== 'record' || last.sequence !== BigInt(RECORDS_PER_UPDATE * m.produced)) throw new Error(`reader ${i}: its last record is not the exchange's newest at head ${m.produced}`);
  });
}

describe('the readers of a bus feed (model-based)', () => {
  test(`each event once per reader, never live and wrong, a resync by one reader leaves the others alone (${RUNS} runs, seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: 'max' }), fc.boolean(), async (cmds, answerAtOnce) => {
        const m = new ModelBus();
        const r = new Real();
        r.bus.answerAtOnce = answerAtOnce;
        try {
          // The relay is up: 3 records published, an entry at 0 (nothing yet), its heartbeat; reader 0 reads.
          m.produced = 3;
          publishBatch(m, r, 1, 3);
          writeEntry(m, r, 0, 1);
          r.join(0);
          await settle();
          heartbeat(m, r);
          await settle();
          await settle();
          await fc.asyncModelRun(() => ({ model: m, real: r }), cmds);
          await heal(m, r);
        } finally {
          await r.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
