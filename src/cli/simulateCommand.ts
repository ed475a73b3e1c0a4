/**
 * `exchange-replica simulate`: runs the local exchange (REST + WebSocket feed on one port)
 * until interrupted, with one flag per option and fault of the Simulator. @internal
 */
import { Command, InvalidArgumentError } from 'commander';
import { ExchangeReplicaError } from '../errors';
import { FAULT_KINDS, type FaultKind } from '../simulator/faults/faultKinds';
import { Simulator } from '../simulator/Simulator';
import type { SimulatorOptions } from '../simulator/simulatorOptions';

/** Hooks for embedding and tests. */
export interface SimulateCommandHooks {
  /** Called once the simulator is ready, with the function that stops it (as Ctrl-C does). */
  onStarted?(simulator: Simulator, shutdown: () => Promise<void>): void;
  /**
   * Where the ready message goes.
   * @default process.stdout
   */
  write?(text: string): void;
}

const integer = (min: number, max: number) => (text: string): number => {
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
  return n;
};

const nonNegative = (text: string): number => {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number >= 0.');
  return n;
};

const rate = (text: string): number => {
  const n = Number(text);
  if (text.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a rate from 0 to 1 (e.g. 0.1).');
  return n;
};

const faultKinds = (text: string): FaultKind[] => {
  const kinds = text.split(',').map((k) => k.trim()).filter((k) => k.length > 0);
  const bad = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (kinds.length === 0 || bad.length > 0) throw new InvalidArgumentError(`expected a comma-separated list of: ${FAULT_KINDS.join(', ')}${bad.length ? ` (unknown: ${bad.join(', ')})` : ''}.`);
  return kinds as FaultKind[];
};

const EXAMPLES = `
Examples:
  exchange-replica simulate                          # any free port on 127.0.0.1, seed 1
  exchange-replica simulate --port 8080 --seed 42
  exchange-replica simulate --heartbeat-timeout-ms 5000 --events-per-second 1000
  exchange-replica simulate --rest-500-rate 0.1 --rest-latency-ms 50
  exchange-replica simulate --random-faults-per-second 0.5 --fault-seed 7 --random-fault-kinds resyncStream,dropConnection
  exchange-replica simulate --feed-unavailable       # REST only: the feed answers FEED_UNAVAILABLE

The first two lines printed are the URLs: "restUrl <url>" and "wsUrl <url>".
Ready when GET <restUrl>/v1/status answers 200. Stop with Ctrl-C.`;

/** The `simulate` command (mounted by the main program). */
export function simulateCommand(hooks: SimulateCommandHooks = {}): Command {
  return new Command('simulate')
    .description('Run the local exchange simulator: REST API and WebSocket feed (/ws) on one port, seeded order flow, optional faults')
    .option('--port <n>', 'TCP port (0 = any free port)', integer(0, 65535), 0)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of the world and its order flow', integer(-(2 ** 31), 2 ** 32 - 1), 1)
    .option('--heartbeat-timeout-ms <n>', 'close feed clients silent this long with HEARTBEAT_TIMEOUT', integer(1, 2 ** 31 - 1), 60000)
    .option('--events-per-second <n>', 'order-flow events per second (0 = no flow)', nonNegative, 200)
    .option('--paused', 'start with the order flow paused')
    .option('--max-queue-bytes <n>', 'bound of each feed connection queue; past it the socket is dropped', integer(1024, Number.MAX_SAFE_INTEGER), 4 * 1024 * 1024)
    .option('--fault-seed <n>', 'seed of the fault draws (default: --seed)', integer(-(2 ** 31), 2 ** 32 - 1))
    .option('--rest-500-rate <rate>', 'fraction of REST requests answered 500 INTERNAL_ERROR', rate, 0)
    .option('--rest-latency-ms <ms>', 'latency added to every REST answer', nonNegative, 0)
    .option('--feed-unavailable', 'serve no feed: every connection gets FEED_UNAVAILABLE and is closed')
    .option('--delay-frames-ms <ms>', 'delay every feed frame (order kept)', nonNegative, 0)
    .option('--random-faults-per-second <n>', 'mean rate of random faults (0 = none)', nonNegative, 0)
    .option('--random-fault-kinds <list>', `kinds of random faults, comma-separated (default: all): ${FAULT_KINDS.join(',')}`, faultKinds)
    .addHelpText('after', EXAMPLES)
    .action(async (flags: Record<string, unknown>) => {
      const write = hooks.write ?? ((t: string) => void process.stdout.write(t));
      const options: SimulatorOptions = {
        port: flags.port as number,
        host: flags.host as string,
        seed: flags.seed as number,
        heartbeatTimeoutMs: flags.heartbeatTimeoutMs as number,
        eventsPerSecond: flags.eventsPerSecond as number,
        paused: flags.paused === true,
        maxQueueBytes: flags.maxQueueBytes as number,
        faultSeed: flags.faultSeed as number | undefined,
        rest500Rate: flags.rest500Rate as number,
        restLatencyMs: flags.restLatencyMs as number,
        feedUnavailable: flags.feedUnavailable === true,
        delayFramesMs: flags.delayFramesMs as number,
        randomFaultsPerSecond: flags.randomFaultsPerSecond as number,
        randomFaultKinds: flags.randomFaultKinds as FaultKind[] | undefined,
      };
      let sim: Simulator;
      try {
        sim = await Simulator.start(options);
      } catch (e) {
        const err = e as ExchangeReplicaError;
        process.stderr.write(`error ${err.code ?? 'ERR_UNKNOWN'}: ${err.message}\n`);
        process.exitCode = err.code === 'ERR_SIMULATOR_OPTION' ? 2 : 1;
        return;
      }
      const onSignal = (): void => void shutdown();
      const shutdown = async (): Promise<void> => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await sim.stop();
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      write(`restUrl ${sim.restUrl}\nwsUrl ${sim.wsUrl}\n`);
      write(`simulator ready (seed ${sim.options.seed}, ${sim.engine.markets.length} markets, ${sim.options.paused ? 'order flow paused' : `${sim.options.eventsPerSecond} events/s`}); Ctrl-C to stop\n`);
      hooks.onStarted?.(sim, shutdown);
    });
}
