/**
 * The fan-out scenario's client work without a network, for profiling and A/B: the frames
 * (and REST snapshots) one connection of the fan-out benchmark received are recorded once
 * from the simulator, then replayed through an in-process socket class into whole
 * `ExchangeClient`s carrying the benchmark's 200 subscriptions (fanoutPlan.ts). CPU time
 * per frame, from the socket message to the subscribers' return; `ws`'s receive path is not
 * in it (the fan-out benchmark remains the measure of record).
 *
 *   npx tsx benchmarks/fanout/fanoutMicro.ts --record FILE [--seconds 20]
 *   npx tsx benchmarks/fanout/fanoutMicro.ts --load FILE [--reps 8] [--compare DIR] [--only-compare] [--paced]
 *
 * `--paced` pushes the frames in bursts of ~105 with 8 ms pauses (~11k frames/s, as the
 * benchmark's socket hands them over) instead of back to back: the client idles and goes
 * cold between bursts as it does there (a frame costs about 2-3x more than back to back).
 *
 * With `--compare DIR` a second checkout's client (`DIR/src/client`) runs interleaved with
 * this one in the same process, on its own copy of the same frames; the report gives the
 * median of the per-repetition ratios. Replay: every client subscribes, the in-process
 * server answers `subscribed` with the recorded id and REST with the recorded answer, then
 * the frames are pushed in their recorded order (the first ones, which the snapshots
 * overtake, untimed), every state replica must be live before timing and at the end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Subscription } from 'rxjs';
import WebSocket from 'ws';
import type { ExchangeClient } from '../../src/client';
import { systemClock, type Clock } from '../../src/clock';
import { writeServerFrame } from '../../src/protocol';
import { delay, median } from '../lib/stats';
import { SimulatorProcess } from '../simulator/SimulatorProcess';
import { planSubscriptions, type MarketRef, type SubaccountRef } from './fanoutPlan';

const SEED = 1;
const EVENTS_PER_SECOND = 2000;
const SUBSCRIPTIONS = 200;
/** --paced: frames a burst (one socket read of the benchmark) and the pause after each. */
const PACED_BURST = 105;
const PACED_GAP_MS = 8;

interface RecordedFanout {
  readonly markets: MarketRef[];
  readonly subaccounts: SubaccountRef[];
  /** Subscribe frame (without type and request id, as JSON) -> the server's subscription id. */
  readonly subscriptionIds: [string, string][];
  /** URL -> status and body of its (last) answer. */
  readonly rest: [string, number, string][];
  /** Frames received, in order (acks and pongs left out). */
  readonly frames: string[];
  /** Frames received before every replica was live (in `frames`). */
  readonly liveAt: number;
}

const subscribeKey = (frame: Record<string, unknown>): string => {
  const { type: _t, request_id: _r, ...rest } = frame;
  return JSON.stringify(rest);
};

async function record(file: string, seconds: number): Promise<void> {
  const sim = await SimulatorProcess.start({ seed: SEED, eventsPerSecond: EVENTS_PER_SECOND });
  const frames: string[] = [];
  const sent = new Map<string, string>();
  const ids: [string, string][] = [];
  const rest = new Map<string, [number, string]>();
  class RecordingSocket extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on('message', (data) => {
        const text = String(data);
        if (text.startsWith('{"type":"subscribed"')) {
          const f = JSON.parse(text) as { request_id: string; subscription_id: string };
          ids.push([sent.get(f.request_id)!, f.subscription_id]);
        } else if (!text.startsWith('{"type":"pong"')) frames.push(text);
      });
    }
    override send(data: string): void {
      const f = JSON.parse(data) as Record<string, unknown>;
      if (f.type === 'subscribe') sent.set(String(f.request_id), subscribeKey(f));
      super.send(data);
    }
  }
  const { ExchangeClient: Client } = await import('../../src/client');
  const client = new Client({
    restUrl: sim.restUrl,
    wsUrl: sim.wsUrl,
    connection: { WebSocket: RecordingSocket as never },
    rest: {
      fetch: async (url, init) => {
        const r = await fetch(url, init);
        const body = await r.text();
        rest.set(url, [r.status, body]);
        return new Response(body, { status: r.status, headers: r.headers });
      },
    },
  });
  try {
    const { markets, subaccounts } = await sim.stats();
    const watch = new MiniWatch(client, planSubscriptions(markets, subaccounts, SUBSCRIPTIONS));
    const deadline = Date.now() + 30_000;
    while (watch.notLive() > 0 && Date.now() < deadline) await delay(10);
    if (watch.notLive() > 0) throw new Error(`${watch.notLive()} replica(s) not live`);
    const liveAt = frames.length;
    await delay(seconds * 1000);
    watch.close();
    const out: RecordedFanout = { markets, subaccounts, subscriptionIds: ids, rest: [...rest].map(([u, [s, b]]) => [u, s, b]), frames, liveAt };
    writeFileSync(file, JSON.stringify(out));
    console.log(`recorded ${frames.length} frames (${liveAt} before all live), ${ids.length} subscriptions, ${rest.size} REST answers -> ${file}`);
  } finally {
    await client.close();
    await sim.close();
  }
}

/** Counts emissions; knows which subscriptions carry a status and whether they are live. */
class MiniWatch {
  emissions = 0;
  readonly errors: string[] = [];
  private readonly status: (string | undefined)[] = [];
  private readonly subs: Subscription[] = [];
  constructor(client: ExchangeClient, plan: ReturnType<typeof planSubscriptions>) {
    plan.forEach((p, i) => {
      const hasStatus = p.kind !== 'raw' && p.channel !== 'trades' && p.channel !== 'fills' && p.channel !== 'fundingRates';
      this.status.push(hasStatus ? 'none' : undefined);
      this.subs.push(
        p.observe(client).subscribe({
          next: (e) => {
            this.emissions++;
            if (hasStatus) this.status[i] = (e as { status: string }).status;
          },
          error: (err: unknown) => this.errors.push(`${p.key}: ${String(err)}`),
        }),
      );
    });
  }
  notLive(): number {
    return this.status.filter((s) => s !== undefined && s !== 'live').length;
  }
  close(): void {
    for (const s of this.subs.splice(0)) s.unsubscribe();
  }
}

type Listener = (...args: never[]) => void;
type ClientModule = typeof import('../../src/client');

/** The in-process server side of one client: answers subscribe and ping, lets the bench push frames. */
function loopbackClass(ids: Map<string, string>): { Socket: new (url: string) => object; push: (b: Buffer) => void } {
  let current: { fire(event: string, ...args: unknown[]): void } | undefined;
  class LoopbackSocket {
    readyState = 0;
    private readonly listeners = new Map<string, Listener[]>();
    constructor(readonly url: string) {
      current = this;
      setImmediate(() => {
        this.readyState = 1;
        this.fire('open');
      });
    }
    on(event: string, listener: Listener): this {
      this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
      return this;
    }
    fire(event: string, ...args: unknown[]): void {
      for (const l of this.listeners.get(event) ?? []) (l as (...a: unknown[]) => void)(...args);
    }
    send(text: string): void {
      const f = JSON.parse(text) as Record<string, unknown> & { type: string; request_id: string; channel: string };
      let reply: string | undefined;
      if (f.type === 'subscribe') {
        const id = ids.get(subscribeKey(f));
        if (id === undefined) throw new Error(`no recorded subscription for ${text}`);
        reply = writeServerFrame({ type: 'subscribed', request_id: f.request_id, subscription_id: id, channel: f.channel });
      } else if (f.type === 'ping') reply = writeServerFrame({ type: 'pong', request_id: f.request_id, timestamp_ns: String(process.hrtime.bigint()) });
      if (reply !== undefined) {
        const r = reply;
        setImmediate(() => this.fire('message', Buffer.from(r), false));
      }
    }
    close(): void {
      this.readyState = 3;
      setImmediate(() => this.fire('close', 1000, Buffer.alloc(0)));
    }
    terminate(): void {
      this.close();
    }
  }
  return { Socket: LoopbackSocket, push: (b) => current!.fire('message', b, false) };
}

interface Replay {
  readonly name: string;
  readonly push: (b: Buffer, atNs: bigint) => void;
  readonly watch: MiniWatch;
  readonly client: ExchangeClient;
}

/** Receive time of the frame being pushed: its recorded send time plus a fixed latency (replayed frames are older than the replay's clock). */
let replayNowNs = 0n;
const REPLAY_LATENCY_NS = 150_000n;
const replayClock: Clock = {
  nowNs: () => (replayNowNs === 0n ? systemClock.nowNs() : replayNowNs),
  nowMs: () => systemClock.nowMs(),
  setTimer: (callback, delayMs, options) => systemClock.setTimer(callback, delayMs, options),
};

async function replayClient(name: string, mod: ClientModule, rec: RecordedFanout): Promise<Replay> {
  const { Socket, push: pushRaw } = loopbackClass(new Map(rec.subscriptionIds));
  const push = (b: Buffer, atNs: bigint): void => {
    replayNowNs = atNs;
    pushRaw(b);
  };
  const rest = new Map(rec.rest.map(([u, s, b]) => [u, [s, b] as const]));
  const client = new mod.ExchangeClient({
    restUrl: 'http://127.0.0.1:1',
    wsUrl: 'ws://127.0.0.1:1/v1/feed',
    clock: replayClock,
    connection: { WebSocket: Socket as never },
    rest: {
      fetch: async (url) => {
        // The recorded URLs carry the simulator's port; match on path and query.
        const u = new URL(url);
        for (const [k, [s, b]] of rest) {
          const r = new URL(k);
          if (r.pathname === u.pathname && r.search === u.search) return new Response(b, { status: s, headers: { 'content-type': 'application/json' } });
        }
        throw new Error(`no recorded answer for ${url}`);
      },
    },
  }) as unknown as ExchangeClient;
  const watch = new MiniWatch(client, planSubscriptions(rec.markets, rec.subaccounts, SUBSCRIPTIONS));
  // Subscribed and snapshots loaded (their sequences are past the first frames).
  const deadline = Date.now() + 30_000;
  while (client.activity().pendingRequests > 0 || (client.activity().serverSubscriptions < rec.subscriptionIds.length && Date.now() < deadline)) await delay(5);
  await delay(200);
  return { name, push, watch, client };
}

/** The recording without its frames, and the frames as a FrameTape (the strings parsed are let go on return). */
function loadTape(file: string): { tape: FrameTape; rec: RecordedFanout } {
  const loaded = JSON.parse(readFileSync(file, 'utf8')) as RecordedFanout;
  return { tape: new FrameTape(loaded.frames), rec: { ...loaded, frames: [] } };
}

/**
 * The recorded frames off the JS heap: their bytes in one Buffer, their offsets and receive
 * times in typed arrays (held as strings, Buffers and bigints they were ~800k objects of the
 * old generation, which every major GC marks; the benchmark's heap holds none of them).
 * Checked: the A/B ratios of the round of 2026-11-27 (third) came out the same either way.
 */
class FrameTape {
  private readonly bytes: Buffer;
  private readonly offsets: Float64Array;
  private readonly times: BigInt64Array;
  readonly length: number;

  constructor(frames: readonly string[]) {
    this.length = frames.length;
    this.offsets = new Float64Array(frames.length + 1);
    this.times = new BigInt64Array(frames.length);
    let total = 0;
    frames.forEach((f, i) => {
      this.offsets[i] = total;
      total += Buffer.byteLength(f);
      const m = /"timestamp_ns":"(\d+)"/.exec(f);
      this.times[i] = m ? BigInt(m[1]!) + REPLAY_LATENCY_NS : 0n;
    });
    this.offsets[frames.length] = total;
    this.bytes = Buffer.allocUnsafeSlow(total);
    frames.forEach((f, i) => this.bytes.write(f, this.offsets[i]!));
  }

  frame(i: number): Buffer {
    return this.bytes.subarray(this.offsets[i]!, this.offsets[i + 1]!);
  }

  /** The frame's send time + REPLAY_LATENCY_NS (0 when it has none). */
  receivedAt(i: number): bigint {
    return this.times[i]!;
  }
}

const cpuNs = (u: NodeJS.CpuUsage): number => (u.user + u.system) * 1000;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (n: string): string | undefined => {
    const i = args.indexOf(n);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const recordTo = opt('--record');
  if (recordTo) return record(recordTo, Number(opt('--seconds') ?? 20));
  const load = opt('--load');
  if (!load) throw new Error('--record FILE or --load FILE');
  const reps = Number(opt('--reps') ?? 8);
  // --paced: frames in bursts of PACED_BURST with PACED_GAP_MS between them (~11k frames/s, as
  // the fan-out benchmark receives them: ~105 frames a socket read, ~110 reads a second), so
  // the client idles between bursts as it does on the socket; CPU time is still summed over the repetition.
  const paced = args.includes('--paced');
  const compareDir = opt('--compare');
  const { tape, rec } = loadTape(load);
  const mods: [string, ClientModule][] = [];
  if (!args.includes('--only-compare')) mods.push(['this', await import('../../src/client')]);
  if (compareDir) mods.push([compareDir, (await import(`${compareDir}/src/client/index.ts`)) as ClientModule]);
  const clients: Replay[] = [];
  for (const [name, m] of mods) clients.push(await replayClient(name, m, rec));
  // Untimed: the frames before every replica was live in the recording, and as many again.
  const warm = Math.min(tape.length, rec.liveAt * 2 + 2000);
  for (const c of clients) {
    for (let i = 0; i < warm; i++) c.push(tape.frame(i), tape.receivedAt(i));
    await delay(50);
    if (c.watch.notLive() > 0) throw new Error(`${c.name}: ${c.watch.notLive()} replica(s) not live after the warm-up`);
  }
  const per = Math.floor((tape.length - warm) / reps);
  const times: number[][] = clients.map(() => []);
  const emissions: number[][] = clients.map(() => []);
  for (let r = 0; r < reps; r++) {
    const from = warm + r * per;
    const order = r % 2 === 0 ? clients.map((_, i) => i) : clients.map((_, i) => clients.length - 1 - i);
    for (const i of order) {
      const c = clients[i]!;
      const e0 = c.watch.emissions;
      // CPU time, not wall time: other processes on a loaded machine count less.
      const a = process.cpuUsage();
      if (!paced) for (let k = from; k < from + per; k++) c.push(tape.frame(k), tape.receivedAt(k));
      else {
        for (let k = from; k < from + per; k += PACED_BURST) {
          for (let j = k; j < Math.min(k + PACED_BURST, from + per); j++) c.push(tape.frame(j), tape.receivedAt(j));
          await delay(PACED_GAP_MS);
        }
      }
      times[i]!.push(cpuNs(process.cpuUsage(a)) / per);
      emissions[i]!.push((c.watch.emissions - e0) / per);
      await delay(1);
    }
  }
  for (const c of clients) {
    const resyncs = Object.entries(c.client.resyncCounts()).filter(([, n]) => n > 0);
    if (c.watch.notLive() > 0 || c.watch.errors.length > 0) throw new Error(`${c.name}: ${c.watch.notLive()} not live, errors ${c.watch.errors.slice(0, 3).join('; ')}`);
    // `snapshot_ahead` also counts a snapshot the stream had not reached yet (a wait, no
    // refetch): the recorded snapshots are ahead of the tape's first frames, ~100 of those.
    if (resyncs.length > 0) console.log(`${c.name}: resync counters ${JSON.stringify(resyncs)}`);
  }
  const fmt = (xs: number[]) => `${(median(xs) / 1000).toFixed(2)} µs/frame [${xs.map((x) => (x / 1000).toFixed(2)).join(' ')}]`;
  console.log(`${per} frames a repetition, ${reps} repetitions, ${warm} frames of warm-up; heap used at the end ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`);
  clients.forEach((c, i) => console.log(`client ${c.name}: ${fmt(times[i]!)}  emissions/frame ${median(emissions[i]!).toFixed(3)}`));
  if (clients.length === 2) {
    const ratios = times[0]!.map((t, r) => t / times[1]![r]!);
    console.log(`${clients[0]!.name} / ${clients[1]!.name}: median of per-rep ratios ${median(ratios).toFixed(3)} [${ratios.map((x) => x.toFixed(2)).join(' ')}]`);
  }
  for (const c of clients) {
    c.watch.close();
    await c.client.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
