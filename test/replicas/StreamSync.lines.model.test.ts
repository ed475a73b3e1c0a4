/**
 * The model-based test of StreamSync (StreamSync.model.test.ts) with a second line: the
 * replica's source is an ArbitratedSource over two hand-driven streams, each with its own
 * socket queue that the model faults on its own (drop, skip said or silent, undecodable,
 * delivery order and lag), and both losing the same seq. After every step: a `live` replica
 * equals the exchange's state at its seq; at the end, healthy rounds make it live at the head.
 * And the class of one-line faults costs no snapshot: with faults on one line at a time and
 * the other line whole, the replica never leaves `live` after its first snapshot.
 */
import fc from 'fast-check';
import { ArbitratedSource } from '../../src/client/ArbitratedSource';
import { RestTransportError } from '../../src/errors';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { StreamSync } from '../../src/replicas/StreamSync';
import { ManualClock } from '../helpers/ManualClock';
import { FakeFetcher, FakeStream, fakeSource, settle } from './fixtures';
import { bboScope } from './SyncHarness';
import { ModelExchange, hashReducer, type Delivery, type HashState } from './syncModel';


const RUNS = Number(process.env.MODEL_RUNS ?? 1000);
const SEED = Number(process.env.MODEL_SEED ?? 20261128);
const WINDOW_MS = 50;

class Lines {
  readonly clock = new ManualClock();
  readonly streams = [new FakeStream(), new FakeStream()];
  readonly queues: Delivery[][] = [[], []];
  readonly up = [true, true];
  readonly fetcher = new FakeFetcher();
  readonly scheduler = new ResyncScheduler({ retry: { initialDelayMs: 10, maxDelayMs: 40, factor: 2, jitter: 0, retries: 2 } });
  readonly source: ArbitratedSource;
  readonly sync: StreamSync<HashState>;
  readonly m = new ModelExchange();
  /** Highest numbering each line delivered. */
  readonly shown = [0, 0];
  answeredUpTo = 0;
  resyncsSeen = 0;

  constructor() {
    this.source = new ArbitratedSource(
      this.streams.map((s) => fakeSource(s, this.fetcher)),
      { gapWindowMs: WINDOW_MS, maxHeldUpdates: 100, maxHeldBytes: 1 << 20, clock: this.clock, retryAfterMs: 100 },
    );
    this.sync = new StreamSync<HashState>(
      { channel: 'bbo', scope: bboScope, reducer: hashReducer, source: this.source, scheduler: this.scheduler },
      { clock: this.clock, retryAfterMs: 100, snapshotAheadMs: 500, random: () => 0.5, onError: () => undefined },
    );
    this.sync.status$.subscribe((c) => {
      if (c.from === 'live') this.resyncsSeen++;
    });
    this.sync.start();
    for (const s of this.streams) s.subscribed();
  }

  get shownEpoch(): number {
    return Math.max(...this.shown);
  }

  deliver(line: number, n: number): void {
    const q = this.queues[line]!;
    for (let k = 0; k < n && q.length > 0; k++) {
      const d = q.shift()!;
      if (d.kind === 'update') {
        this.shown[line] = Math.max(this.shown[line]!, d.epoch);
        this.streams[line]!.update(d.seq, { v: d.v });
      } else this.streams[line]!.resyncRequired(d.reason);
    }
  }

  /** Answers every pending request from the newest numbering the lines showed, at or after its head then. */
  answer(pick: number): void {
    const calls = this.fetcher.calls;
    for (; this.answeredUpTo < calls.length; this.answeredUpTo++) {
      const call = calls[this.answeredUpTo]!;
      if (call.signal.aborted) continue;
      const epoch = this.shownEpoch;
      const len = this.m.logs[epoch]!.length;
      call.resolve(this.m.page(epoch, len - 1 - (pick % Math.min(2, len))));
      this.answeredUpTo++;
      return;
    }
  }

  check(what: string): void {
    if (this.sync.status !== 'live') return;
    const e = this.sync.latest!;
    const truth = this.m.truth(this.shownEpoch, e.seq);
    if (truth !== e.state.h) throw new Error(`live and wrong after ${what}: seq ${e.seq}, exchange ${truth ?? 'has no such seq'}`);
  }

  close(): void {
    this.sync.close();
    this.scheduler.close();
  }
}

type Fault = { kind: 'produce'; n: number } | { kind: 'deliver'; line: number; n: number } | { kind: 'skip'; line: number | 'both'; how: 'gap' | 'silent' | 'invalid_update' } | { kind: 'drop'; line: number } | { kind: 'answer'; pick: number } | { kind: 'fail' } | { kind: 'tick'; ms: number };

const line = fc.integer({ min: 0, max: 1 });
const step = (withBoth: boolean): fc.Arbitrary<Fault> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => ({ kind: 'produce', n }) as Fault) },
    { weight: 6, arbitrary: fc.tuple(line, fc.integer({ min: 1, max: 4 })).map(([l, n]) => ({ kind: 'deliver', line: l, n }) as Fault) },
    { weight: 2, arbitrary: fc.tuple(withBoth ? fc.oneof(line, fc.constant('both' as const)) : line, fc.constantFrom('gap', 'silent', 'invalid_update' as const)).map(([l, how]) => ({ kind: 'skip', line: l, how }) as Fault) },
    { weight: 1, arbitrary: line.map((l) => ({ kind: 'drop', line: l }) as Fault) },
    { weight: 3, arbitrary: fc.nat().map((pick) => ({ kind: 'answer', pick }) as Fault) },
    { weight: 1, arbitrary: fc.constant({ kind: 'fail' } as Fault) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 200 }).map((ms) => ({ kind: 'tick', ms }) as Fault) },
  );

async function run(r: Lines, f: Fault): Promise<void> {
  const m = r.m;
  switch (f.kind) {
    case 'produce':
      for (let k = 0; k < f.n; k++) {
        const u = m.produce();
        for (const q of r.queues) q.push(u);
      }
      break;
    case 'deliver':
      r.deliver(f.line, f.n);
      break;
    case 'skip': {
      const u = m.produce(); // not delivered on the faulted line(s)
      for (let l = 0; l < 2; l++) {
        if (f.line === 'both' || f.line === l) {
          if (f.how !== 'silent') r.queues[l]!.push({ kind: 'resync_required', reason: f.how });
        } else r.queues[l]!.push(u);
      }
      break;
    }
    case 'drop':
      r.queues[f.line] = [];
      r.streams[f.line]!.disconnected('dropped');
      r.streams[f.line]!.subscribed();
      r.shown[f.line] = m.epoch;
      break;
    case 'answer':
      r.answer(f.pick);
      break;
    case 'fail': {
      const call = r.fetcher.calls.slice(r.answeredUpTo).find((c) => !c.signal.aborted);
      if (call !== undefined) {
        r.answeredUpTo = r.fetcher.calls.indexOf(call) + 1;
        call.reject(new RestTransportError('reset', {}));
      }
      break;
    }
    case 'tick':
      await r.clock.advance(f.ms);
      break;
  }
  await settle(40);
  r.check(JSON.stringify(f));
}

async function heal(r: Lines): Promise<void> {
  const u = r.m.produce();
  for (const q of r.queues) q.push(u);
  for (let round = 0; round < 12; round++) {
    r.deliver(0, r.queues[0]!.length);
    r.deliver(1, r.queues[1]!.length);
    await settle(40);
    r.check('healing');
    await r.clock.advance(WINDOW_MS + 1);
    for (let k = 0; k < 5; k++) {
      r.answer(0);
      await settle(40);
      r.check('healing');
    }
    await r.clock.advance(1000);
    const e = r.sync.latest;
    if (r.sync.status === 'live' && e?.seq === BigInt(r.m.head)) break;
  }
  const e = r.sync.latest;
  if (r.sync.status !== 'live' || e?.seq !== BigInt(r.m.head) || e.state.h !== r.m.truth(r.m.epoch, BigInt(r.m.head))) {
    throw new Error(`not live and exact after healthy rounds: ${r.sync.status} at ${e?.seq}, exchange head ${r.m.head}`);
  }
}

describe('StreamSync over two lines (model-based)', () => {
  it(`is never live and wrong, each line and both faulted, and heals (${RUNS} runs, seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step(true), { maxLength: 40 }), async (faults) => {
        const r = new Lines();
        try {
          await settle(40);
          for (const f of faults) await run(r, f);
          await heal(r);
        } finally {
          r.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it(`one line faulted at a time, the other whole (and within the window): once live, never leaves live and never fetches again (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1 }), fc.array(step(false), { maxLength: 40 }), async (faulty, faults) => {
        const r = new Lines();
        try {
          // First snapshot, both lines whole and flowing (the arbiter knows where the stream is).
          await settle(40);
          r.answer(0);
          await run(r, { kind: 'produce', n: 1 });
          r.deliver(0, 1);
          r.deliver(1, 1);
          await settle(40);
          if (r.sync.status !== 'live') throw new Error(`not live after the first snapshot: ${r.sync.status}`);
          const fetched = r.fetcher.calls.length;
          for (const f of faults) {
            // Only the faulty line is dropped or skipped; the whole line delivers everything it has, in time.
            if ((f.kind === 'skip' || f.kind === 'drop') && f.line !== faulty) continue;
            if (f.kind === 'answer' || f.kind === 'fail') continue;
            // The whole line may lag the faulty one, but never by the window: it delivers all it has before time passes.
            if (f.kind === 'tick') r.deliver(1 - faulty, r.queues[1 - faulty]!.length);
            await run(r, f);
            if (r.sync.status !== 'live') throw new Error(`left live after ${JSON.stringify(f)} on line ${faulty}`);
          }
          if (r.fetcher.calls.length !== fetched) throw new Error(`fetched ${r.fetcher.calls.length - fetched} snapshot(s)`);
          await heal(r);
        } finally {
          r.close();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
