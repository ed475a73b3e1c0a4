/**
 * Two lines, one truth: two raw WebSocket clients of one Simulator (real engine, real
 * sockets on 127.0.0.1) on the same book stream, faulted one at a time by connection id.
 * The healthy line gets every seq contiguously; the faulted one shows the fault; both carry
 * the same data under the same seq.
 */
import { streamKey, type Scope } from '../../../src/protocol';
import { Simulator } from '../../../src/simulator';
import { TestClient, type Frame } from '../feed/feedHarness';

describe('Simulator: faulting one line of an A/B pair', () => {
  let sim: Simulator;
  let a: TestClient;
  let b: TestClient;
  let sa: string;
  let sb: string;
  let ida: number;
  let idb: number;
  let scope: Scope;
  let key: string;

  beforeEach(async () => {
    sim = await Simulator.start({ seed: 11, faultSeed: 5, paused: true });
    const market = sim.engine.markets.find((m) => m.market_type === 'perp' && m.status === 'active')!;
    scope = { market_id: market.market_id, is_perps: true };
    key = streamKey('book', scope);
    a = await TestClient.connect(sim.wsUrl);
    b = await TestClient.connect(sim.wsUrl);
    sa = await a.subscribe('book', scope);
    sb = await b.subscribe('book', scope);
    const idOf = (sub: string) => sim.faults.connections().find((c) => c.subscriptions.some((s) => s.id === sub))!.id;
    ida = idOf(sa);
    idb = idOf(sb);
  });
  afterEach(async () => {
    a.terminate();
    b.terminate();
    await sim.stop();
  });

  /** Steps the order flow until the stream has published `n` more updates; returns the last seq. */
  const advance = (n: number): bigint => {
    const target = sim.engine.hub.seq(key) + BigInt(n);
    for (let steps = 0; sim.engine.hub.seq(key) < target; steps++) {
      if (steps > 100_000) throw new Error('the order flow did not move the book');
      sim.step(1);
    }
    return sim.engine.hub.seq(key);
  };
  const seqs = (frames: Frame[]) => frames.map((f) => BigInt(f.seq as string));
  const contiguous = (from: bigint, to: bigint) => Array.from({ length: Number(to - from + 1n) }, (_, i) => from + BigInt(i));
  const streamFrames = (c: TestClient, sub: string) => c.frames.filter((f) => f.subscription_id === sub && (f.type === 'update' || f.type === 'resync_required'));
  const expectSameData = (faulted: Frame[], healthy: Frame[]) => {
    const bySeq = new Map(healthy.map((f) => [f.seq as string, f.data as unknown]));
    for (const f of faulted) {
      expect(bySeq.has(f.seq as string)).toBe(true);
      expect(f.data).toEqual(bySeq.get(f.seq as string));
    }
  };

  it('skipSilently on line A: A jumps, B gets every seq; resyncStream on line B: B resyncs, A gets every seq', async () => {
    const start = sim.engine.hub.seq(key) + 1n;
    const s1 = advance(3);
    expect(sim.faults.skipSilently(key, 4, ida)).toBe(true);
    const s2 = advance(10);
    await Promise.all([a.roundTrip(), b.roundTrip()]);
    expect(seqs(b.updates(sb))).toEqual(contiguous(start, s2));
    expect(seqs(a.updates(sa))).toEqual([...contiguous(start, s1), ...contiguous(s1 + 5n, s2)]);
    expectSameData(a.updates(sa), b.updates(sb));

    expect(sim.faults.resyncStream(key, 2, idb)).toBe(true);
    const s3 = advance(6);
    await Promise.all([a.roundTrip(), b.roundTrip()]);
    expect(seqs(a.updates(sa)).filter((s) => s > s2)).toEqual(contiguous(s2 + 1n, s3));
    const bTail = streamFrames(b, sb).filter((f) => f.type === 'resync_required' || BigInt(f.seq as string) > s2);
    expect(bTail.map((f) => (f.type === 'update' ? BigInt(f.seq as string) : 'gap'))).toEqual(['gap', ...contiguous(s2 + 3n, s3)]);
    expect(a.frames.filter((f) => f.type === 'resync_required')).toEqual([]);
    expectSameData(b.updates(sb).filter((f) => BigInt(f.seq as string) > s2), a.updates(sa));
    expect([...a.invalid, ...b.invalid]).toEqual([]);
  });

  it('delayConnection with jitter on line B: B gets every seq in order, late; A is untouched', async () => {
    const start = sim.engine.hub.seq(key) + 1n;
    expect(sim.faults.delayConnection(idb, { ms: 5, jitterMs: 40 })).toBe(true);
    const last = advance(50);
    await a.roundTrip();
    expect(seqs(a.updates(sa))).toEqual(contiguous(start, last));
    await b.waitFor((f) => f.type === 'update' && f.seq === String(last));
    expect(seqs(b.updates(sb))).toEqual(contiguous(start, last));
    expectSameData(b.updates(sb), a.updates(sa));
    // Each of B's updates left no earlier than A's of the same seq (stamped when written).
    const sentA = new Map(a.updates(sa).map((f) => [f.seq as string, BigInt(f.timestamp_ns as string)]));
    for (const f of b.updates(sb)) expect(BigInt(f.timestamp_ns as string)).toBeGreaterThanOrEqual(sentA.get(f.seq as string)!);
  });

  it('delayFrames with jitter: both lines get every seq in order, each with its own draws', async () => {
    const start = sim.engine.hub.seq(key) + 1n;
    sim.faults.delayFrames(1, { jitterMs: 20 });
    const last = advance(40);
    const done = (c: TestClient) => c.waitFor((f) => f.type === 'update' && f.seq === String(last));
    await Promise.all([done(a), done(b)]);
    expect(seqs(a.updates(sa))).toEqual(contiguous(start, last));
    expect(seqs(b.updates(sb))).toEqual(contiguous(start, last));
    expectSameData(b.updates(sb), a.updates(sa));
    sim.faults.clear();
    const more = advance(2);
    await Promise.all([a.roundTrip(), b.roundTrip()]);
    expect(seqs(a.updates(sa)).at(-1)).toBe(more);
  });
});
