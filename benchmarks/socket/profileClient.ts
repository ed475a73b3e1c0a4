/**
 * One socket-benchmark scenario at one rate for a while, alone: the harness for profiling
 * the client path (`node --cpu-prof --import tsx benchmarks/socket/profileClient.ts`).
 *
 * Usage: profileClient.ts [scenario id: client|client+ws|parse|fast+apply|...] [rate frames/s] [ms] [batched|perFrame]
 * Prints the client's CPU per frame over the window.
 */
import { makeDeltaStream } from '../book/deltaStream';
import { delay } from '../lib/stats';
import { clientPath, clientPathOnWs } from './clientPathScenario';
import { RAW_SCENARIOS } from './scenarios';
import { SenderProcess } from './SenderProcess';
import { latencyClock, makeAnchorNs } from './wallClock';
import type { SenderStyle } from './senderProtocol';

async function main(): Promise<void> {
  const [id = 'client', rateArg = '50000', msArg = '5000', styleArg = 'batched'] = process.argv.slice(2);
  const scenario = [clientPath, clientPathOnWs, ...RAW_SCENARIOS].find((s) => s.id === id);
  if (!scenario) throw new Error(`unknown scenario ${id}`);
  const rate = Number(rateArg);
  const ms = Number(msArg);
  const style = styleArg as SenderStyle;
  const spec = { levels: 500, frames: Math.ceil((rate * (ms + 2000)) / 1000), seed: 0xfeed, focus: 'top' as const };
  const anchorNs = makeAnchorNs();
  const { sender, port } = await SenderProcess.start(anchorNs, spec);
  void makeDeltaStream;
  try {
    const run = await scenario.start({ url: `ws://127.0.0.1:${port}/ws`, restUrl: `http://127.0.0.1:${port}`, latencyOf: latencyClock(anchorNs) });
    await sender.request({ cmd: 'start', rate, maxFrames: spec.frames, style });
    await delay(500);
    const n0 = run.received();
    const c0 = process.cpuUsage();
    await delay(ms);
    const cpu = process.cpuUsage(c0);
    const n = run.received() - n0;
    await sender.request({ cmd: 'stop' });
    console.log(`${id} ${style} @${rate}/s: ${n} frames, ${((cpu.user + cpu.system) / n).toFixed(2)} µs CPU/frame (user ${(cpu.user / n).toFixed(2)}, system ${(cpu.system / n).toFixed(2)})`);
    await run.close();
  } finally {
    await sender.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
