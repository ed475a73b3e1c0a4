import { get } from 'node:http';
import { connect } from 'node:net';
import { CommanderError } from 'commander';
import { simulateCommand } from '../../src/cli/simulateCommand';
import { streamKey, type OrderBook, type PriceLevel } from '../../src/protocol';
import { Simulator, SimulatorOptionError } from '../../src/simulator';
import { TestClient, type Frame } from './feed/feedHarness';

/** GET without keep-alive: status and parsed body. */
function getJson(url: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    }).on('error', reject);
  });
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(true));
  });
}

/** Applies book updates (absolute sizes, "0" removes) to a level map. */
function applyLevels(side: Map<string, string>, levels: readonly PriceLevel[]): void {
  for (const l of levels) {
    if (l.size_base_lots === '0') side.delete(l.price_ticks);
    else side.set(l.price_ticks, l.size_base_lots);
  }
}
function top(side: Map<string, string>, n: number, bids: boolean): PriceLevel[] {
  return [...side.entries()]
    .sort(([a], [b]) => (bids ? Number(BigInt(b) - BigInt(a)) : Number(BigInt(a) - BigInt(b))))
    .slice(0, n)
    .map(([price_ticks, size_base_lots]) => ({ price_ticks, size_base_lots }));
}

describe('Simulator', () => {
  const sims: Simulator[] = [];
  const clients: TestClient[] = [];
  const start = async (...args: Parameters<typeof Simulator.start>) => {
    const sim = await Simulator.start(...args);
    sims.push(sim);
    return sim;
  };
  const connectTo = async (sim: Simulator) => {
    const c = await TestClient.connect(sim.wsUrl);
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    for (const c of clients.splice(0)) c.terminate();
    for (const s of sims.splice(0)) await s.stop();
  });

  it('starts on a free port of 127.0.0.1, is ready (GET /v1/status 200), and releases the port on stop', async () => {
    const sim = await start({ paused: true });
    expect(sim.restUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sim.wsUrl).toBe(`${sim.restUrl.replace('http', 'ws')}/ws`);
    expect((await getJson(`${sim.restUrl}/v1/status`)).status).toBe(200);
    const c = await connectTo(sim);
    await c.roundTrip();
    await sim.stop();
    await sim.stop();
    expect((await c.closed).code).toBe(1006);
    expect(await portRefuses(sim.port)).toBe(true);
  });

  it('rejects out-of-range options before listening', async () => {
    await expect(Simulator.start({ eventsPerSecond: -1 })).rejects.toThrow(SimulatorOptionError);
    await expect(Simulator.start({ rest500Rate: 2 })).rejects.toThrow(/rest500Rate/);
    await expect(Simulator.start({ port: 70000 })).rejects.toThrow(/port/);
  });

  it('fails to start with ERR_SIMULATOR_START when the port is taken', async () => {
    const sim = await start({ paused: true });
    await expect(Simulator.start({ port: sim.port, paused: true })).rejects.toMatchObject({ code: 'ERR_SIMULATOR_START' });
  });

  it('runs the order flow on its own, and pause/step/resume control it', async () => {
    const sim = await start({ seed: 2, eventsPerSecond: 2000 });
    expect(sim.running).toBe(true);
    const market = sim.engine.markets.find((m) => m.market_type === 'perp')!;
    const scope = { market_id: market.market_id, is_perps: true };
    const c = await connectTo(sim);
    await c.subscribe('book', scope);
    await c.waitForCount((f) => f.type === 'update', 3);
    sim.pause();
    expect(sim.running).toBe(false);
    const key = streamKey('book', scope);
    const seq = sim.engine.hub.seq(key);
    let steps = 0;
    while (sim.engine.hub.seq(key) === seq && steps < 10_000) {
      sim.step(10);
      steps += 10;
    }
    expect(sim.engine.hub.seq(key)).toBeGreaterThan(seq);
    const last = String(sim.engine.hub.seq(key));
    await c.waitFor((f) => f.type === 'update' && f.seq === last);
    sim.resume();
    expect(sim.running).toBe(true);
    await c.waitFor((f) => f.type === 'update' && BigInt(f.seq) > BigInt(last));
    expect(c.invalid).toEqual([]);
  });

  it('changes every active market\'s book several times per second of default order flow', async () => {
    const sim = await start({ paused: true });
    const eventsPerSecond = sim.options.eventsPerSecond;
    const active = sim.engine.markets.filter((m) => m.status === 'active');
    expect(active.filter((m) => m.market_type === 'spot').length).toBeGreaterThanOrEqual(2);
    expect(active.filter((m) => m.market_type === 'perp').length).toBeGreaterThanOrEqual(2);
    const keys = active.map((m) => streamKey('book', { market_id: m.market_id, is_perps: m.market_type === 'perp' }));
    const before = keys.map((k) => sim.engine.hub.seq(k));
    sim.step(eventsPerSecond);
    keys.forEach((k, i) => expect(sim.engine.hub.seq(k) - before[i]!).toBeGreaterThanOrEqual(3n));
  });

  it('places and cancels orders through the engine, visible in the truth and on the orders stream', async () => {
    const sim = await start({ paused: true });
    const account = sim.engine.accounts[0]!;
    const subaccount_id = account.subaccount_ids[0]!;
    const market = sim.engine.markets.find((m) => m.market_type === 'perp' && m.status === 'active')!;
    const c = await connectTo(sim);
    const sub = await c.subscribe('orders', { address: account.address, subaccount_id });
    const book = sim.truth('orderBook', { market_type: 'perp', market_id: market.market_id, depth: 1 }).body as { data: OrderBook };
    const farBid = String(BigInt(book.data.bids[0]!.price_ticks) / 2n);
    const { order, fills } = sim.placeOrder({ address: account.address, subaccount_id, market_type: 'perp', market_id: market.market_id, side: 'bid', price_ticks: farBid, size_base_lots: '1', client_order_id: '77' });
    expect(fills).toEqual([]);
    expect(order).toMatchObject({ status: 'open', price_ticks: farBid, client_order_id: '77' });
    const placed = await c.waitFor((f) => f.subscription_id === sub && f.type === 'update' && f.data.orders.some((o: Frame) => o.order_id === order.order_id));
    expect(placed.data.orders.find((o: Frame) => o.order_id === order.order_id).status).toBe('open');
    const active = sim.truth('orders', { address: account.address, subaccount_id, status: 'active', limit: 100 });
    expect(active.status).toBe(200);
    expect((active.body as { data: { order_id: string }[] }).data.map((o) => o.order_id)).toContain(order.order_id);

    const cancelled = sim.cancelOrder({ address: account.address, subaccount_id, order_id: order.order_id });
    expect(cancelled?.status).toBe('cancelled');
    await c.waitFor((f) => f.subscription_id === sub && f.type === 'update' && f.data.orders.some((o: Frame) => o.order_id === order.order_id && o.status === 'cancelled'));
    expect(sim.cancelOrder({ address: account.address, subaccount_id, order_id: order.order_id })).toBeUndefined();
  });

  it('aligns REST snapshots with the stream: sequence S, then updates from S+1 rebuild the true book', async () => {
    const sim = await start({ seed: 5, eventsPerSecond: 3000 });
    const market = sim.engine.markets.find((m) => m.market_type === 'perp' && m.status === 'active')!;
    const scope = { market_id: market.market_id, is_perps: true };
    const c = await connectTo(sim);
    const sub = await c.subscribe('book', scope);
    await c.waitFor((f) => f.type === 'update');
    const snap = await getJson(`${sim.restUrl}/v1/orderBook?market_type=perp&market_id=${market.market_id}&depth=500`);
    expect(snap.status).toBe(200);
    const S = BigInt(snap.body.sequence);
    await c.waitFor((f) => f.type === 'update' && BigInt(f.seq) > S + 20n);
    sim.pause();
    await c.roundTrip();

    const after = c.updates(sub).filter((f) => BigInt(f.seq) > S);
    expect(after[0]!.seq).toBe(String(S + 1n));
    after.forEach((f, i) => expect(f.seq).toBe(String(S + 1n + BigInt(i))));
    const bids = new Map<string, string>();
    const asks = new Map<string, string>();
    applyLevels(bids, snap.body.data.bids);
    applyLevels(asks, snap.body.data.asks);
    for (const f of after) {
      applyLevels(bids, f.data.bids);
      applyLevels(asks, f.data.asks);
    }
    const truth = sim.truth('orderBook', { market_type: 'perp', market_id: market.market_id, depth: 100 }).body as { data: OrderBook; sequence: string };
    expect(truth.sequence).toBe(after.at(-1)!.seq);
    expect(top(bids, 100, true)).toEqual(truth.data.bids);
    expect(top(asks, 100, false)).toEqual(truth.data.asks);
    expect(c.invalid).toEqual([]);
  });

  it('applies fault options: feed unavailable, REST 500 rate and the fault injector on a live simulator', async () => {
    const down = await start({ paused: true, feedUnavailable: true, rest500Rate: 1 });
    const refused = await connectTo(down);
    expect((await refused.closed).code).toBe(1000);
    expect(refused.frames.map((f) => f.code)).toEqual(['FEED_UNAVAILABLE']);
    const failed = await getJson(`${down.restUrl}/v1/status`);
    expect(failed.status).toBe(500);
    expect(failed.body.code).toBe('INTERNAL_ERROR');
    down.faults.clear();
    expect((await getJson(`${down.restUrl}/v1/status`)).status).toBe(200);

    const sim = await start({ paused: true });
    const market = sim.engine.markets.find((m) => m.market_type === 'perp' && m.status === 'active')!;
    const scope = { market_id: market.market_id, is_perps: true };
    const c = await connectTo(sim);
    const sub = await c.subscribe('book', scope);
    sim.faults.resyncStream(streamKey('book', scope));
    const key = streamKey('book', scope);
    const start0 = sim.engine.hub.seq(key);
    for (let i = 0; i < 10_000 && sim.engine.hub.seq(key) < start0 + 2n; i++) sim.step(1);
    const resync = await c.waitFor((f) => f.type === 'resync_required');
    expect(resync).toMatchObject({ subscription_id: sub, reason: 'gap' });
    const next = await c.waitFor((f) => f.type === 'update');
    expect(BigInt(next.seq)).toBe(start0 + 2n);
    expect(sim.faults.connections()[0]!.subscriptions[0]!.key).toBe(key);
  });
});

describe('Simulator under random faults', () => {
  it('injects seeded random stream faults into a live feed, seen by the client as resyncs or seq jumps', async () => {
    const sim = await Simulator.start({ seed: 4, eventsPerSecond: 2000 });
    const c = await TestClient.connect(sim.wsUrl);
    try {
      const market = sim.engine.markets.find((m) => m.market_type === 'perp' && m.status === 'active')!;
      const sub = await c.subscribe('book', { market_id: market.market_id, is_perps: true });
      let seen = 0;
      let enough!: () => void;
      const done = new Promise<void>((resolve) => (enough = resolve));
      const schedule = sim.faults.randomFaults({ ratePerSecond: 100, seed: 8, kinds: ['resyncStream', 'skipSilently'], onFault: () => ++seen === 5 && enough() });
      await done;
      schedule.stop();
      const stats = schedule.stats();
      expect(stats.total + stats.skipped).toBe(5);
      expect(stats.byKind.resyncStream + stats.byKind.skipSilently).toBe(stats.total);
      expect(stats.total).toBeGreaterThan(0);
      // Every fault skips updates of the only subscribed stream: the client sees a resync or a seq jump.
      // Enough further events that every pending skip is consumed, then everything sent has arrived.
      sim.pause();
      sim.step(3000);
      await c.roundTrip();
      const frames = c.frames.filter((f) => f.subscription_id === sub && (f.type === 'update' || f.type === 'resync_required'));
      const seqs = frames.filter((f) => f.type === 'update').map((f) => BigInt(f.seq));
      const jumps = seqs.slice(1).filter((s, i) => s !== seqs[i]! + 1n).length;
      expect(jumps).toBeGreaterThan(0);
      expect(frames.filter((f) => f.type === 'resync_required').length).toBeLessThanOrEqual(stats.byKind.resyncStream);
      expect(sim.faults.stats().total).toBe(stats.total);
    } finally {
      c.terminate();
      await sim.stop();
    }
  });
});

describe('simulate command', () => {
  const run = async (args: string[]) => {
    let out = '';
    let err = '';
    const cmd = simulateCommand({ write: (t) => void (out += t) })
      .exitOverride()
      .configureOutput({ writeOut: (t) => void (out += t), writeErr: (t) => void (err += t) });
    let error: unknown;
    try {
      await cmd.parseAsync(args, { from: 'user' });
    } catch (e) {
      error = e;
    }
    return { out, err, error };
  };

  it('rejects bad flags with a message naming the flag', async () => {
    for (const [args, flag] of [
      [['--port', 'abc'], '--port'],
      [['--port', '70000'], '--port'],
      [['--rest-500-rate', '1.5'], '--rest-500-rate'],
      [['--heartbeat-timeout-ms', '0'], '--heartbeat-timeout-ms'],
      [['--events-per-second', '-3'], '--events-per-second'],
      [['--random-fault-kinds', 'dropAll,explode'], 'explode'],
      [['--no-such-flag'], '--no-such-flag'],
    ] as const) {
      const { err, error } = await run([...args]);
      expect(error).toBeInstanceOf(CommanderError);
      expect(err).toContain(flag);
    }
  });

  it('documents every fault flag with examples in --help', async () => {
    const { out, error } = await run(['--help']);
    expect((error as CommanderError).code).toBe('commander.helpDisplayed');
    for (const flag of ['--port', '--host', '--seed', '--heartbeat-timeout-ms', '--events-per-second', '--max-queue-bytes', '--fault-seed', '--rest-500-rate', '--rest-latency-ms', '--feed-unavailable', '--delay-frames-ms', '--random-faults-per-second', '--random-fault-kinds']) {
      expect(out).toContain(flag);
    }
    expect(out).toContain('Examples:');
  });

  it('starts a simulator, prints its URLs, and stops on shutdown', async () => {
    let out = '';
    let stop!: () => Promise<void>;
    let sim!: Simulator;
    await simulateCommand({ write: (t) => void (out += t), onStarted: (s, shutdown) => ((sim = s), (stop = shutdown)) }).parseAsync(
      ['--port', '0', '--seed', '9', '--paused', '--heartbeat-timeout-ms', '5000', '--rest-latency-ms', '1'],
      { from: 'user' },
    );
    try {
      const restUrl = /^restUrl (\S+)$/m.exec(out)![1]!;
      const wsUrl = /^wsUrl (\S+)$/m.exec(out)![1]!;
      expect(restUrl).toBe(sim.restUrl);
      expect(wsUrl).toBe(sim.wsUrl);
      expect(sim.options).toMatchObject({ seed: 9, paused: true, heartbeatTimeoutMs: 5000, restLatencyMs: 1 });
      expect((await getJson(`${restUrl}/v1/status`)).status).toBe(200);
    } finally {
      await stop();
    }
    expect(await portRefuses(sim.port)).toBe(true);
  });
});
