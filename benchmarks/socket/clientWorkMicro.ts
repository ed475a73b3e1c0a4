/**
 * The client's own work per frame, without a network: frames handed to the whole
 * `ExchangeClient` (connection -> router -> replica -> subscriber) through an in-process
 * socket class, against `JSON.parse` of the same bytes. For profiling and A/B of the hot
 * path (`npx tsx benchmarks/socket/clientWorkMicro.ts [frames] [reps]`); the socket
 * benchmark remains the measure of record.
 */
import { ExchangeClient } from '../../src/client';
import { FEED_PATH, updateFramePrefix, writeServerFrame, writeUpdateData, writeUpdateFrame } from '../../src/protocol';
import type { RawSocketData } from '../../src/connection';
import { makeDeltaStream } from '../book/deltaStream';
import { median } from '../lib/stats';

type Listener = (...args: never[]) => void;

/** A socket class whose server side is this process: answers subscribe and ping, and lets the bench push frames. */
class LoopbackSocket {
  static current: LoopbackSocket | undefined;
  readyState = 0;
  private readonly listeners = new Map<string, Listener[]>();
  constructor(readonly url: string) {
    LoopbackSocket.current = this;
    setImmediate(() => {
      this.readyState = 1;
      this.fire('open');
    });
  }
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  private fire(event: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(event) ?? []) (l as (...a: unknown[]) => void)(...args);
  }
  push(data: RawSocketData): void {
    this.fire('message', data, false);
  }
  send(text: string): void {
    const f = JSON.parse(text) as { type: string; request_id: string; channel: string };
    const reply = f.type === 'subscribe' ? writeServerFrame({ type: 'subscribed', request_id: f.request_id, subscription_id: '1', channel: f.channel }) : f.type === 'ping' ? writeServerFrame({ type: 'pong', request_id: f.request_id, timestamp_ns: String(process.hrtime.bigint()) }) : undefined;
    if (reply) setImmediate(() => this.push(Buffer.from(reply)));
  }
  close(): void {
    this.readyState = 3;
    setImmediate(() => this.fire('close', 1000, Buffer.alloc(0)));
  }
  terminate(): void {
    this.close();
  }
}

const cpuNs = (u: NodeJS.CpuUsage): number => (u.user + u.system) * 1000;

type ClientModule = typeof import('../../src/client');

/** One client over its own loopback socket, live on the book; `push` hands it one frame. */
async function liveClient(mod: ClientModule, snapshot: string): Promise<{ push: (b: Buffer) => void; seen: () => number; close: () => Promise<void> }> {
  class Socket extends LoopbackSocket {}
  const client = new mod.ExchangeClient({
    restUrl: 'http://127.0.0.1:1',
    wsUrl: `ws://127.0.0.1:1${FEED_PATH}`,
    strict: true,
    connection: { WebSocket: Socket as never },
    rest: { fetch: async () => new Response(snapshot, { status: 200, headers: { 'content-type': 'application/json' } }) },
  });
  let seen = 0;
  let live!: () => void;
  const isLive = new Promise<void>((r) => (live = r));
  const sub = client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe((e) => {
    if (e.status === 'live') live();
    if (e.cause === 'update') {
      seen++;
      bestSink += e.state.bestBid() ?? 0;
    }
  });
  await isLive;
  const socket = LoopbackSocket.current!;
  return {
    push: (b) => socket.push(b),
    seen: () => seen,
    close: async () => {
      sub.unsubscribe();
      await client.close();
    },
  };
}

let bestSink = 0;

/**
 * Usage: clientWorkMicro.ts [frames] [reps] [--compare DIR]: with `--compare`, a second copy of
 * the library (another checkout's `src/client`) runs interleaved with this one, each on its
 * own copy of the stream, and the report gives both against `JSON.parse` in the same run.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const cmpAt = args.indexOf('--compare');
  const compareDir = cmpAt >= 0 ? args.splice(cmpAt, 2)[1] : undefined;
  const frames = Number(args[0] ?? 200_000);
  const reps = Number(args[1] ?? 5);
  const stream = makeDeltaStream({ levels: 500, frames: frames * reps, seed: 0xfeed, focus: 'top' });
  const prefix = updateFramePrefix('1', 'book');
  const t0 = process.hrtime.bigint();
  const wire = stream.frames.map((f, i) => Buffer.from(writeUpdateFrame(prefix, BigInt(i + 1), t0 + BigInt(i), writeUpdateData('book', { bids: f.bids, asks: f.asks }))));
  const snapshot = JSON.stringify({ data: stream.snapshot, sequence: '0', timestamp_ns: String(t0) });
  const mods: [string, ClientModule][] = [['this', await import('../../src/client')]];
  if (compareDir) mods.push([compareDir, (await import(`${compareDir}/src/client/index.ts`)) as ClientModule]);
  const clients = [];
  for (const [, m] of mods) clients.push(await liveClient(m, snapshot));
  const times: number[][] = mods.map(() => []);
  const parseNs: number[] = [];
  let sink = 0;
  for (let r = 0; r < reps; r++) {
    const slice = wire.slice(r * frames, (r + 1) * frames);
    // CPU time, not wall time: other processes on a loaded machine count less.
    let a = process.cpuUsage();
    for (const b of slice) sink += (JSON.parse(b.toString()) as { seq: string }).seq.length;
    parseNs.push(cpuNs(process.cpuUsage(a)) / frames);
    const order = r % 2 === 0 ? clients.map((_, i) => i) : clients.map((_, i) => clients.length - 1 - i);
    for (const i of order) {
      a = process.cpuUsage();
      for (const b of slice) clients[i]!.push(b);
      times[i]!.push(cpuNs(process.cpuUsage(a)) / frames);
    }
  }
  for (const c of clients) if (c.seen() !== frames * reps) throw new Error(`saw ${c.seen()} updates of ${frames * reps}`);
  const fmt = (xs: number[]) => `${median(xs).toFixed(0)} ns/frame [${xs.map((x) => x.toFixed(0)).join(' ')}]`;
  console.log(`JSON.parse: ${fmt(parseNs)}  (sinks ${sink % 7} ${bestSink % 7})`);
  mods.forEach(([name], i) => console.log(`client ${name}: ${fmt(times[i]!)}  ${(median(times[i]!) / median(parseNs)).toFixed(2)}x parse`));
  if (clients.length === 2) {
    const pairRatios = times[0]!.map((t, r) => t / times[1]![r]!);
    console.log(`this / compare: median of per-rep ratios ${median(pairRatios).toFixed(3)} [${pairRatios.map((x) => x.toFixed(2)).join(' ')}]`);
  }
  for (const c of clients) await c.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
