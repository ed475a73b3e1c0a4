/**
 * Scratch probe (part 1 of fan-out round 3): socket reads vs frames and frame sizes, for the
 * fan-out benchmark's connection and for the socket benchmark's single-subscription client
 * (batched and perFrame senders). Counts NodeWebSocket's onRead calls by patching its
 * prototype (a probe only; the library is not changed).
 *
 *   npx tsx benchmarks/fanout/readProbe.ts fanout|socket [windowMs]
 */
import { NodeWebSocket } from '../../src/connection/node/NodeWebSocket';
import { ExchangeClient } from '../../src/client';
import type { RawSocketData } from '../../src/connection';
import { instrumentedSocket } from '../lib/instrumentedSocket';
import { delay } from '../lib/stats';
import { SimulatorProcess } from '../simulator/SimulatorProcess';
import { FanoutWatch } from './FanoutWatch';
import { planSubscriptions } from './fanoutPlan';
import { SenderProcess } from '../socket/SenderProcess';
import { makeAnchorNs, latencyClock } from '../socket/wallClock';
import { clientPath } from '../socket/clientPathScenario';

let reads = 0;
let readBytes = 0;
const proto = NodeWebSocket.prototype as unknown as { onRead: (b: Buffer, n: number) => boolean };
const orig = proto.onRead;
proto.onRead = function (this: unknown, b: Buffer, n: number) {
  reads++;
  readBytes += n;
  return orig.call(this, b, n);
};
let frames = 0;
let frameChars = 0;
const byType = new Map<string, { n: number; chars: number }>();
const onMessage = (d: RawSocketData) => {
  frames++;
  const t = typeof d === 'string' ? d : String(d);
  frameChars += t.length;
  const m = /"channel":"([a-zA-Z]+)"/.exec(t);
  const k = m ? m[1]! : t.slice(0, 20);
  const e = byType.get(k) ?? { n: 0, chars: 0 };
  e.n++;
  e.chars += t.length;
  byType.set(k, e);
};

function reset() {
  reads = readBytes = frames = frameChars = 0;
  byType.clear();
}
function report(label: string, ms: number) {
  console.log(`${label}: ${ms} ms, reads ${reads} (${((reads * 1000) / ms).toFixed(0)}/s), frames ${frames} (${((frames * 1000) / ms).toFixed(0)}/s), frames/read ${(frames / reads).toFixed(2)}, bytes/read ${(readBytes / reads).toFixed(0)}, mean frame ${(frameChars / frames).toFixed(1)} chars`);
  if (byType.size > 1) for (const [k, v] of [...byType].sort((a, b) => b[1].n - a[1].n)) console.log(`   ${k}: ${v.n} frames (${((100 * v.n) / frames).toFixed(1)}%), mean ${(v.chars / v.n).toFixed(0)} chars`);
}

async function fanout(windowMs: number) {
  const sim = await SimulatorProcess.start({ seed: 1, eventsPerSecond: 2000 });
  const client = new ExchangeClient({ restUrl: sim.restUrl, wsUrl: sim.wsUrl, connection: { WebSocket: instrumentedSocket(onMessage) } });
  const watch = new FanoutWatch();
  try {
    const { markets, subaccounts } = await sim.stats();
    watch.open(client, planSubscriptions(markets, subaccounts, 200));
    while (watch.notLiveYet().length > 0) await delay(10);
    await delay(1000);
    for (let i = 0; i < 3; i++) {
      reset();
      const c0 = process.cpuUsage();
      await delay(windowMs);
      const c = process.cpuUsage(c0);
      report(`fanout window ${i}`, windowMs);
      console.log(`   cpu ${((c.user + c.system) / frames).toFixed(2)} µs/frame (probe's counting included)`);
    }
  } finally {
    watch.close();
    await client.close();
    await sim.close();
  }
}

async function socket(windowMs: number) {
  const anchorNs = makeAnchorNs();
  const spec = { levels: 500, frames: 200_000, seed: 0xfeed, focus: 'top' as const };
  const { sender, port } = await SenderProcess.start(anchorNs, spec);
  // count messages: a counting listener registered before the library's own
  const base = NodeWebSocket.prototype as unknown as { on: (ev: string, l: unknown) => unknown };
  const origOn = base.on;
  base.on = function (this: unknown, ev: string, l: unknown) {
    if (ev === 'message') origOn.call(this, ev, onMessage);
    return origOn.call(this, ev, l);
  };
  try {
    for (const rate of [10_000, 50_000]) for (const style of ['batched', 'perFrame'] as const) {
      const run = await clientPath.start({ url: `ws://127.0.0.1:${port}/ws`, restUrl: `http://127.0.0.1:${port}`, latencyOf: latencyClock(anchorNs) });
      await sender.request({ cmd: 'start', rate, maxFrames: 200_000, style });
      await delay(400);
      reset();
      const c0 = process.cpuUsage();
      await delay(windowMs);
      const c = process.cpuUsage(c0);
      report(`single ${rate}/s ${style}`, windowMs);
      console.log(`   cpu ${((c.user + c.system) / frames).toFixed(2)} µs/frame (probe's counting included)`);
      await sender.request({ cmd: 'stop' });
      await run.close();
    }
  } finally {
    await sender.close();
  }
}

const [mode, ms] = process.argv.slice(2);
await (mode === 'fanout' ? fanout(Number(ms ?? 2000)) : socket(Number(ms ?? 1000)));
process.exit(0);
