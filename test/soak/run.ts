/**
 * `npm run soak -- --minutes 10 --seed 7`: runs a long chaos soak, prints the summary table
 * (markdown) and writes it to benchmarks/results/soak-<date>.md (the seed is in the table). Exits non-zero
 * when the run found a divergence, an unhandled error or a lost or duplicate event.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { runSoak } from './soakRunner';

function positive(name: string, integer: boolean) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new InvalidArgumentError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(v)}`);
    return n;
  };
}

async function main(argv: string[]): Promise<number> {
  const program = new Command('soak')
    .description('Chaos soak of one ExchangeClient against the simulator with random faults; prints and saves the summary table.')
    .option('--minutes <n>', 'length of the run in minutes', positive('--minutes', false), 10)
    .option('--seed <n>', 'seed of the world, the order flow and the faults', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) throw new InvalidArgumentError(`--seed must be an integer from 0 to ${2 ** 31 - 1}, got ${JSON.stringify(v)}`);
      return n;
    }, 1)
    .option('--faults-per-second <n>', 'mean random faults per second', positive('--faults-per-second', false), 2)
    .option('--events-per-second <n>', 'order-flow events per second', positive('--events-per-second', false), 300)
    .option('--checkpoint-seconds <n>', 'seconds between two checkpoints', positive('--checkpoint-seconds', false), 15)
    .option('--out <dir>', 'directory of the report', join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'benchmarks', 'results'))
    .option('--market-maker', "replicate the market maker's account (heavy) instead of a trader's")
    .option('--quiet', 'no progress lines');
  program.parse(argv);
  const o = program.opts<{ marketMaker?: boolean; minutes: number; seed: number; faultsPerSecond: number; eventsPerSecond: number; checkpointSeconds: number; out: string; quiet?: boolean }>();
  const log = o.quiet ? undefined : (line: string) => console.error(line);
  log?.(`soak: seed ${o.seed}, ${o.minutes} min, ${o.faultsPerSecond} faults/s, ${o.eventsPerSecond} events/s`);
  const report = await runSoak({
    seed: o.seed,
    durationMs: Math.round(o.minutes * 60_000),
    faultsPerSecond: o.faultsPerSecond,
    eventsPerSecond: o.eventsPerSecond,
    checkpointEveryMs: Math.round(o.checkpointSeconds * 1000),
    marketMaker: o.marketMaker === true,
    log,
  });
  console.log(report.markdown);
  mkdirSync(o.out, { recursive: true });
  const file = join(o.out, `soak-${new Date().toISOString().slice(0, 10)}.md`);
  writeFileSync(file, report.markdown);
  log?.(`written to ${file}`);
  return report.ok ? 0 : 1;
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e);
    process.exitCode = 2;
  },
);
