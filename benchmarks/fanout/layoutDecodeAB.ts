/**
 * Scratch A/B of the layout decoder (fastDecodeLayout.ts) against another checkout's, on a
 * file of recorded frames (one per line, as decodeMix.ts --save writes), per channel,
 * interleaved repetitions in one process (CPU time, medians of per-repetition ratios).
 *
 *   npx tsx benchmarks/fanout/layoutDecodeAB.ts FILE DIR [reps]
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { scanLayoutUpdate as mine } from '../../src/protocol/fastDecodeLayout';
import { median } from '../lib/stats';

type Scan = (t: string) => unknown;

async function main(): Promise<void> {
  const [file, dir, repsArg] = process.argv.slice(2);
  const other = ((await import(`${dir}/src/protocol/fastDecodeLayout.ts`)) as { scanLayoutUpdate: Scan }).scanLayoutUpdate;
  const reps = Number(repsArg ?? 9);
  const frames = readFileSync(file!, 'utf8').split('\n').filter((l) => l.startsWith('{"type":"update"'));
  const byChannel = new Map<string, string[]>();
  for (const t of frames) {
    const c = /"channel":"([^"]*)"/.exec(t)?.[1] ?? '?';
    if (mine(t) === undefined) continue;
    if (!isDeepStrictEqual(mine(t), other(t))) throw new Error(`differ on ${t.slice(0, 200)}`);
    byChannel.set(c, [...(byChannel.get(c) ?? []), t]);
  }
  const time = (scan: Scan, texts: readonly string[]): number => {
    const c0 = process.cpuUsage();
    let n = 0;
    for (const t of texts) if (scan(t) !== undefined) n++;
    const c = process.cpuUsage(c0);
    if (n !== texts.length) throw new Error('a frame did not decode');
    return (c.user + c.system) / texts.length;
  };
  let totA = 0;
  let totB = 0;
  for (const [c, texts] of byChannel) {
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < reps; r++) {
      if (r % 2 === 0) {
        a.push(time(mine, texts));
        b.push(time(other, texts));
      } else {
        b.push(time(other, texts));
        a.push(time(mine, texts));
      }
    }
    const ratios = a.map((x, i) => x / b[i]!);
    totA += median(a) * texts.length;
    totB += median(b) * texts.length;
    console.log(`${c.padEnd(12)} ${String(texts.length).padStart(6)} this ${median(a).toFixed(2)} µs, other ${median(b).toFixed(2)} µs, ratio ${median(ratios).toFixed(3)} [${Math.min(...ratios).toFixed(2)}..${Math.max(...ratios).toFixed(2)}]`);
  }
  console.log(`all layout frames: this/other ${(totA / totB).toFixed(3)}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
