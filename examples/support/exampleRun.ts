/**
 * What every example shares, kept out of the examples so they read as plain client code:
 * flags (`--duration-ms`, default 10 s; `--seed`), an embedded simulator with a client
 * against it, timestamped logging, and a bounded, clean end (duration or Ctrl-C).
 *
 * In your own project the imports are `exchange-replica` and `exchange-replica/simulator`.
 */
import { parseArgs } from 'node:util';
import { ExchangeClient } from '../../src';
import { Simulator } from '../../src/simulator';

export interface ExampleRun {
  readonly sim: Simulator;
  readonly client: ExchangeClient;
  readonly durationMs: number;
  /** Extra flags of the example (strings as given). */
  readonly flags: Readonly<Record<string, string | undefined>>;
  /** Resolves after `--duration-ms` or on Ctrl-C. */
  readonly done: Promise<void>;
  /** A line on stdout, prefixed with the seconds since start. */
  log(line: string): void;
  /** Closes the client, then the simulator. */
  close(): Promise<void>;
}

/**
 * Starts the simulator and a client.
 * @param extraFlags names of the example's own string flags (e.g. `['delay-frames-ms']`)
 */
export async function startExample(name: string, extraFlags: readonly string[] = []): Promise<ExampleRun> {
  const { values } = parseArgs({
    options: {
      'duration-ms': { type: 'string', default: '10000' },
      seed: { type: 'string', default: '1' },
      ...Object.fromEntries(extraFlags.map((f) => [f, { type: 'string' as const }])),
    },
  });
  const durationMs = Number(values['duration-ms']);
  const seed = Number(values.seed);
  if (!(durationMs > 0) || !Number.isSafeInteger(seed)) throw new Error(`${name}: --duration-ms must be > 0 and --seed an integer`);
  const started = performance.now();
  const log = (line: string): void => void process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(2).padStart(6)}s] ${line}\n`);
  const sim = await Simulator.start({ seed });
  const client = new ExchangeClient({ restUrl: sim.restUrl, wsUrl: sim.wsUrl });
  client.events.on('error', (e) => log(`client error ${e.code}: ${e.message}`));
  let timer: NodeJS.Timeout | undefined;
  let onSigint = (): void => {};
  const done = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, durationMs);
    onSigint = () => resolve();
    process.once('SIGINT', onSigint);
  });
  log(`${name}: simulator seed ${seed} at ${sim.restUrl}, running ${durationMs} ms`);
  return {
    sim,
    client,
    durationMs,
    flags: values as Record<string, string | undefined>,
    done: done.then(() => clearTimeout(timer)),
    log,
    async close() {
      await client.close();
      await sim.stop();
      process.off('SIGINT', onSigint);
    },
  };
}
