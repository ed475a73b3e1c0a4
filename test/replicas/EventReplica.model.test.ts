/**
 * The class, not the instances: an event replica (`trades`: StreamSync running the event
 * reducer, its items handed on by EventReplica) against a model exchange (eventModel.ts),
 * with fast-check `commands` reaching every interleaving of stream events relative to the
 * history walk in flight. The exchange at any step produces an update (1-3 trades), skips
 * one (said, silent, undecodable), repeats one, restarts its numbering (where the stream can
 * show it, as in the StreamSync model), drops the socket, answers (behind or ahead, in
 * either numbering as the StreamSync model allows), fails or delays a page of the history,
 * and time passes (a ManualClock); consumers subscribe to `events$` (and readers to the log)
 * late, and leave.
 *
 * After every step, on everything `events$` delivered so far:
 * - each record at most once, in strictly increasing `sequence` order, each the exchange's
 *   own record; gap markers name ranges that overlap no record delivered nor each other;
 * - from the first item on, every record the exchange produced below the last one delivered
 *   was delivered or is covered by a gap marker (exactly one, as they do not overlap); with
 *   a history walk that is not bounded, there is no gap marker at all;
 * - every late consumer got exactly the items delivered after it subscribed;
 * - at every log emission and after every step, a `live` replica's `recent` equals the newest
 *   records of the exchange at the replica's seq (in the numbering the stream shows), and
 *   its `lastSequence` is the last record delivered (the newest at its seq, while answers
 *   are faithful); not behind an update it received nor, after a `resync_required`, behind
 *   what the exchange had then.
 * And at the end, liveness: healthy rounds make it live at the exchange's head, with every
 * record produced since the first item delivered or covered.
 *
 * Seeded: `MODEL_RUNS` (runs per exchange, default 1000) and `MODEL_SEED` (default fixed); the
 * soak runs it longer (`MODEL_RUNS=100000 npx jest EventReplica.model`).
 */
import { answerPoint } from './syncModel';
import fc from 'fast-check';
import type { Subscription } from 'rxjs';
import { RestTransportError } from '../../src/errors';
import type { Trade } from '../../src/protocol';
import { createEventReplica } from '../../src/replicas/createReplica';
import type { EventItem } from '../../src/replicas/EventItem';
import type { EventReplica } from '../../src/replicas/EventReplica';
import { itemBytes } from '../../src/replicas/BoundedQueue';
import { EventFeed } from '../../src/replicas/EventFeed';
import { createEventReducer, DEFAULT_RECENT_MAX_BYTES, type EventLog } from '../../src/replicas/eventReducer';
import type { ReplicaState } from '../../src/replicas/ReplicaState';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { ManualClock } from '../helpers/ManualClock';
import { EventExchange, PagingFetcher, type HistoryRequest } from './eventModel';
import { FakeFetcher, FakeStream, fakeSource, settle, trade, waitFor } from './fixtures';

const RUNS = Number(process.env.MODEL_RUNS ?? 1000);
const SEED = Number(process.env.MODEL_SEED ?? 20261129);
const PAGE_SIZE = 3;
const RECENT_LIMIT = 3;

/** One late consumer of `events$`: the index of the main list it joined at, what it got, while subscribed. */
interface Consumer {
  readonly from: number;
  readonly got: EventItem<Trade>[];
  sub?: Subscription;
  /** The main list's length when it left. */
  to?: number;
}

class Real {
  readonly clock = new ManualClock();
  readonly stream = new FakeStream();
  readonly fetcher = new PagingFetcher();
  readonly scheduler = new ResyncScheduler({ retry: { initialDelayMs: 10, maxDelayMs: 40, factor: 2, jitter: 0, retries: 2 } });
  readonly replica: EventReplica<Trade>;
  /** Everything `events$` delivered, to a consumer there from the start. */
  readonly items: EventItem<Trade>[] = [];
  readonly consumers: Consumer[] = [];
  readonly readers: Subscription[] = [];
  /** Requests already taken into the model (index into fetcher.calls). */
  seen = 0;
  /** Records from here on are owed (the first item delivered; 0 when the first state shown had none). */
  owedFrom?: bigint;
  /** Violations seen inside a subscriber (thrown by the next check). */
  readonly violations: string[] = [];

  constructor(
    readonly m: EventExchange,
    maxHistoryPages: number,
    readonly recentMaxBytes: number,
  ) {
    this.replica = createEventReplica(
      'trades',
      { market_id: 0, is_perps: false },
      { source: fakeSource(this.stream, this.fetcher), scheduler: this.scheduler },
      { clock: this.clock, retryAfterMs: 100, snapshotAheadMs: 500, random: () => 0.5, onError: () => undefined, recentLimit: RECENT_LIMIT, recentMaxBytes, maxHistoryPages },
    );
    this.replica.events$.subscribe((item) => this.items.push(item));
    this.replica.states$.subscribe((e) => {
      this.owedFrom ??= this.items.length === 0 ? 0n : from(this.items[0]!);
      const wrong = liveAndWrong(m, this, e);
      if (wrong !== undefined) this.violations.push(`at a log emission (${e.cause}): ${wrong}`);
    });
    this.replica.start();
  }

  close(): void {
    this.replica.close();
    this.scheduler.close();
    for (const c of this.consumers) c.sub?.unsubscribe();
    for (const r of this.readers) r.unsubscribe();
  }
}

const from = (i: EventItem<unknown>): bigint => (i.kind === 'record' ? i.sequence : i.fromSequence);
const to = (i: EventItem<unknown>): bigint => (i.kind === 'record' ? i.sequence : i.toSequence);
const show = (i: EventItem<unknown>): string => (i.kind === 'record' ? String(i.sequence) : `gap ${i.fromSequence}-${i.toSequence} ${i.reason}`);

/** Why a live log emission is wrong, or undefined. */
function liveAndWrong(m: EventExchange, r: Real, e: ReplicaState<EventLog<Trade>>): string | undefined {
  if (e.status !== 'live') return undefined;
  const truth = m.recentAt(m.shownEpoch, e.seq, RECENT_LIMIT, r.recentMaxBytes);
  if (truth === undefined) return `live at seq ${e.seq}, which numbering ${m.shownEpoch} never had`;
  const recent = e.state.recent;
  if (recent.length !== truth.length || recent.some((t, i) => t !== truth[i])) {
    return `live at seq ${e.seq} with recent [${recent.map((t) => t.sequence).join(' ')}], the exchange's [${truth.map((t) => t.sequence).join(' ')}] (numbering ${m.shownEpoch})`;
  }
  let lastRecord: bigint | undefined;
  for (const item of r.items) if (item.kind === 'record') lastRecord = item.sequence;
  if (e.state.lastSequence !== lastRecord) return `lastSequence ${e.state.lastSequence} but the last record delivered is ${lastRecord}`;
  if (!m.staleAnswered) {
    const newest = truth[truth.length - 1];
    if (newest !== undefined && e.state.lastSequence !== BigInt(newest.sequence)) return `lastSequence ${e.state.lastSequence} at seq ${e.seq}, where the exchange's newest record is ${newest.sequence}`;
    if (e.seq < BigInt(m.mustReach)) return `live at ${e.seq}, behind ${m.mustReach} which the stream said it skipped`;
    if (e.seq < BigInt(m.received)) return `live at ${e.seq}, behind update ${m.received} it received`;
  }
  return undefined;
}

/** The invariants of what `events$` delivered (see the module comment). */
function checkItems(m: EventExchange, r: Real, fullHistory: boolean): string | undefined {
  const items = r.items;
  let before: bigint | undefined;
  for (const item of items) {
    if (from(item) > to(item)) return `an item with an empty range: ${show(item)}`;
    if (before !== undefined && from(item) <= before) return `out of order or twice: ${show(item)} after ${before} (${items.map(show).join(', ')})`;
    before = to(item);
    if (item.kind === 'record' && item.record !== m.bySequence.get(item.sequence)) return `record ${item.sequence} is not the exchange's`;
    if (item.kind === 'gap' && (fullHistory || item.reason !== 'history')) return `a gap marker (${show(item)}) where the history reaches back (${items.map(show).join(', ')})`;
  }
  if (items.length > 0) {
    const owedFrom = r.owedFrom ?? from(items[0]!);
    const last = to(items[items.length - 1]!);
    // Walk the records owed and the items together: each record delivered or inside a gap.
    let k = 0;
    for (const t of m.records) {
      const s = BigInt(t.sequence);
      if (s < owedFrom) continue;
      if (s > last) break;
      while (k < items.length && to(items[k]!) < s) k++;
      const item = items[k];
      if (item === undefined || from(item) > s) return `record ${s} was neither delivered nor covered by a gap (${items.map(show).join(', ')})`;
    }
  }
  for (const c of r.consumers) {
    const expected = items.slice(c.from, c.to);
    if (c.got.length !== expected.length || c.got.some((item, i) => item !== expected[i])) return `a consumer that joined at item ${c.from} got [${c.got.map(show).join(', ')}], expected [${expected.map(show).join(', ')}]`;
  }
  return undefined;
}

function check(m: EventExchange, r: Real, fullHistory: boolean, what: string): void {
  if (r.violations.length > 0) throw new Error(`${r.violations[0]!} (after ${what})`);
  const wrongItems = checkItems(m, r, fullHistory);
  if (wrongItems !== undefined) throw new Error(`after ${what}: ${wrongItems}`);
  const e = r.replica.sync.latest;
  if (r.replica.status === 'live' && e !== undefined) {
    const wrong = liveAndWrong(m, r, e);
    if (wrong !== undefined) throw new Error(`live and wrong after ${what}: ${wrong}`);
  }
}

/** Records requests made since the last step with where the exchange stood (nothing changed the model in between). */
function noteRequests(m: EventExchange, r: Real): void {
  for (; r.seen < r.fetcher.calls.length; r.seen++) {
    const cursor = r.fetcher.calls[r.seen]!.params.cursor;
    m.requests.push({ index: r.seen, cursor: cursor === undefined ? undefined : String(cursor), epoch: m.epoch, head: m.head, shownEpoch: m.shownEpoch });
  }
}

const answered = new WeakSet<object>();

/** The oldest request still waiting for its answer. */
function pending(m: EventExchange, r: Real): HistoryRequest | undefined {
  return m.requests.find((q) => !r.fetcher.calls[q.index]!.signal.aborted && !answered.has(r.fetcher.calls[q.index]!));
}

function deliver(m: EventExchange, r: Real, count: number): void {
  for (let i = 0; i < count && m.queue.length > 0; i++) {
    const d = m.queue.shift()!;
    if (d.kind === 'update') {
      if (d.epoch !== m.shownEpoch) {
        // A new numbering: the old floors mean nothing.
        m.mustReach = 0;
        m.received = 0;
      }
      m.shownEpoch = d.epoch;
      m.received = Math.max(m.received, d.seq);
      m.lastDelivered = d;
      r.stream.update(d.seq, { trades: d.trades });
    } else {
      if (m.epoch === m.shownEpoch) m.mustReach = Math.max(m.mustReach, m.head);
      m.staleAnswered = false;
      r.stream.resyncRequired(d.reason);
    }
  }
}

/** The world of one run. */
interface World {
  readonly m: EventExchange;
  readonly r: Real;
  readonly fullHistory: boolean;
}

type Cmd = fc.AsyncCommand<World, World>;

/** One step: what it does to the exchange and the replica; the invariants are checked after it. */
abstract class Step implements Cmd {
  check(_w: Readonly<World>): boolean {
    return true;
  }
  abstract act(m: EventExchange, r: Real): void | Promise<void>;
  abstract toString(): string;
  async run(_model: World, w: World): Promise<void> {
    await this.act(w.m, w.r);
    await settle(40);
    noteRequests(w.m, w.r);
    check(w.m, w.r, w.fullHistory, this.toString());
  }
}

class Produce extends Step {
  /** @param steps one per trade of the update: its sequence's distance to the one before (1 or 2; 3 and 4 for a big trade) */
  constructor(readonly steps: readonly number[]) {
    super();
  }
  act(m: EventExchange): void {
    m.queue.push(m.produce(this.steps));
    m.restartable = true;
  }
  toString = () => `produce(${this.steps.join(',')})`;
}

class Deliver extends Step {
  constructor(readonly n: number) {
    super();
  }
  act(m: EventExchange, r: Real): void {
    deliver(m, r, this.n);
  }
  toString = () => `deliver(${this.n})`;
}

/**
 * The exchange skips an update (its trades are lost to the stream): says so (`gap`), says
 * nothing (a jump), or sends it undecodable (the router's `resync_required`). Not as the
 * first update of a restarted numbering: the restart would not show (see eventModel).
 */
class Skip extends Step {
  constructor(
    readonly how: 'gap' | 'silent' | 'invalid_update',
    readonly steps: readonly number[],
  ) {
    super();
  }
  override check(w: Readonly<World>): boolean {
    return !w.m.freshNumbering;
  }
  act(m: EventExchange): void {
    m.produce(this.steps);
    m.restartable = false;
    if (this.how !== 'silent') m.queue.push({ kind: 'resync_required', reason: this.how });
  }
  toString = () => `skip(${this.how}, ${this.steps.join(',')})`;
}

/** As in the StreamSync model: only where the stream can show it (its first update is a regression). */
class Restart extends Step {
  override check(w: Readonly<World>): boolean {
    return w.m.restartable && w.m.head >= 1;
  }
  act(m: EventExchange): void {
    m.restart();
    m.restartable = false;
  }
  toString = () => 'restart';
}

class Repeat extends Step {
  act(m: EventExchange): void {
    if (m.lastDelivered !== undefined) m.queue.unshift(m.lastDelivered);
  }
  toString = () => 'repeat';
}

/** The socket drops and subscribes again; what it delivered before is not repeated on the new subscription. */
class Drop extends Step {
  act(m: EventExchange, r: Real): void {
    m.queue = [];
    m.lastDelivered = undefined;
    m.restartable = false;
    r.stream.disconnected('dropped');
    m.shownEpoch = m.epoch;
    m.mustReach = 0;
    m.received = 0;
    r.stream.subscribed();
  }
  toString = () => 'drop';
}

/**
 * Answers the oldest pending request. A later page of a walk is the records below its cursor
 * (the same at any point). A first page is a point chosen as in the StreamSync model:
 * faithfully, a point the exchange reached after the request was sent, in the numbering the
 * stream shows (or, for a request the stream has since shown a restart for, either one),
 * behind or ahead of the stream; a lying exchange answers any point of the numbering shown.
 */
class Answer extends Step {
  constructor(
    readonly pick: number,
    readonly otherNumbering: boolean,
  ) {
    super();
  }
  act(m: EventExchange, r: Real): void {
    const q = pending(m, r);
    if (q === undefined) return;
    const call = r.fetcher.calls[q.index]!;
    answered.add(call);
    if (q.cursor !== undefined) return call.resolve(m.pageBelow(q.cursor));
    const { epoch, seq } = answerPoint(m, q, this.pick, this.otherNumbering);
    if (m.lying && seq < q.head) m.staleAnswered = true;
    call.resolve(m.firstPage(epoch, seq));
  }
  toString = () => `answer(${this.pick}${this.otherNumbering ? ', other numbering' : ''})`;
}

class Fail extends Step {
  act(m: EventExchange, r: Real): void {
    const q = pending(m, r);
    if (q === undefined) return;
    const call = r.fetcher.calls[q.index]!;
    answered.add(call);
    call.reject(new RestTransportError('connection reset', {}));
  }
  toString = () => 'fail';
}

class Tick extends Step {
  constructor(readonly ms: number) {
    super();
  }
  async act(_m: EventExchange, r: Real): Promise<void> {
    await r.clock.advance(this.ms);
  }
  toString = () => `tick(${this.ms})`;
}

/** A consumer subscribes to `events$` now (hot: it gets what is delivered from now on). */
class Join extends Step {
  act(_m: EventExchange, r: Real): void {
    const c: Consumer = { from: r.items.length, got: [] };
    c.sub = r.replica.events$.subscribe((item) => c.got.push(item));
    r.consumers.push(c);
  }
  toString = () => 'join';
}

/** The oldest consumer still subscribed leaves. */
class Leave extends Step {
  act(_m: EventExchange, r: Real): void {
    const c = r.consumers.find((x) => x.to === undefined);
    if (c === undefined) return;
    c.sub!.unsubscribe();
    c.to = r.items.length;
  }
  toString = () => 'leave';
}

/** A late reader of the log (a replay of the latest emission), or a second reader of the sync itself: neither may deliver an item again. */
class Read extends Step {
  constructor(readonly ofSync: boolean) {
    super();
  }
  act(_m: EventExchange, r: Real): void {
    r.readers.push(this.ofSync ? r.replica.sync.states$.subscribe(() => undefined) : r.replica.states$.subscribe(() => undefined));
  }
  toString = () => `read(${this.ofSync ? 'sync' : 'log'})`;
}

/** The trades of an update: the distance of each sequence to the one before, one in four big (see EventExchange.produce). */
const steps = fc.array(fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 2 }) }, { weight: 1, arbitrary: fc.integer({ min: 3, max: 4 }) }), { minLength: 1, maxLength: 3 });

/** The steps of a run; a lying exchange's answers are tried without restarts (as in the StreamSync model). */
function commandsOf(lying: boolean): fc.Arbitrary<Cmd>[] {
  const all: fc.Arbitrary<Cmd>[] = [
    steps.map((s) => new Produce(s)),
    steps.map((s) => new Produce(s)),
    fc.integer({ min: 1, max: 4 }).map((n) => new Deliver(n)),
    fc.integer({ min: 1, max: 4 }).map((n) => new Deliver(n)),
    fc.tuple(fc.constantFrom('gap', 'silent', 'invalid_update'), steps).map(([how, s]) => new Skip(how as 'gap' | 'silent' | 'invalid_update', s)),
    fc.constant(new Repeat()),
    fc.constant(new Drop()),
    fc.tuple(fc.nat(), fc.boolean()).map(([pick, other]) => new Answer(pick, other)),
    fc.tuple(fc.nat(), fc.boolean()).map(([pick, other]) => new Answer(pick, other)),
    fc.tuple(fc.nat(), fc.boolean()).map(([pick, other]) => new Answer(pick, other)),
    fc.constant(new Fail()),
    fc.integer({ min: 1, max: 700 }).map((ms) => new Tick(ms)),
    fc.constant(new Join()),
    fc.constant(new Leave()),
    fc.boolean().map((ofSync) => new Read(ofSync)),
  ];
  if (!lying) all.push(fc.constant(new Restart()));
  return all;
}

/** Healthy rounds: everything delivered, every page answered at the head, time passes. */
async function heal(w: World): Promise<void> {
  const { m, r, fullHistory } = w;
  m.queue.push(m.produce([1])); // the stream moves (and shows a restarted numbering)
  const lastSequence = BigInt(m.records[m.records.length - 1]!.sequence);
  const done = () => r.replica.status === 'live' && r.replica.sync.latest!.seq === BigInt(m.head);
  for (let round = 0; round === 0 || (round < 12 && !done()); round++) {
    deliver(m, r, m.queue.length);
    await settle(40);
    noteRequests(m, r);
    check(m, r, fullHistory, `healing round ${round}`);
    for (let q = pending(m, r); q !== undefined; q = pending(m, r)) {
      const call = r.fetcher.calls[q.index]!;
      answered.add(call);
      call.resolve(q.cursor === undefined ? m.firstPage(m.epoch, m.head) : m.pageBelow(q.cursor));
      await settle(40);
      noteRequests(m, r);
      check(m, r, fullHistory, `healing round ${round}`);
    }
    await r.clock.advance(1000);
    noteRequests(m, r);
    check(m, r, fullHistory, `healing round ${round}`);
  }
  const e = r.replica.sync.latest;
  if (!done() || e === undefined || e.state.lastSequence !== lastSequence) {
    throw new Error(`not live at the head after healthy rounds: status ${r.replica.status}, seq ${e?.seq} (head ${m.head}), lastSequence ${e?.state.lastSequence} (exchange ${lastSequence})`);
  }
  const last = r.items[r.items.length - 1];
  if (last === undefined || to(last) !== lastSequence) throw new Error(`healed, but the last item delivered is ${last === undefined ? 'none' : show(last)}, the exchange's last record ${lastSequence}`);
}

async function runModel(cmds: Iterable<Cmd>, lying: boolean, maxHistoryPages: number, recentMaxBytes: number): Promise<void> {
  const m = new EventExchange(PAGE_SIZE);
  m.lying = lying;
  const r = new Real(m, maxHistoryPages, recentMaxBytes);
  const w: World = { m, r, fullHistory: maxHistoryPages >= 1000 };
  try {
    r.stream.subscribed();
    await settle(40);
    noteRequests(m, r);
    await fc.asyncModelRun(() => ({ model: w, real: w }), cmds);
    await heal(w);
  } finally {
    r.close();
  }
}

describe('EventReplica (model-based: every window, each record once or one gap)', () => {
  it.each([
    ['a faithful exchange that restarts its numbering, history bounded to 2 pages', false, 2],
    ['a faithful exchange that restarts its numbering, the whole history', false, 1000],
    ['an exchange whose snapshots may be older than the request, history bounded to 2 pages', true, 2],
    ['an exchange whose snapshots may be older than the request, the whole history', true, 1000],
  ])(`against %s (${RUNS} runs, seed ${SEED})`, async (_name, lying, maxHistoryPages) => {
    await fc.assert(
      // `recent` bounded by its count alone (the default byte bound), by two small trades' bytes, or by one byte (the newest only).
      fc.asyncProperty(fc.commands(commandsOf(lying), { maxCommands: 40, size: 'max' }), fc.constantFrom(DEFAULT_RECENT_MAX_BYTES, 300, 1), (cmds, recentMaxBytes) => runModel(cmds, lying, maxHistoryPages, recentMaxBytes)),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe("the event replica's buffers are bounded in bytes as well as in count", () => {
  /** A trade whose price carries `pad` leading zeros: a valid Uint64 string of any length. */
  const padded = (sequence: number, pad: number): Trade => ({ ...trade(sequence), price_ticks: `${'0'.repeat(pad)}100` });
  const rec = (t: Trade): EventItem<Trade> => ({ kind: 'record', sequence: BigInt(t.sequence), record: t });

  async function take(it: AsyncIterator<EventItem<Trade>>, n: number): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await it.next();
      if (r.done) break;
      out.push(show(r.value));
    }
    return out;
  }

  it('an iterate() consumer behind holds at most bufferBytes: what does not fit becomes one overflow gap marker, in order', async () => {
    const feed = new EventFeed<Trade>({ bufferSize: 1000, bufferBytes: 3000 });
    const it = feed.iterate();
    // Each ~1.1 kB: two fit, the third and fourth do not (the count bound is far).
    for (let s = 1; s <= 4; s++) feed.push(rec(padded(s, 1000)));
    expect(itemBytes(rec(padded(1, 1000)))).toBeGreaterThan(1000);
    expect(await take(it, 3)).toEqual(['1', '2', 'gap 3-4 overflow']);
    // Caught up: it holds again, and one item alone is held whatever its size.
    feed.push(rec(padded(5, 5000)));
    feed.push(rec(padded(6, 10)));
    expect(await take(it, 2)).toEqual(['5', 'gap 6-6 overflow']);
    feed.push(rec(padded(7, 10)));
    feed.close();
    expect(await take(it, 2)).toEqual(['7']);
  });

  it('the marker waiting for room needs room too; small records still fit by count and bytes', async () => {
    const feed = new EventFeed<Trade>({ bufferSize: 10, bufferBytes: 1500 });
    const it = feed.iterate();
    feed.push(rec(padded(1, 1200)));
    feed.push(rec(padded(2, 10))); // overflows by bytes
    expect(await take(it, 1)).toEqual(['1']);
    for (let s = 3; s <= 6; s++) feed.push(rec(padded(s, 10)));
    feed.close();
    expect(await take(it, 6)).toEqual(['gap 2-2 overflow', '3', '4', '5', '6']);
  });

  it('recent keeps the newest records that fit in recentMaxBytes (the newest always); each is delivered once on events$ whatever leaves recent', async () => {
    const stream = new FakeStream();
    const fetcher = new FakeFetcher();
    const scheduler = new ResyncScheduler();
    const replica = createEventReplica('trades', { market_id: 0, is_perps: false }, { source: fakeSource(stream, fetcher), scheduler }, { recentLimit: 100, recentMaxBytes: 4096 });
    const items: string[] = [];
    replica.events$.subscribe((i) => items.push(show(i)));
    const sequences = () => replica.sync.latest!.state.recent.map((t) => Number(t.sequence));
    try {
      replica.start();
      stream.subscribed();
      const page = [1, 2, 3].map((s) => padded(s, 1000)).reverse();
      (await fetcher.nextCall()).resolve({ data: page, sequence: '1', next_cursor: null });
      await waitFor(replica.states$, (e) => e.status === 'live');
      expect(sequences()).toEqual([1, 2, 3]);
      stream.update(2, { trades: [padded(4, 1000), padded(5, 10)] });
      // 2..5 are ~3.4 kB: 1 leaves recent by bytes, long before 100 records.
      expect(sequences()).toEqual([2, 3, 4, 5]);
      stream.update(3, { trades: [padded(6, 20_000)] });
      expect(sequences()).toEqual([6]);
      stream.update(4, { trades: [padded(7, 10), padded(8, 10)] });
      expect(sequences()).toEqual([7, 8]); // 6 alone passes the bound: it leaves with the first record after it
      expect(items).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    } finally {
      replica.close();
      scheduler.close();
    }
  });

  it('checks bufferBytes and recentMaxBytes', () => {
    expect(() => new EventFeed({ bufferBytes: 0 })).toThrow(/bufferBytes/);
    expect(() => new EventFeed().iterate({ bufferBytes: 1.5 })).toThrow(/bufferBytes/);
    expect(() => createEventReducer({ channel: 'trades', recordsOf: () => [], sequenceOf: () => 0n }, { recentMaxBytes: -1 })).toThrow(/recentMaxBytes/);
  });
});
