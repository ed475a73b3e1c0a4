/**
 * A consumer process of the bus tests: a BusClient holding a ReplicaFleet (books, BBO,
 * stats, trades, funding, an account), driven by lines on stdin, answering JSON lines:
 * - `status`: {type:'status', allLive, notLive, sawStale, resyncs, relays (the relay ids its heartbeats list), errors}
 * - `reset`: forgets that a replica was seen stale
 * - `exit`: closes the client (its JetStream consumers are deleted), then exits
 * - `outages`: the intervals (wall-clock ms) during which some replica was not live, since the
 *   fleet was first all live: {type:'outages', outages: [[from, to or null], ...]}
 * - `checkpoint`: with the simulator paused, the fleet's checkpoint against the truth (read
 *   from the simulator's REST API, which answers from the same engine): {type:'checkpoint', ...};
 *   `checkpoint <ms>` waits up to that long for the replicas to converge (default 20 s)
 * Args: natsUrl prefix simRestUrl specJson.
 */
import { createInterface } from 'node:readline';
import { BusClient } from '../../src/nats';
import { OPERATIONS, type OperationName, type ParamValues } from '../../src/protocol';
import type { Simulator } from '../../src/simulator';
import { ReplicaFleet, type FleetSpec } from '../e2e/ReplicaFleet';
import { WAIT_MS } from '../helpers/deadlines';

const [natsUrl, prefix, simRestUrl, specJson] = process.argv.slice(2) as [string, string, string, string];
const spec = JSON.parse(specJson) as FleetSpec;
const errors: string[] = [];
const client = new BusClient({ natsUrl, prefix, replica: { livenessMs: 0 }, onError: (e) => errors.push(String(e)) });
client.errors$.subscribe((e) => errors.push(`${e.code}: ${e.message}`));
const fleet = new ReplicaFleet(client, spec).start();
let sawStale = false;
const staleSeen: string[] = [];
fleet.changed$.subscribe(() => {
  for (const t of fleet.states) {
    if (t.latest?.status !== 'stale') continue;
    if (!sawStale) staleSeen.push(`${new Date().toISOString()} ${t.label} ${t.latest.code}`);
    sawStale = true;
  }
  if (fleet.accounts.some((t) => t.latest?.status === 'stale')) sawStale = true;
});

/** Since the fleet was first all live: each interval some replica was not (the last one open while it lasts). */
const outages: [number, number | null][] = [];
let everLive = false;
fleet.changed$.subscribe(() => {
  const open = outages.at(-1);
  if (fleet.allLive()) {
    everLive = true;
    if (open !== undefined && open[1] === null) open[1] = Date.now();
  } else if (everLive && (open === undefined || open[1] !== null)) outages.push([Date.now(), null]);
});

const out = (v: object): void => void process.stdout.write(`${JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x))}\n`);

class Miss extends Error {
  constructor(
    readonly key: string,
    readonly op: OperationName,
    readonly params: ParamValues,
  ) {
    super(`truth not fetched yet: ${key}`);
  }
}
const cache = new Map<string, { status: number; body: unknown }>();
const truthProxy = {
  truth(op: OperationName, params: ParamValues = {}): { status: number; body: unknown } {
    const key = `${op} ${JSON.stringify(params)}`;
    const hit = cache.get(key);
    if (hit === undefined) throw new Miss(key, op, params);
    return hit;
  },
};

async function fetchTruth(op: OperationName, params: ParamValues): Promise<{ status: number; body: unknown }> {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${simRestUrl}${OPERATIONS[op].path}?${qs}`);
  return { status: res.status, body: await res.json() };
}

async function checkpoint(convergeMs = WAIT_MS): Promise<void> {
  cache.clear();
  // The wait for convergence happens once: an attempt that ended on a missing truth after waiting is not waited again.
  let waitMs = convergeMs;
  for (let i = 0; i < 1000; i++) {
    const t0 = Date.now();
    try {
      const r = await fleet.checkpoint(truthProxy as unknown as Simulator, waitMs);
      out({ type: 'checkpoint', notConverged: r.notConverged, divergences: r.divergences, events: r.events, waitedMs: Math.round(r.waitedMs), compared: r.compared });
      return;
    } catch (e) {
      if (!(e instanceof Miss)) throw e;
      if (Date.now() - t0 > 500) waitMs = 500;
      cache.set(e.key, await fetchTruth(e.op, e.params));
    }
  }
  throw new Error('too many truth queries');
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const cmd = line.trim();
  if (cmd === 'status') {
    const relays = [...new Set(client.bus.carried().flatMap((s) => s.relays.map((r) => r.relayId)))].sort();
    out({ type: 'status', allLive: fleet.allLive(), notLive: fleet.notLive(), sawStale, staleSeen: staleSeen.slice(-3), resyncs: client.resyncCounts(), relays, errors: errors.slice(-5), observableErrors: fleet.observableErrors });
  }
  else if (cmd === 'outages') out({ type: 'outages', outages });
  else if (cmd === 'reset') {
    sawStale = false;
    out({ type: 'reset' });
  } else if (/^checkpoint \d+$/.test(cmd)) checkpoint(Number(cmd.split(' ')[1])).catch((e: unknown) => out({ type: 'checkpoint', error: String(e) }));
  else if (cmd === 'checkpoint') checkpoint().catch((e: unknown) => out({ type: 'checkpoint', error: String(e) }));
  else if (cmd === 'exit') {
    fleet.stop();
    void client.close().then(() => process.exit(0));
  }
});
out({ type: 'ready' });
