/**
 * The class, not the instances: an AccountReplica (five parts, each a sync of its own stream:
 * `account`, `balances`, `positions`, `orders`, and the `fills` event replica) against a
 * model exchange of one subaccount, with fast-check `commands`. Each part's stream is the
 * StreamSync model's (syncModel.ts) kept small: at any step the exchange produces an update
 * of a part, skips one (said, silent, undecodable), repeats one, restarts a part's
 * numbering (where the stream can show it), drops the socket (every part at once), answers
 * (behind or ahead, in either numbering as the StreamSync model allows), fails or delays a
 * part's snapshot request, and time passes.
 *
 * Safety, at every emission of the account and after every step: when the account says
 * `live`, every part is live, and what the account shows of each part (the subaccount, the
 * balances, positions and open orders, the recent fills) equals the exchange's state of
 * that part at the part's seq (in the numbering its stream shows), not behind an update the
 * part received nor, after a `resync_required`, behind what the exchange had then.
 * Liveness: healthy rounds make the account live with every part at the exchange's head.
 *
 * Seeded: `MODEL_RUNS` (default 1000) and `MODEL_SEED` (default fixed).
 */
import { answerPoint } from './syncModel';
import fc from 'fast-check';
import { RestTransportError } from '../../src/errors';
import type { Balance, ChannelName, Fill, Order, Position, Subaccount } from '../../src/protocol';
import { AccountReplica } from '../../src/replicas/account/AccountReplica';
import { ACCOUNT_PARTS, type AccountPart, type AccountReplicaState, type AccountState } from '../../src/replicas/account/AccountState';
import { deepEqual } from '../../src/replicas/account/diffAccount';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import type { SnapshotPage } from '../../src/replicas/SnapshotFetcher';
import { ManualClock } from '../helpers/ManualClock';
import { address, balance, FakeFetcher, FakeStream, fakeSource, fill, order, position, settle, subaccount, waitFor } from './fixtures';
import { fastRetry } from './SyncHarness';

const RUNS = Number(process.env.MODEL_RUNS ?? 1000);
const SEED = Number(process.env.MODEL_SEED ?? 20261130);
const ADDRESS = address(3);

/** How the exchange moves one part: its state, an update of it, its snapshot answer, and what the account shows of it. */
interface PartSpec<S> {
  readonly initial: S;
  /** The update a step makes (`choice` picks what it touches, `n` makes it new) and the state after it. */
  next(state: S, choice: number, n: number): { readonly data: unknown; readonly state: S };
  /** The snapshot answer of a state (one page). */
  answer(state: S): Pick<SnapshotPage, 'data' | 'next_cursor'>;
  /** What the account shows of the part. */
  view(state: AccountState): unknown;
  equals(view: unknown, state: S): boolean;
}

const mapOf = <K, T>(rows: readonly T[], key: (t: T) => K) => new Map(rows.map((r) => [key(r), r] as const));
const sameMap = (view: unknown, state: ReadonlyMap<unknown, unknown>) => {
  const v = view as ReadonlyMap<unknown, unknown>;
  return v.size === state.size && [...state].every(([k, t]) => deepEqual(v.get(k), t));
};
const upsert = <K, T>(state: ReadonlyMap<K, T>, key: K, row: T, removed: boolean): ReadonlyMap<K, T> => {
  const next = new Map(state);
  if (removed) next.delete(key);
  else next.set(key, row);
  return next;
};

const SPECS: { readonly [P in AccountPart]: PartSpec<unknown> } = {
  account: {
    initial: subaccount(0, 1000),
    next: (_s, _c, n) => {
      const sub = subaccount(0, 1000 + n);
      return { data: sub, state: sub };
    },
    answer: (s) => ({ data: { address: ADDRESS, subaccounts: [s] } }),
    view: (a) => a.subaccount,
    equals: (v, s) => deepEqual(v, s),
  } satisfies PartSpec<Subaccount>,
  balances: {
    initial: mapOf([balance('USDC', 500)], (b) => b.token_id),
    next: (s, c, n) => {
      const b = balance(c % 2 === 0 ? 'USDC' : 'SOL', n);
      return { data: { balances: [b] }, state: upsert(s, b.token_id, b, false) };
    },
    answer: (s) => ({ data: [...s.values()] }),
    view: (a) => a.balances,
    equals: (v, s) => sameMap(v, s),
  } satisfies PartSpec<ReadonlyMap<string, Balance>>,
  positions: {
    initial: mapOf([position(1, 5)], (p) => p.market_id),
    next: (s, c, n) => {
      const p = position(1 + (c % 2), c % 3 === 0 ? 0 : n);
      return { data: { positions: [p] }, state: upsert(s, p.market_id, p, p.size_base_lots === '0') };
    },
    answer: (s) => ({ data: [...s.values()] }),
    view: (a) => a.positions,
    equals: (v, s) => sameMap(v, s),
  } satisfies PartSpec<ReadonlyMap<number, Position>>,
  orders: {
    initial: mapOf([order(1)], (o) => o.order_id),
    next: (s, c, n) => {
      const o = c % 3 === 0 ? order(1 + (c % 4), 'filled', 0) : order(1 + (c % 4), 'open', 1 + (n % 5));
      return { data: { orders: [o] }, state: upsert(s, o.order_id, o, o.status !== 'open') };
    },
    answer: (s) => ({ data: [...s.values()], next_cursor: null }),
    view: (a) => a.openOrders,
    equals: (v, s) => sameMap(v, s),
  } satisfies PartSpec<ReadonlyMap<string, Order>>,
  fills: {
    initial: [fill(1)],
    next: (s) => {
      const f = fill(s.length + 1);
      return { data: { fills: [f] }, state: [...s, f] };
    },
    // Newest first, all of them (fewer than a page).
    answer: (s) => ({ data: [...s].reverse(), next_cursor: null }),
    view: (a) => a.recentFills,
    equals: (v, s) => deepEqual(v, s),
  } satisfies PartSpec<readonly Fill[]>,
} as never;

type Delivery = { readonly kind: 'update'; readonly epoch: number; readonly seq: number; readonly data: unknown } | { readonly kind: 'resync_required'; readonly reason: 'gap' | 'invalid_update' };

interface Request {
  readonly index: number;
  readonly epoch: number;
  readonly head: number;
  readonly shownEpoch: number;
}

/** One part of the exchange: the StreamSync model's numberings and socket, with states of the part. */
class PartModel {
  /** `logs[e][n]`: the part's state at seq n of numbering e. */
  readonly logs: unknown[][];
  queue: Delivery[] = [];
  shownEpoch = 0;
  /** Highest head (in `shownEpoch`) the part must reach after a `resync_required`. */
  mustReach = 0;
  /** Highest seq delivered on this subscription in `shownEpoch`: a live part is not behind it. */
  received = 0;
  restartable = false;
  freshNumbering = false;
  readonly requests: Request[] = [];
  lastDelivered?: Delivery & { kind: 'update' };

  constructor(readonly spec: PartSpec<unknown>) {
    this.logs = [[spec.initial]];
  }

  get epoch(): number {
    return this.logs.length - 1;
  }
  get head(): number {
    return this.logs[this.epoch]!.length - 1;
  }
  get now(): unknown {
    const log = this.logs[this.epoch]!;
    return log[log.length - 1];
  }

  produce(choice: number, n: number): Delivery & { kind: 'update' } {
    const { data, state } = this.spec.next(this.now, choice, n);
    const log = this.logs[this.epoch]!;
    log.push(state);
    this.freshNumbering = false;
    return { kind: 'update', epoch: this.epoch, seq: log.length - 1, data };
  }

  restart(): void {
    this.logs.push([this.now]);
    this.freshNumbering = true;
  }

  truth(epoch: number, seq: bigint): { state: unknown } | undefined {
    const log = this.logs[epoch];
    return log === undefined || seq < 0n || seq >= BigInt(log.length) ? undefined : { state: log[Number(seq)] };
  }

  page(epoch: number, seq: number): SnapshotPage {
    return { ...this.spec.answer(this.logs[epoch]![seq]), sequence: String(seq), timestamp_ns: '1' };
  }
}

class Model {
  readonly parts = Object.fromEntries(ACCOUNT_PARTS.map((p) => [p, new PartModel(SPECS[p])])) as Record<AccountPart, PartModel>;
  /** Makes every update new. */
  n = 0;
}

class Real {
  readonly clock = new ManualClock();
  readonly streams = Object.fromEntries(ACCOUNT_PARTS.map((p) => [p, new FakeStream()])) as Record<AccountPart, FakeStream>;
  readonly fetcher = new FakeFetcher();
  readonly scheduler = new ResyncScheduler({ retry: { initialDelayMs: 10, maxDelayMs: 40, factor: 2, jitter: 0, retries: 2 } });
  readonly account: AccountReplica;
  seen = 0;
  readonly violations: string[] = [];

  constructor(readonly m: Model) {
    this.account = new AccountReplica(
      { address: ADDRESS, subaccount_id: 0 },
      { source: fakeSource((c: ChannelName) => this.streams[c as AccountPart], this.fetcher), scheduler: this.scheduler },
      { clock: this.clock, retryAfterMs: 100, snapshotAheadMs: 500, random: () => 0.5, onError: () => undefined },
    );
    this.account.states$.subscribe((e) => {
      const wrong = liveAndWrong(m, this, e);
      if (wrong !== undefined) this.violations.push(`at an emission (${e.source}, ${e.cause}): ${wrong}`);
    });
    this.account.start();
  }

  close(): void {
    this.account.close();
    this.scheduler.close();
  }
}

/** Why a live account emission is wrong, or undefined. */
function liveAndWrong(m: Model, r: Real, e: AccountReplicaState): string | undefined {
  if (e.status !== 'live') return undefined;
  for (const p of ACCOUNT_PARTS) {
    const part = r.account.parts[p];
    const pm = m.parts[p];
    if (part.status !== 'live') return `the account is live, its part ${p} ${part.status}`;
    const seq = partSeq(r, p);
    if (seq === undefined) return `the account is live, its part ${p} has no state`;
    const truth = pm.truth(pm.shownEpoch, seq);
    if (truth === undefined) return `part ${p} live at seq ${seq}, which numbering ${pm.shownEpoch} never had`;
    if (!pm.spec.equals(pm.spec.view(e.state), truth.state)) return `part ${p} at seq ${seq} shows ${JSON.stringify(show(pm.spec.view(e.state)))}, the exchange ${JSON.stringify(show(truth.state))} (numbering ${pm.shownEpoch})`;
    if (seq < BigInt(pm.received)) return `part ${p} live at seq ${seq}, behind update ${pm.received} it received`;
    if (seq < BigInt(pm.mustReach)) return `part ${p} live at seq ${seq}, behind ${pm.mustReach} which its stream said it skipped`;
  }
  return undefined;
}

/** The seq of a part's latest state. */
function partSeq(r: Real, p: AccountPart): bigint | undefined {
  return p === 'fills' ? r.account.parts.fills.sync.latest?.seq : r.account.parts[p].latest?.seq;
}

const show = (v: unknown): unknown => (v instanceof Map ? [...v.values()] : v);

function check(m: Model, r: Real, what: string): void {
  if (r.violations.length > 0) throw new Error(`${r.violations[0]!} (after ${what})`);
  const e = r.account.latest;
  if (r.account.status === 'live') {
    if (e === undefined || e.status !== 'live') throw new Error(`after ${what}: the account is live, its latest emission ${e?.status ?? 'none'}`);
    const wrong = liveAndWrong(m, r, e);
    if (wrong !== undefined) throw new Error(`live and wrong after ${what}: ${wrong}`);
  }
}

function noteRequests(m: Model, r: Real): void {
  for (; r.seen < r.fetcher.calls.length; r.seen++) {
    const pm = m.parts[r.fetcher.calls[r.seen]!.operation as AccountPart];
    pm.requests.push({ index: r.seen, epoch: pm.epoch, head: pm.head, shownEpoch: pm.shownEpoch });
  }
}

const answered = new WeakSet<object>();

function pending(m: Model, r: Real, p: AccountPart): Request | undefined {
  return m.parts[p].requests.find((q) => !r.fetcher.calls[q.index]!.signal.aborted && !answered.has(r.fetcher.calls[q.index]!));
}

function deliver(m: Model, r: Real, p: AccountPart, count: number): void {
  const pm = m.parts[p];
  for (let i = 0; i < count && pm.queue.length > 0; i++) {
    const d = pm.queue.shift()!;
    if (d.kind === 'update') {
      if (d.epoch !== pm.shownEpoch) {
        pm.mustReach = 0;
        pm.received = 0;
      }
      pm.shownEpoch = d.epoch;
      pm.received = Math.max(pm.received, d.seq);
      pm.lastDelivered = d;
      r.streams[p].update(d.seq, d.data);
    } else {
      if (pm.epoch === pm.shownEpoch) pm.mustReach = Math.max(pm.mustReach, pm.head);
      r.streams[p].resyncRequired(d.reason);
    }
  }
}

type Cmd = fc.AsyncCommand<Model, Real>;

abstract class Step implements Cmd {
  constructor(readonly part: AccountPart) {}
  check(_m: Readonly<Model>): boolean {
    return true;
  }
  abstract act(m: Model, r: Real): void | Promise<void>;
  abstract name(): string;
  toString = () => this.name();
  async run(m: Model, r: Real): Promise<void> {
    await this.act(m, r);
    await settle(40);
    noteRequests(m, r);
    check(m, r, this.toString());
  }
}

class Produce extends Step {
  constructor(
    part: AccountPart,
    readonly choice: number,
  ) {
    super(part);
  }
  act(m: Model): void {
    const pm = m.parts[this.part];
    pm.queue.push(pm.produce(this.choice, ++m.n));
    pm.restartable = true;
  }
  name = () => `produce(${this.part}, ${this.choice})`;
}

class Deliver extends Step {
  constructor(
    part: AccountPart,
    readonly n: number,
  ) {
    super(part);
  }
  act(m: Model, r: Real): void {
    deliver(m, r, this.part, this.n);
  }
  name = () => `deliver(${this.part}, ${this.n})`;
}

/** As in the StreamSync model; never the first update of a restarted numbering (the restart would not show). */
class Skip extends Step {
  constructor(
    part: AccountPart,
    readonly how: 'gap' | 'silent' | 'invalid_update',
  ) {
    super(part);
  }
  override check(m: Readonly<Model>): boolean {
    return !m.parts[this.part].freshNumbering;
  }
  act(m: Model): void {
    const pm = m.parts[this.part];
    pm.produce(0, ++m.n);
    pm.restartable = false;
    if (this.how !== 'silent') pm.queue.push({ kind: 'resync_required', reason: this.how });
  }
  name = () => `skip(${this.part}, ${this.how})`;
}

class Restart extends Step {
  override check(m: Readonly<Model>): boolean {
    const pm = m.parts[this.part];
    return pm.restartable && pm.head >= 1;
  }
  act(m: Model): void {
    m.parts[this.part].restart();
    m.parts[this.part].restartable = false;
  }
  name = () => `restart(${this.part})`;
}

class Repeat extends Step {
  act(m: Model): void {
    const pm = m.parts[this.part];
    if (pm.lastDelivered !== undefined) pm.queue.unshift(pm.lastDelivered);
  }
  name = () => `repeat(${this.part})`;
}

/** The socket drops: every part's stream, then every part subscribes again. */
class Drop extends Step {
  constructor() {
    super('account');
  }
  act(m: Model, r: Real): void {
    for (const p of ACCOUNT_PARTS) {
      const pm = m.parts[p];
      pm.queue = [];
      pm.lastDelivered = undefined;
      pm.restartable = false;
      r.streams[p].disconnected('dropped');
    }
    for (const p of ACCOUNT_PARTS) {
      const pm = m.parts[p];
      pm.shownEpoch = pm.epoch;
      pm.mustReach = 0;
      pm.received = 0;
      r.streams[p].subscribed();
    }
  }
  name = () => 'drop';
}

/** Answers the part's oldest pending request faithfully, as in the StreamSync model. */
class Answer extends Step {
  constructor(
    part: AccountPart,
    readonly pick: number,
    readonly otherNumbering: boolean,
  ) {
    super(part);
  }
  act(m: Model, r: Real): void {
    const pm = m.parts[this.part];
    const q = pending(m, r, this.part);
    if (q === undefined) return;
    const call = r.fetcher.calls[q.index]!;
    answered.add(call);
    const { epoch, seq } = answerPoint(pm, q, this.pick, this.otherNumbering);
    call.resolve(pm.page(epoch, seq));
  }
  name = () => `answer(${this.part}, ${this.pick}${this.otherNumbering ? ', other numbering' : ''})`;
}

class Fail extends Step {
  act(m: Model, r: Real): void {
    const q = pending(m, r, this.part);
    if (q === undefined) return;
    const call = r.fetcher.calls[q.index]!;
    answered.add(call);
    call.reject(new RestTransportError('connection reset', {}));
  }
  name = () => `fail(${this.part})`;
}

class Tick extends Step {
  constructor(readonly ms: number) {
    super('account');
  }
  async act(_m: Model, r: Real): Promise<void> {
    await r.clock.advance(this.ms);
  }
  name = () => `tick(${this.ms})`;
}

const part = fc.constantFrom(...ACCOUNT_PARTS);

const commands: fc.Arbitrary<Cmd>[] = [
  fc.tuple(part, fc.nat(11)).map(([p, c]) => new Produce(p, c)),
  fc.tuple(part, fc.nat(11)).map(([p, c]) => new Produce(p, c)),
  fc.tuple(part, fc.integer({ min: 1, max: 4 })).map(([p, n]) => new Deliver(p, n)),
  fc.tuple(part, fc.integer({ min: 1, max: 4 })).map(([p, n]) => new Deliver(p, n)),
  fc.tuple(part, fc.constantFrom('gap', 'silent', 'invalid_update')).map(([p, how]) => new Skip(p, how as 'gap' | 'silent' | 'invalid_update')),
  part.map((p) => new Repeat(p)),
  part.map((p) => new Restart(p)),
  fc.constant(new Drop()),
  fc.tuple(part, fc.nat(), fc.boolean()).map(([p, pick, other]) => new Answer(p, pick, other)),
  fc.tuple(part, fc.nat(), fc.boolean()).map(([p, pick, other]) => new Answer(p, pick, other)),
  fc.tuple(part, fc.nat(), fc.boolean()).map(([p, pick, other]) => new Answer(p, pick, other)),
  part.map((p) => new Fail(p)),
  fc.integer({ min: 1, max: 700 }).map((ms) => new Tick(ms)),
];

/** Healthy rounds: every part's stream moves and is delivered, every request answered at the head, time passes. */
async function heal(m: Model, r: Real): Promise<void> {
  for (const p of ACCOUNT_PARTS) m.parts[p].queue.push(m.parts[p].produce(1, ++m.n));
  const done = () => r.account.status === 'live' && ACCOUNT_PARTS.every((p) => partSeq(r, p) === BigInt(m.parts[p].head));
  for (let round = 0; round === 0 || (round < 12 && !done()); round++) {
    for (const p of ACCOUNT_PARTS) deliver(m, r, p, m.parts[p].queue.length);
    await settle(40);
    noteRequests(m, r);
    check(m, r, `healing round ${round}`);
    for (const p of ACCOUNT_PARTS) {
      const pm = m.parts[p];
      for (let q = pending(m, r, p); q !== undefined; q = pending(m, r, p)) {
        answered.add(r.fetcher.calls[q.index]!);
        r.fetcher.calls[q.index]!.resolve(pm.page(pm.epoch, pm.head));
        await settle(40);
        noteRequests(m, r);
        check(m, r, `healing round ${round}`);
      }
    }
    await r.clock.advance(1000);
    noteRequests(m, r);
    check(m, r, `healing round ${round}`);
  }
  if (!done()) {
    const where = ACCOUNT_PARTS.map((p) => `${p} ${r.account.parts[p].status} at ${partSeq(r, p)} (head ${m.parts[p].head})`).join(', ');
    throw new Error(`not live at the head after healthy rounds: account ${r.account.status}; ${where}`);
  }
  const e = r.account.latest!;
  for (const p of ACCOUNT_PARTS) {
    const pm = m.parts[p];
    if (!pm.spec.equals(pm.spec.view(e.state), pm.now)) throw new Error(`healed, but part ${p} shows ${JSON.stringify(show(pm.spec.view(e.state)))}, the exchange ${JSON.stringify(show(pm.now))}`);
  }
}

describe('AccountReplica (model-based: live means every part exact)', () => {
  it(`against a faithful exchange that restarts numberings, per part: never live and wrong, and heals (${RUNS} runs, seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: 'max' }), async (cmds) => {
        const m = new Model();
        const r = new Real(m);
        try {
          for (const p of ACCOUNT_PARTS) r.streams[p].subscribed();
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

describe('AccountReplica (the model found)', () => {
  it('a part that turns live again is shown live with the state it brings, never with the one from before its resync', async () => {
    // The part's sync moves to live (status$) before it emits its new state (states$): the
    // account used to emit `live` in between, with the part's state from before the resync.
    const streams = Object.fromEntries(ACCOUNT_PARTS.map((p) => [p, new FakeStream()])) as Record<AccountPart, FakeStream>;
    const fetcher = new FakeFetcher();
    let positions = { rows: [position(1, 5)], seq: 0 };
    fetcher.auto = (op) => {
      switch (op) {
        case 'account':
          return { data: { address: ADDRESS, subaccounts: [subaccount(0)] }, sequence: '0' };
        case 'balances':
          return { data: [balance('USDC', 500)], sequence: '0' };
        case 'positions':
          return { data: positions.rows, sequence: String(positions.seq) };
        case 'orders':
          return { data: [order(1)], sequence: '0', next_cursor: null };
        default:
          return { data: [fill(1)], sequence: '0', next_cursor: null };
      }
    };
    const scheduler = new ResyncScheduler({ retry: fastRetry });
    const account = new AccountReplica({ address: ADDRESS, subaccount_id: 0 }, { source: fakeSource((c: ChannelName) => streams[c as AccountPart], fetcher), scheduler });
    const shownLive: string[] = [];
    account.states$.subscribe((e) => e.status === 'live' && shownLive.push(e.state.positions.get(1)!.size_base_lots));
    const statuses: string[] = [];
    account.status$.subscribe((c) => statuses.push(c.to));
    try {
      account.start();
      for (const p of ACCOUNT_PARTS) streams[p].subscribed();
      await waitFor(account.states$, (e) => e.status === 'live');
      // The exchange moves the position twice; the stream skips the first move and says so.
      positions = { rows: [position(1, 7)], seq: 1 };
      streams.positions.resyncRequired('gap');
      streams.positions.update(2, { positions: [position(1, 8)] });
      await waitFor(account.states$, (e) => e.status === 'live' && e.snapshotIds.positions === 2);
      expect(shownLive).toEqual(['5', '8']);
      expect(statuses).toEqual(['live', 'resyncing', 'live']);
      expect(account.latest).toMatchObject({ status: 'live', source: 'positions', cause: 'snapshot', reconciled: true });
      expect(account.latest!.changes).toEqual([{ kind: 'position', market_id: 1, before: position(1, 5), after: position(1, 8) }]);
    } finally {
      account.close();
      scheduler.close();
    }
  });
});
