/**
 * The class, not the instances: StreamSync against a model exchange (syncModel.ts), with
 * fast-check `commands` reaching every interleaving of stream events relative to the
 * snapshot request in flight. After every step:
 * - safety: a `live` replica equals the exchange's state at the replica's seq, in the
 *   numbering the stream shows;
 * - after a `resync_required`, a live replica is not behind what the exchange had when the
 *   replica learned of it (unless a snapshot answer older than its request was given);
 * and at the end, liveness: a few healthy rounds make it live at the exchange's head.
 *
 * Seeded: `MODEL_RUNS` (default 1500) and `MODEL_SEED` (default fixed) set the depth; the
 * soak runs it longer.
 */
import fc from 'fast-check';
import { RestTransportError } from '../../src/errors';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { StreamSync } from '../../src/replicas/StreamSync';
import { ManualClock } from '../helpers/ManualClock';
import { FakeFetcher, FakeStream, fakeSource, settle } from './fixtures';
import { bboScope } from './SyncHarness';
import { answerPoint, ModelExchange, hashReducer, type HashState } from './syncModel';

const RUNS = Number(process.env.MODEL_RUNS ?? 1500);
const SEED = Number(process.env.MODEL_SEED ?? 20261128);

class Real {
  readonly clock = new ManualClock();
  readonly stream = new FakeStream();
  readonly fetcher = new FakeFetcher();
  readonly scheduler = new ResyncScheduler({ retry: { initialDelayMs: 10, maxDelayMs: 40, factor: 2, jitter: 0, retries: 2 } });
  readonly sync: StreamSync<HashState>;
  /** Requests already taken into the model (index into fetcher.calls). */
  seen = 0;

  constructor() {
    this.sync = new StreamSync<HashState>(
      { channel: 'bbo', scope: bboScope, reducer: hashReducer, source: fakeSource(this.stream, this.fetcher), scheduler: this.scheduler },
      { clock: this.clock, retryAfterMs: 100, snapshotAheadMs: 500, random: () => 0.5, onError: () => undefined },
    );
    this.sync.start();
  }

  close(): void {
    this.sync.close();
    this.scheduler.close();
  }
}

/** Records requests made since the last step with where the exchange stood (nothing changed the model in between). */
function noteRequests(m: ModelExchange, r: Real): void {
  for (; r.seen < r.fetcher.calls.length; r.seen++) m.requests.push({ index: r.seen, epoch: m.epoch, head: m.head, shownEpoch: m.shownEpoch });
}

/** The oldest request still waiting for its answer. */
function pending(m: ModelExchange, r: Real) {
  return m.requests.find((q) => !r.fetcher.calls[q.index]!.signal.aborted && !answered.has(r.fetcher.calls[q.index]!));
}
const answered = new WeakSet<object>();

function check(m: ModelExchange, r: Real, what: string): void {
  if (r.sync.status !== 'live') return;
  const e = r.sync.latest!;
  const truth = m.truth(m.shownEpoch, e.seq);
  if (truth !== e.state.h) throw new Error(`live and wrong after ${what}: seq ${e.seq} state ${e.state.h}, exchange ${truth ?? 'has no such seq'} (numbering ${m.shownEpoch})`);
  if (!m.staleAnswered && e.seq < BigInt(m.mustReach)) throw new Error(`live at ${e.seq} after ${what}, behind ${m.mustReach} which the stream said it skipped`);
}

function deliver(m: ModelExchange, r: Real, count: number): void {
  for (let i = 0; i < count && m.queue.length > 0; i++) {
    const d = m.queue.shift()!;
    if (d.kind === 'update') {
      if (d.epoch !== m.shownEpoch) m.mustReach = 0; // a new numbering: the old floor means nothing
      m.shownEpoch = d.epoch;
      m.lastDelivered = d;
      r.stream.update(d.seq, { v: d.v });
    } else {
      if (m.epoch === m.shownEpoch) m.mustReach = Math.max(m.mustReach, m.head);
      m.staleAnswered = false;
      r.stream.resyncRequired(d.reason);
    }
  }
}

type Cmd = fc.AsyncCommand<ModelExchange, Real>;

/** One step: what it does to the exchange and the replica; the invariant is checked after it. */
abstract class Step implements Cmd {
  check(_m: Readonly<ModelExchange>): boolean {
    return true;
  }
  abstract act(m: ModelExchange, r: Real): void | Promise<void>;
  abstract toString(): string;
  async run(m: ModelExchange, r: Real): Promise<void> {
    await this.act(m, r);
    await settle(40);
    noteRequests(m, r);
    check(m, r, this.toString());
  }
}

class Produce extends Step {
  constructor(readonly n: number) {
    super();
  }
  act(m: ModelExchange): void {
    for (let i = 0; i < this.n; i++) m.queue.push(m.produce());
    m.restartable = true;
    m.restartPending = false;
  }
  toString = () => `produce(${this.n})`;
}

class Deliver extends Step {
  constructor(readonly n: number) {
    super();
  }
  act(m: ModelExchange, r: Real): void {
    deliver(m, r, this.n);
  }
  toString = () => `deliver(${this.n})`;
}

/** The exchange skips an update: says so (`gap`), says nothing (a jump), or sends it undecodable (the router's `resync_required`). */
class Skip extends Step {
  constructor(readonly how: 'gap' | 'silent' | 'invalid_update') {
    super();
  }
  /** Not the first update of a restarted numbering: skipped, it would hide the restart (sequence numbers could not show it). */
  override check(m: Readonly<ModelExchange>): boolean {
    return !m.restartPending;
  }
  act(m: ModelExchange): void {
    m.produce();
    m.restartable = false;
    if (this.how !== 'silent') m.queue.push({ kind: 'resync_required', reason: this.how });
  }
  toString = () => `skip(${this.how})`;
}

/**
 * Only where the stream can show it: the update the old numbering ended with reaches the
 * replica, so the new numbering's first update is a regression. (A restart right after a
 * skipped update, or after a drop, looks to sequence numbers like the stream going on.)
 */
class Restart extends Step {
  override check(m: Readonly<ModelExchange>): boolean {
    return m.restartable && m.head >= 1;
  }
  act(m: ModelExchange): void {
    m.restart();
    m.restartable = false;
    m.restartPending = true;
  }
  toString = () => 'restart';
}

/** The socket delivers the last update it delivered once more (a duplicate). */
class Repeat extends Step {
  act(m: ModelExchange): void {
    if (m.lastDelivered !== undefined) m.queue.unshift(m.lastDelivered);
  }
  toString = () => 'repeat';
}

class Drop extends Step {
  act(m: ModelExchange, r: Real): void {
    m.queue = [];
    m.restartable = false;
    // What the old connection delivered is not delivered again on the new one.
    m.lastDelivered = undefined;
    r.stream.disconnected('dropped');
    m.shownEpoch = m.epoch;
    m.mustReach = 0;
    r.stream.subscribed();
  }
  toString = () => 'drop';
}

/**
 * Answers the oldest pending request. Faithfully, the answer is a point the exchange reached
 * after the request was sent: in the numbering the stream shows, at or after the request's
 * head, behind or ahead of the stream; for a request the stream has since shown a restart
 * for, in either numbering. A lying exchange (`m.lying`) answers any point of the numbering
 * the stream shows, older than the request too.
 */
class Answer extends Step {
  constructor(
    readonly pick: number,
    readonly otherNumbering: boolean,
  ) {
    super();
  }
  act(m: ModelExchange, r: Real): void {
    const q = pending(m, r);
    if (q === undefined) return;
    const call = r.fetcher.calls[q.index]!;
    answered.add(call);
    const { epoch, seq } = answerPoint(m, q, this.pick, this.otherNumbering);
    if (m.lying && seq < q.head) m.staleAnswered = true;
    call.resolve(m.page(epoch, seq));
  }
  toString = () => `answer(${this.pick}${this.otherNumbering ? ', other numbering' : ''})`;
}

class Fail extends Step {
  act(m: ModelExchange, r: Real): void {
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
  async act(_m: ModelExchange, r: Real): Promise<void> {
    await r.clock.advance(this.ms);
  }
  toString = () => `tick(${this.ms})`;
}

/** The steps of a run; a lying exchange's answers are tried without restarts (the two together cannot be told from a faithful exchange). */
function commandsOf(lying: boolean): fc.Arbitrary<Cmd>[] {
  const steps: fc.Arbitrary<Cmd>[] = [
    fc.integer({ min: 1, max: 3 }).map((n) => new Produce(n)),
    fc.integer({ min: 1, max: 4 }).map((n) => new Deliver(n)),
    fc.constantFrom('gap', 'silent', 'invalid_update').map((how) => new Skip(how as 'gap' | 'silent' | 'invalid_update')),
    fc.constant(new Repeat()),
    fc.constant(new Drop()),
    fc.tuple(fc.nat(), fc.boolean()).map(([pick, other]) => new Answer(pick, other)),
    fc.tuple(fc.nat(), fc.boolean()).map(([pick, other]) => new Answer(pick, other)),
    fc.constant(new Fail()),
    fc.integer({ min: 1, max: 700 }).map((ms) => new Tick(ms)),
  ];
  if (!lying) steps.push(fc.constant(new Restart()));
  return steps;
}

/** Healthy rounds: everything delivered, every request answered at the head, time passes. */
async function heal(m: ModelExchange, r: Real): Promise<void> {
  m.queue.push(m.produce()); // the stream moves (and shows a restarted numbering)
  for (let round = 0; round === 0 || (round < 12 && !(r.sync.status === 'live' && r.sync.latest!.seq === BigInt(m.head))); round++) {
    deliver(m, r, m.queue.length);
    await settle(40);
    noteRequests(m, r);
    check(m, r, `healing round ${round}`);
    for (let q = pending(m, r); q !== undefined; q = pending(m, r)) {
      answered.add(r.fetcher.calls[q.index]!);
      r.fetcher.calls[q.index]!.resolve(m.page(m.epoch, m.head));
      await settle(40);
      noteRequests(m, r);
      check(m, r, `healing round ${round}`);
    }
    await r.clock.advance(1000);
    noteRequests(m, r);
    check(m, r, `healing round ${round}`);
  }
  const e = r.sync.latest;
  if (r.sync.status !== 'live' || e === undefined || e.seq !== BigInt(m.head) || e.state.h !== m.truth(m.epoch, BigInt(m.head))) {
    throw new Error(`not live and exact after healthy rounds: status ${r.sync.status}, seq ${e?.seq}, exchange head ${m.head}`);
  }
}

describe('StreamSync (model-based: every window)', () => {
  it.each([
    ['a faithful exchange that restarts its numbering', false],
    ['an exchange whose snapshots may be older than the request', true],
  ])(`against %s: never live and wrong, and heals (${RUNS} runs, seed ${SEED})`, async (_name, lying) => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandsOf(lying), { maxCommands: 40, size: 'max' }), async (cmds) => {
        const m = new ModelExchange();
        m.lying = lying;
        const r = new Real();
        try {
          r.stream.subscribed();
          await settle(40);
          noteRequests(m, r);
          await fc.asyncModelRun(() => ({ model: m, real: r }), cmds);
          await heal(m, r);
        } finally {
          r.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
