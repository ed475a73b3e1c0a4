/**
 * The decode part of the fan-out scenario, in isolation: records the frames the simulator
 * sends to one connection subscribed to every stream it serves (the fan-out benchmark's
 * replica streams, same seed and rate), then times `decodeAndValidate` (the fast path, with
 * the schema path behind it) against `decodeAndValidateWithSchemas` (JSON.parse + zod) on
 * those frames, per channel, interleaved repetitions in one process (CPU time, medians).
 *
 *   npx tsx benchmarks/fanout/decodeMix.ts [--seconds 4] [--reps 7] [--save FILE] [--load FILE]
 *
 * `--save` writes the recorded frames (one per line) and `--load` reads them instead of
 * starting a simulator, so two checkouts can be compared on the very same frames.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { CHANNELS, decodeAndValidate, decodeAndValidateWithSchemas, streamKey, type FrameDecodeResult } from '../../src/protocol';
import { delay, median } from '../lib/stats';
import { SimulatorProcess } from '../simulator/SimulatorProcess';
import { replicaSubscriptions } from './fanoutPlan';

const SEED = 1;
const EVENTS_PER_SECOND = 2000;

async function record(seconds: number): Promise<string[]> {
  const sim = await SimulatorProcess.start({ seed: SEED, eventsPerSecond: EVENTS_PER_SECOND });
  const frames: string[] = [];
  try {
    const { markets, subaccounts } = await sim.stats();
    const plan = replicaSubscriptions(markets, subaccounts);
    const ws = new WebSocket(sim.wsUrl);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let recording = false;
    ws.on('message', (data) => {
      if (recording) frames.push(String(data));
    });
    plan.forEach((p, i) => ws.send(JSON.stringify({ type: 'subscribe', request_id: String(i), channel: p.channel, ...p.scope })));
    await delay(1000);
    recording = true;
    await delay(seconds * 1000);
    recording = false;
    ws.close();
    console.error(`recorded ${frames.length} frames of ${plan.length} streams (${new Set(plan.map((p) => streamKey(p.channel, p.scope))).size} distinct)`);
  } finally {
    await sim.close();
  }
  return frames;
}

function channelOf(text: string): string {
  const m = /"channel":"([^"]*)"/.exec(text);
  return m?.[1] ?? '(other)';
}

/** CPU µs spent decoding every frame of `texts` once. */
function timeOnce(texts: readonly string[], decode: (t: string) => FrameDecodeResult): number {
  const c0 = process.cpuUsage();
  let ok = 0;
  for (const t of texts) if (decode(t).ok) ok++;
  const c = process.cpuUsage(c0);
  if (ok !== texts.length) throw new Error(`${texts.length - ok} frame(s) did not decode`);
  return c.user + c.system;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const seconds = Number(opt('--seconds') ?? 4);
  const reps = Number(opt('--reps') ?? 7);
  const load = opt('--load');
  const frames = load ? readFileSync(load, 'utf8').split('\n').filter((l) => l.length > 0) : await record(seconds);
  const save = opt('--save');
  if (save) writeFileSync(save, frames.join('\n') + '\n');
  const updates = frames.filter((t) => t.startsWith('{"type":"update"'));
  const byChannel = new Map<string, string[]>();
  for (const t of updates) {
    const c = channelOf(t);
    byChannel.set(c, [...(byChannel.get(c) ?? []), t]);
  }
  // Both paths must agree on every recorded frame before they are timed.
  for (const t of updates) {
    const a = decodeAndValidate(t);
    const b = decodeAndValidateWithSchemas(t);
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`the paths disagree on ${t.slice(0, 200)}`);
  }
  const rows: string[] = ['| channel | frames | share | mean bytes | fast path µs/frame | schema path µs/frame | schema / fast | fast path share of all decode µs |', '|---|---|---|---|---|---|---|---|'];
  let fastTotal = 0;
  let slowTotal = 0;
  const results: { c: string; n: number; bytes: number; fast: number; slow: number }[] = [];
  for (const [c, texts] of [...byChannel].sort((a, b) => b[1].length - a[1].length)) {
    const fast: number[] = [];
    const slow: number[] = [];
    for (let r = 0; r < reps; r++) {
      fast.push(timeOnce(texts, decodeAndValidate) / texts.length);
      slow.push(timeOnce(texts, decodeAndValidateWithSchemas) / texts.length);
    }
    const bytes = texts.reduce((s, t) => s + t.length, 0) / texts.length;
    results.push({ c, n: texts.length, bytes, fast: median(fast), slow: median(slow) });
    fastTotal += median(fast) * texts.length;
    slowTotal += median(slow) * texts.length;
  }
  for (const r of results) {
    const known = r.c in CHANNELS ? '' : ' (unknown)';
    rows.push(`| ${r.c}${known} | ${r.n} | ${((100 * r.n) / updates.length).toFixed(1)}% | ${r.bytes.toFixed(0)} | ${r.fast.toFixed(2)} | ${r.slow.toFixed(2)} | ${(r.slow / r.fast).toFixed(2)}x | ${((100 * r.fast * r.n) / fastTotal).toFixed(1)}% |`);
  }
  console.log(rows.join('\n'));
  console.log(`\nall updates (${updates.length} of ${frames.length} frames): fast path ${(fastTotal / updates.length).toFixed(2)} µs/frame, schema path ${(slowTotal / updates.length).toFixed(2)} µs/frame (${reps} reps, medians)`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
