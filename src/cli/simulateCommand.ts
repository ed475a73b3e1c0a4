/**
 * `exchange-replica simulate`: runs the local exchange (REST + WebSocket feed on one port)
 * until interrupted, with one flag per option and fault of the Simulator. @internal
 */
import { Command, InvalidArgumentError } from 'commander';
import { FAULT_KINDS, isFaultKind, type FaultKind } from '../simulator/faults/faultKinds';
import { Simulator } from '../simulator/Simulator';
import type { SimulatorOptions } from '../simulator/simulatorOptions';
import { integerFlag, nonNegativeFlag } from './flagParsers';
import { reportCliError } from './reportCliError';
import { safeText } from './term/safeText';

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

const rate = (text: string): number => {
  const n = Number(text);
  if (text.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a rate from 0 to 1 (e.g. 0.1).');
  return n;
};

const faultKinds = (text: string): FaultKind[] => {
  const names = text.split(',').map((k) => k.trim()).filter((k) => k.length > 0);
  const kinds = names.filter(isFaultKind);
  const bad = names.filter((k) => !isFaultKind(k));
  if (names.length === 0 || bad.length > 0) throw new InvalidArgumentError(`expected a comma-separated list of: ${FAULT_KINDS.join(', ')}${bad.length ? ` (unknown: ${bad.join(', ')})` : ''}.`);
  return kinds;
};

/** The flags as commander hands them over, each already parsed by its flag parser (or defaulted). */
interface SimulateFlags {
  readonly port: number;
  readonly host: string;
  readonly seed: number;
  readonly heartbeatTimeoutMs: number;
  readonly eventsPerSecond: number;
  readonly paused?: boolean;
  readonly maxQueueBytes: number;
  readonly faultSeed?: number;
  readonly rest500Rate: number;
  readonly restLatencyMs: number;
  readonly feedUnavailable?: boolean;
  readonly delayFramesMs: number;
  readonly randomFaultsPerSecond: number;
  readonly randomFaultKinds?: FaultKind[];
}

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
    .option('--port <n>', 'TCP port (0 = any free port)', integerFlag(0, 65535), 0)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of the world and its order flow', integerFlag(-(2 ** 31), 2 ** 32 - 1), 1)
    .option('--heartbeat-timeout-ms <n>', 'close feed clients silent this long with HEARTBEAT_TIMEOUT', integerFlag(1, 2 ** 31 - 1), 60000)
    .option('--events-per-second <n>', 'order-flow events per second (0 = no flow)', nonNegativeFlag, 200)
    .option('--paused', 'start with the order flow paused')
    .option('--max-queue-bytes <n>', 'bound of each feed connection queue; past it the socket is dropped', integerFlag(1024), 4 * 1024 * 1024)
    .option('--fault-seed <n>', 'seed of the fault draws (default: --seed)', integerFlag(-(2 ** 31), 2 ** 32 - 1))
    .option('--rest-500-rate <rate>', 'fraction of REST requests answered 500 INTERNAL_ERROR', rate, 0)
    .option('--rest-latency-ms <ms>', 'latency added to every REST answer', nonNegativeFlag, 0)
    .option('--feed-unavailable', 'serve no feed: every connection gets FEED_UNAVAILABLE and is closed')
    .option('--delay-frames-ms <ms>', 'delay every feed frame (order kept)', nonNegativeFlag, 0)
    .option('--random-faults-per-second <n>', 'mean rate of random faults (0 = none)', nonNegativeFlag, 0)
    .option('--random-fault-kinds <list>', `kinds of random faults, comma-separated (default: all): ${FAULT_KINDS.join(',')}`, faultKinds)
    .addHelpText('after', EXAMPLES)
    .action(async (flags: SimulateFlags) => {
      const write = hooks.write ?? ((t: string) => void process.stdout.write(t));
      const options: SimulatorOptions = {
        port: flags.port,
        host: flags.host,
        seed: flags.seed,
        heartbeatTimeoutMs: flags.heartbeatTimeoutMs,
        eventsPerSecond: flags.eventsPerSecond,
        paused: flags.paused === true,
        maxQueueBytes: flags.maxQueueBytes,
        faultSeed: flags.faultSeed,
        rest500Rate: flags.rest500Rate,
        restLatencyMs: flags.restLatencyMs,
        feedUnavailable: flags.feedUnavailable === true,
        delayFramesMs: flags.delayFramesMs,
        randomFaultsPerSecond: flags.randomFaultsPerSecond,
        randomFaultKinds: flags.randomFaultKinds,
      };
      let sim: Simulator;
      try {
        sim = await Simulator.start(options);
      } catch (e) {
        reportCliError(e);
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
      // The URLs hold --host as given: shown, never obeyed by the terminal.
      write(`restUrl ${safeText(sim.restUrl)}\nwsUrl ${safeText(sim.wsUrl)}\n`);
      write(`simulator ready (seed ${sim.options.seed}, ${sim.engine.markets.length} markets, ${sim.options.paused ? 'order flow paused' : `${sim.options.eventsPerSecond} events/s`}); Ctrl-C to stop\n`);
      hooks.onStarted?.(sim, shutdown);
    });
}
