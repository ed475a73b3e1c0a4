/**
 * `exchange-replica watch <channel>`: any channel's replica, its scope as flags named as
 * documented (`--market_id 0 --market_type perp`), printed as NDJSON (one line per emission) or
 * drawn in place on a terminal; against a real exchange or an embedded simulator. @internal
 */
import { Argument, Command, Option } from 'commander';
import type { Subscription } from 'rxjs';
import { CHANNEL_NAMES, RESOLUTIONS, streamKey, type ChannelName } from '../../protocol';
import { ExchangeReplicaError } from '../../errors';
import { CliUsageError } from '../CliUsageError';
import { reportCliError } from '../reportCliError';
import { booleanFlag, integerFlag, positiveMsFlag, urlFlag } from '../flagParsers';
import { RunControl } from '../RunControl';
import { openTarget } from '../target';
import { safeJson, safeText } from '../term/safeText';
import { Terminal } from '../term/Terminal';
import { StartBound } from './StartBound';
import { WatchScreen } from './WatchScreen';
import { MARKET_TYPES, scopeFlags, scopeFor, watchSource, type ScopeFlags } from './watchSource';

const EXAMPLES = `
Scope flags by channel:
${CHANNEL_NAMES.map((c) => `  ${c.padEnd(13)} ${scopeFlags(c)}`).join('\n')}
--market_type is named and valued as in REST; --is_perps [true|false], the feed's own scope
key, is accepted instead.

Examples:
  exchange-replica watch book --simulator --market_id 0 --market_type perp --count 3
  exchange-replica watch trades --simulator --market_id 3 --market_type spot --duration-ms 5000
  exchange-replica watch candles --rest-url http://127.0.0.1:8080 --market_id 0 --market_type perp --interval 1m
  exchange-replica watch balances --rest-url http://127.0.0.1:8080 --address <base58> --subaccount_id 0

Output (not a terminal): one JSON object per line. State channels print every emission:
{"channel","stream","status","cause","seq","snapshot_id","timestamp_ns","state"} (books as the
top --depth levels per side, maps as arrays of records, bigints as strings). Event channels
(trades, fills, fundingRates) print {"kind":"record","sequence","record"} or
{"kind":"gap","from_sequence","to_sequence","reason"}. On a terminal the latest state is drawn
in place; q or Ctrl-C quits.`;

/** The `watch` command (mounted by the main program). */
export function watchCommand(): Command {
  return new Command('watch')
    .description("Print a channel's live replica as NDJSON (or draw it on a terminal)")
    .addArgument(new Argument('<channel>', 'feed channel').choices(CHANNEL_NAMES))
    .option('--market_id <n>', 'scope: market id', integerFlag(0, 2 ** 31 - 1))
    .addOption(new Option('--market_type <type>', 'scope: the market type').choices(MARKET_TYPES))
    .addOption(new Option('--is_perps [boolean]', 'scope, the feed\'s name of --market_type: true for perp, false for spot (alone: true)').argParser(booleanFlag))
    .addOption(new Option('--interval <resolution>', 'scope: candle resolution').choices(RESOLUTIONS))
    .option('--address <address>', 'scope: account address (base58)')
    .option('--subaccount_id <n>', 'scope: subaccount id', integerFlag(0, 2 ** 31 - 1))
    .option('--rest-url <url>', 'REST base URL of the exchange (or env EXCHANGE_REST_URL)', urlFlag(['http:', 'https:']))
    .option('--ws-url <url>', 'feed URL (default: the REST host, path /ws)', urlFlag(['ws:', 'wss:']))
    .option('--simulator', 'run against an embedded simulator started in this process')
    .option('--seed <n>', 'seed of the embedded simulator', integerFlag(-(2 ** 31), 2 ** 32 - 1), 1)
    .option('--count <n>', 'stop after this many emissions', integerFlag(1))
    .option('--duration-ms <ms>', 'stop after this many milliseconds', positiveMsFlag)
    .option('--depth <n>', 'book levels per side (and newest candles) printed', integerFlag(1, 500), 10)
    .addHelpText('after', EXAMPLES)
    .action(async (channel: ChannelName, flags: WatchFlags) => {
      try {
        await runWatch(channel, flags);
      } catch (e) {
        reportCliError(e);
      }
    });
}

/** The flags as commander hands them over, each already parsed by its flag parser (or defaulted). */
interface WatchFlags extends ScopeFlags {
  readonly restUrl?: string;
  readonly wsUrl?: string;
  readonly simulator?: boolean;
  readonly seed: number;
  readonly count?: number;
  readonly durationMs?: number;
  readonly depth: number;
}

async function runWatch(channel: ChannelName, flags: WatchFlags): Promise<void> {
  const scope = scopeFor(channel, flags);
  const restUrl = flags.restUrl ?? (flags.simulator ? undefined : process.env.EXCHANGE_REST_URL);
  if (!flags.simulator && restUrl === undefined) throw new CliUsageError('give --rest-url <url> (or EXCHANGE_REST_URL) for a real exchange, or --simulator for an embedded one');
  if (flags.simulator && flags.restUrl !== undefined) throw new CliUsageError('--simulator and --rest-url exclude each other');
  if (flags.wsUrl !== undefined && restUrl === undefined) throw new CliUsageError('--ws-url needs --rest-url');
  const terminal = new Terminal();
  const control = new RunControl(flags.durationMs);
  const target = await openTarget({ restUrl, wsUrl: flags.wsUrl, simulator: flags.simulator === true, seed: flags.seed }).catch((e) => {
    control.dispose();
    terminal.close();
    throw e;
  });
  const subs: Subscription[] = [];
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;
  // The reader went away (`| head`): stop quietly.
  terminal.onOutputClosed(() => control.stop('quit'));
  // A failure of the watched stream reaches both errors$ and the stream's observer: warnings
  // wait one turn of the event loop, and the one that is the failure is printed once, as the
  // closing error line.
  const warnings: Array<{ readonly error: ExchangeReplicaError; readonly note: string }> = [];
  // Before the replica's first state: why nothing is printed yet, and an end after as many
  // failed attempts as view makes (an unreachable exchange is an error, not a silent wait).
  const start = new StartBound();
  let warningsTimer: NodeJS.Immediate | undefined;
  const isFailure = (e: ExchangeReplicaError): boolean => e === failure || (failure instanceof ExchangeReplicaError && failure.code === e.code && failure.message === e.message);
  const flushWarnings = (): void => {
    warningsTimer = undefined;
    for (const { error: e, note } of warnings.splice(0)) if (!isFailure(e)) process.stderr.write(`warning ${safeText(e.code)}: ${safeText(e.message.replace(/\s*\n\s*/g, ' '))}${note}\n`);
  };
  const restoreOnExit = (): void => terminal.restore();
  try {
    const screen = terminal.interactive ? new WatchScreen(terminal, target.label, streamKey(channel, scope)) : undefined;
    const max = flags.count;
    let printed = 0;
    subs.push(
      watchSource(target.client, channel, scope, { depth: flags.depth }).subscribe({
        next: (record) => {
          if (control.isStopped) return;
          if (record.status === 'live' || record.kind !== undefined) start.markStarted();
          if (screen) screen.push(record);
          else terminal.println(safeJson(record));
          if (max !== undefined && ++printed >= max) control.stop('count');
        },
        error: (e: unknown) => {
          failure ??= e;
          control.stop('error');
        },
        complete: () => control.stop('quit'),
      }),
      target.client.errors$.subscribe((e) => {
        const verdict = start.judge(e);
        if (verdict.kind === 'giveUp') {
          failure ??= verdict.error;
          control.stop('error');
          return;
        }
        warnings.push({ error: e, note: verdict.note });
        warningsTimer ??= setImmediate(flushWarnings);
      }),
      target.client.connection.state$.subscribe(({ to }) => {
        if (to === 'open') start.connected();
      }),
    );
    if (screen) {
      subs.push(target.client.connection.state$.subscribe(({ to }) => screen.setFeed(to)));
      process.once('exit', restoreOnExit);
      terminal.enter();
      terminal.onResize(() => screen.draw());
      terminal.onKey((k) => (k === 'q' || k === 'Q' ? control.stop('quit') : k === 'ctrl-c' ? control.stop('signal') : undefined));
      timer = setInterval(() => screen.draw(), 100);
      screen.draw();
    }
    await control.stopped;
    if (screen && max !== undefined) screen.draw();
    if (failure) throw failure;
  } finally {
    if (timer) clearInterval(timer);
    for (const s of subs) s.unsubscribe();
    if (warningsTimer) clearImmediate(warningsTimer);
    flushWarnings();
    terminal.restore();
    process.off('exit', restoreOnExit);
    control.dispose();
    await target.close();
    terminal.close();
  }
}
