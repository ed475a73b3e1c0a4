/**
 * The simulator of the lines benchmark, in its OWN process (so each client process's CPU is
 * its own): the real `Simulator`, its per-connection faults driven over IPC, and the time at
 * which each book update was published (the hub's event, before any frame delay), so a
 * client's latency can be taken from the exchange's event rather than from `timestamp_ns`
 * (which the simulator stamps when a delayed frame is finally written: it does not see the
 * jitter).
 *
 * IPC: `SimCommand` / `SimReply` (linesProtocol.ts); argv[2]: `SimArgs` as JSON.
 */
import { Simulator } from '../../src/simulator';
import { streamKey, type PriceLevel } from '../../src/protocol';
import { seededRandom } from '../lib/rng';
import type { BookStream, SimArgs, SimCommand, SimReply, SpikeSpec } from './linesProtocol';

const args = JSON.parse(process.argv[2] ?? '{}') as SimArgs;
const base = BigInt(args.baseHrNs);
const reply = (r: SimReply): void => void process.send!(r);

/** Event times of every book stream: `times[seq - first]`, hrtime ns since base. */
const events = new Map<string, { first: number; times: number[] }>();
let stalls = 0;
let spikeTimer: NodeJS.Timeout | undefined;

const sim = await Simulator.start({ ...args.options, host: '127.0.0.1', port: 0 });
const startedAt = performance.now();
const streams: BookStream[] = sim.engine.markets.map((m) => ({ key: streamKey('book', { market_id: m.market_id, is_perps: m.market_type === 'perp' }), market_type: m.market_type, market_id: m.market_id }));
const bookKeys = new Set(streams.map((s) => s.key));
sim.engine.hub.onEvent((e) => {
  if (!bookKeys.has(e.key)) return;
  const at = Number(process.hrtime.bigint() - base);
  const seq = Number(e.seq);
  let rec = events.get(e.key);
  if (!rec) events.set(e.key, (rec = { first: seq, times: [] }));
  rec.times[seq - rec.first] = at;
});

/**
 * Each connection stalls at the times of its own seeded Poisson process (generator seeded by
 * the spec's seed and the connection id), for a uniform draw in [minMs, maxMs).
 */
function startSpikes(spec: SpikeSpec): void {
  const perConn = new Map<number, { rand: () => number; nextAt: number }>();
  const expo = (rand: () => number) => -Math.log(1 - rand()) * spec.meanEveryMs;
  spikeTimer = setInterval(() => {
    const now = performance.now();
    const open = new Set(sim.faults.connectionIds());
    for (const id of perConn.keys()) if (!open.has(id)) perConn.delete(id);
    for (const id of open) {
      let s = perConn.get(id);
      if (!s) {
        const rand = seededRandom((spec.seed ^ Math.imul(id, 0x9e3779b9)) >>> 0);
        perConn.set(id, (s = { rand, nextAt: now + expo(rand) }));
      }
      if (now < s.nextAt) continue;
      const ms = spec.minMs + s.rand() * (spec.maxMs - spec.minMs);
      sim.faults.stallConnection(ms, id);
      stalls++;
      s.nextAt = now + ms + expo(s.rand);
    }
  }, 2);
}

function handle(cmd: SimCommand): SimReply {
  switch (cmd.cmd) {
    case 'streams':
      return { type: 'streams', streams: streams.map((s) => ({ ...s, published: events.get(s.key)?.times.length ?? 0 })), sinceStartMs: performance.now() - startedAt };
    case 'jitter':
      sim.faults.delayFrames(cmd.ms, { jitterMs: cmd.jitterMs });
      return { type: 'ok' };
    case 'spikes':
      if (spikeTimer) clearInterval(spikeTimer);
      spikeTimer = undefined;
      if (cmd.spec) startSpikes(cmd.spec);
      return { type: 'ok' };
    case 'connections':
      return { type: 'connections', connections: sim.faults.connections().map((c) => ({ id: c.id, keys: c.subscriptions.map((s) => s.key) })) };
    case 'drop':
      return { type: 'dropped', done: sim.faults.dropConnection(cmd.id) };
    case 'events': {
      const rec = events.get(cmd.key);
      const times: number[] = [];
      for (let seq = cmd.from; seq <= cmd.to; seq++) times.push(rec?.times[seq - rec.first] ?? NaN);
      return { type: 'events', times };
    }
    case 'pause':
      sim.pause();
      return { type: 'ok' };
    case 'truthBook': {
      const t = sim.truth('orderBook', { market_type: cmd.market_type, market_id: cmd.market_id, depth: cmd.depth });
      if (t.status !== 200) return { type: 'error', message: `truth orderBook answered ${t.status}` };
      const body = t.body as { data: { bids: PriceLevel[]; asks: PriceLevel[] }; sequence: string };
      const pairs = (ls: PriceLevel[]) => ls.map((l): [string, string] => [l.price_ticks, l.size_base_lots]);
      return { type: 'truthBook', seq: body.sequence, bids: pairs(body.data.bids), asks: pairs(body.data.asks) };
    }
    case 'stats': {
      const cpu = process.cpuUsage();
      return { type: 'stats', cpuUs: cpu.user + cpu.system, overflowDrops: sim.faults.overflowDrops(), stalls, faults: { ...sim.faults.stats().byKind } };
    }
    case 'exit':
      if (spikeTimer) clearInterval(spikeTimer);
      void sim.stop().finally(() => process.exit(0));
      return { type: 'ok' };
  }
}

process.on('message', (cmd: SimCommand) => {
  try {
    reply(handle(cmd));
  } catch (e) {
    reply({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
});
// The benchmark owns this process: when it goes, so does the simulator.
process.on('disconnect', () => process.exit(0));
reply({ type: 'ready', restUrl: sim.restUrl, wsUrl: sim.wsUrl });
