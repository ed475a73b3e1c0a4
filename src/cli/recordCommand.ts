/**
 * `exchange-replica record`: runs the live view's subscriptions (two markets, one account)
 * without drawing, against the embedded simulator or a real exchange, and records every
 * input of the client to a file (`FeedRecorder`) for `exchange-replica replay`. @internal
 */
import { Command, InvalidArgumentError } from 'commander';
import { ExchangeClient } from '../client';
import { FeedRecorder, type RecorderStats } from '../record/FeedRecorder';
import type { JsonValue } from '../record/json';
import { Simulator } from '../simulator/Simulator';
import { CliUsageError } from './CliUsageError';
import { nonNegativeFlag, positiveMsFlag } from './flagParsers';
import { addViewTargetFlags, checkViewTargetFlags } from './view/viewTargetFlags';
import { reportCliError } from './reportCliError';
import { RunControl, type StopReason } from './RunControl';
import { safeText } from './term/safeText';
import { pickTargets, type PickOptions, type ViewTargets } from './view/pickTargets';
import { ViewModel } from './view/ViewModel';

const EXAMPLES = `
Examples:
  exchange-replica record --duration-ms 10000 --out session.rec.gz            # embedded simulator, 10 s
  exchange-replica record --duration-ms 10000 --random-faults 1 --out s.rec.gz  # with a fault a second
  exchange-replica record --out prod.rec.gz --rest-url https://api.example.com --address <base58>
  exchange-replica replay session.rec.gz                                       # draw it again (view)

It subscribes to what "exchange-replica view" shows (the same flags pick the markets and the
account) and writes every input of the client (feed frames, REST answers, timer firings, clock
reads, random draws), each with its local receive time, to FILE: gzip chunks, appended (a new
session when FILE exists), flushed every second, bounded by --max-bytes and --duration-ms. If
the process dies, the replay stops at the last complete chunk. One line a second on stdout.`;

/** What `record` stores in the session header for `replay` to show the same thing. */
export interface RecordMeta {
  readonly command: 'record';
  readonly targets: {
    readonly markets: ViewTargets['markets'];
    readonly allMarkets: ViewTargets['allMarkets'];
    readonly account: ViewTargets['account'] | null;
    readonly tokenDecimals: [string, number][];
  };
}

/** Options of {@link runRecord}. */
export interface RecordOptions extends PickOptions {
  readonly out: string;
  readonly durationMs?: number;
  readonly restUrl?: string;
  readonly wsUrl?: string;
  readonly seed?: number;
  readonly eventsPerSecond?: number;
  /** Random faults per second injected into the embedded simulator. @default 0 */
  readonly randomFaults?: number;
  readonly maxBytes?: number;
  /** Where progress lines go. @default stdout */
  readonly print?: (line: string) => void;
}

/**
 * Records until `durationMs`, a signal, or the size bound.
 * @returns why it stopped and what was recorded
 */
export async function runRecord(options: RecordOptions): Promise<{ reason: StopReason; stats: RecorderStats }> {
  // Market symbols are the exchange's: shown, never obeyed by the terminal.
  const print = options.print ?? ((line: string) => void process.stdout.write(`${safeText(line)}\n`));
  let sim: Simulator | undefined;
  let restUrl = options.restUrl;
  let wsUrl = options.wsUrl;
  if (restUrl === undefined) {
    sim = await Simulator.start({
      seed: options.seed ?? 1,
      ...(options.eventsPerSecond !== undefined ? { eventsPerSecond: options.eventsPerSecond } : {}),
      ...(options.randomFaults ? { randomFaultsPerSecond: options.randomFaults, randomFaultKinds: ['dropConnection', 'resyncStream', 'skipSilently', 'stallStream', 'rest500'] } : {}),
    });
    restUrl = sim.restUrl;
    wsUrl = sim.wsUrl;
  }
  const control = new RunControl(options.durationMs);
  let client: ExchangeClient | undefined;
  let vm: ViewModel | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    // The targets are picked by a client of their own: the recording holds the view's subscriptions only.
    const picker = new ExchangeClient({ restUrl, ...(wsUrl !== undefined ? { wsUrl } : {}) });
    const targets = await pickTargets(picker, sim, options).finally(() => picker.close());
    const meta: RecordMeta = {
      command: 'record',
      targets: { markets: targets.markets, allMarkets: targets.allMarkets, account: targets.account ?? null, tokenDecimals: [...targets.tokenDecimals] },
    };
    const recorder = new FeedRecorder({
      path: options.out,
      ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
      meta: meta as unknown as JsonValue,
      onStop: (reason) => {
        if (reason === 'maxBytes') control.stop('count');
      },
    });
    client = new ExchangeClient({ restUrl, ...(wsUrl !== undefined ? { wsUrl } : {}), record: recorder });
    vm = new ViewModel(client, targets).start();
    const startedMs = Date.now();
    const source = sim ? `simulator seed ${sim.options.seed}` : restUrl;
    print(`record: ${source} -> ${options.out}; markets ${targets.markets.map((m) => m.symbol).join(', ')}${targets.account ? `; account ${targets.account.address.slice(0, 8)}.../${targets.account.subaccount_id}` : ''}`);
    const line = (): string => {
      const s = recorder.stats;
      const statuses = vm!.subscriptions().map((x) => `${x.name.replace(/ /g, '_')}=${x.status}`).join(' ');
      return `t=${((Date.now() - startedMs) / 1000).toFixed(1)}s frames=${s.frames} inputs=${s.inputs} bytes=${s.bytes} ${statuses}`;
    };
    timer = setInterval(() => print(line()), 1000);
    const reason = await control.stopped;
    clearInterval(timer);
    vm.stop();
    await client.close();
    const s = recorder.stats;
    print(`recorded ${((Date.now() - startedMs) / 1000).toFixed(1)}s to ${options.out}: ${s.frames} frames, ${s.inputs} inputs, ${s.entries} entries, ${s.bytes} bytes in ${s.chunks} chunks (stopped: ${s.stopped}${reason === 'count' ? ', size bound reached' : ''})`);
    return { reason, stats: s };
  } finally {
    if (timer) clearInterval(timer);
    vm?.stop();
    control.dispose();
    await client?.close();
    await sim?.stop();
  }
}

function bytesFlag(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1024) throw new InvalidArgumentError('expected an integer number of bytes >= 1024.');
  return n;
}

/** The `record` command (mounted by the main program). */
export function recordCommand(): Command {
  const command = new Command('record')
    .description('Record every input of a client running the view\'s subscriptions to a file, for `replay` (embedded simulator by default)')
    .requiredOption('--out <file>', 'the recording file (appended to when it exists)')
    .option('--duration-ms <ms>', 'stop after this many milliseconds (default: until Ctrl-C)', positiveMsFlag)
    .option('--max-bytes <n>', 'stop once the recording would pass this many bytes (default 1 GiB)', bytesFlag);
  return addViewTargetFlags(command)
    .option('--random-faults <per-second>', 'random faults per second injected into the simulator (drops, resyncs, silent gaps, stalls, REST 500s)', nonNegativeFlag)
    .addHelpText('after', EXAMPLES)
    .action(async (flags: Record<string, unknown>) => {
      try {
        checkViewTargetFlags(flags);
        if (flags.randomFaults !== undefined && flags.restUrl !== undefined) throw new CliUsageError('--random-faults is for the embedded simulator, not with --rest-url');
        await runRecord({
          out: flags.out as string,
          durationMs: flags.durationMs as number | undefined,
          maxBytes: flags.maxBytes as number | undefined,
          seed: flags.seed as number,
          restUrl: flags.restUrl as string | undefined,
          wsUrl: flags.wsUrl as string | undefined,
          perp: flags.perp as number | undefined,
          spot: flags.spot as number | undefined,
          address: flags.address as string | undefined,
          subaccountId: flags.subaccountId as number,
          eventsPerSecond: flags.eventsPerSecond as number | undefined,
          randomFaults: flags.randomFaults as number | undefined,
        });
      } catch (e) {
        reportCliError(e);
      }
    });
}
