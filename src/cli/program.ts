/**
 * The `exchange-replica` program: `simulate`, `rest <operation>`, `watch <channel>`, `view`.
 * Every command has `--help` with examples (stdout, exit 0). Every usage problem (unknown
 * option or command, missing or invalid argument or flag value) is one line
 * `error ERR_CLI_USAGE: ...` on stderr and exit code 2; other failures print one
 * `error <code>: ...` line and exit non-zero. @internal
 */
import { Command, CommanderError } from 'commander';
import { CliUsageError } from './CliUsageError';
import { reportCliError } from './reportCliError';
import { relayCommand } from './relayCommand';
import { recordCommand } from './recordCommand';
import { replayCommand } from './replayCommand';
import { restCommand } from './restCommand';
import { simulateCommand } from './simulateCommand';
import { viewCommand } from './view/viewCommand';
import { watchCommand } from './watch/watchCommand';

const EXAMPLES = `
Examples:
  exchange-replica view                                   # live view against an embedded simulator (npm start)
  exchange-replica simulate --port 8080                   # run the local exchange
  exchange-replica rest bbo --rest-url http://127.0.0.1:8080 --market_type perp --market_id 0
  exchange-replica watch book --simulator --market_id 0 --market_type perp --count 3
  exchange-replica watch trades --rest-url http://127.0.0.1:8080 --market_id 3 --market_type spot
  exchange-replica <command> --help

Errors print one line "error <code>: <message>" on stderr and exit with 2 (a bad parameter
or usage) or 1 (any other failure).`;

/** Options of {@link createProgram}. */
export interface ProgramOptions {
  /** What `--version` prints. @default 'unknown' */
  readonly version?: string;
}

/** `exchange-replica watch`, for messages. */
function commandPath(c: Command): string {
  const names: string[] = [];
  for (let x: Command | null = c; x; x = x.parent) names.unshift(x.name());
  return names.join(' ');
}

/** The long flags `c` accepts, e.g. `--market_id, --help`. */
function acceptedOptions(c: Command): string {
  const flags = c.options.map((o) => o.long ?? o.short ?? o.flags);
  flags.push('--help');
  return flags.join(', ');
}

/** Commander's error as one line naming what was wrong and what is accepted. */
function usageMessage(c: Command, e: CommanderError): string {
  const path = commandPath(c);
  const text = e.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  // Commander's suggestion ("(Did you mean --x?)") goes after what is accepted.
  const suggestion = / \(Did you mean ([^)]*)\?\)$/.exec(text);
  const what = suggestion ? text.slice(0, suggestion.index) : text;
  const didYouMean = suggestion ? `; did you mean ${suggestion[1]}?` : '';
  const commands = c.commands.map((s) => s.name()).join(', ');
  const hint = ` (see ${path} --help)`;
  switch (e.code) {
    case 'commander.unknownOption':
      return `${what} for ${path}; accepted: ${acceptedOptions(c)}${didYouMean}${hint}`;
    case 'commander.unknownCommand':
      return `${what} for ${path}; commands: ${commands}${didYouMean}${hint}`;
    case 'commander.help': {
      // No subcommand given, or `help <unknown>` (commander would print the whole help on stderr).
      const asked = c.args[0] === 'help' ? c.args[1] : undefined;
      return `${asked !== undefined ? `unknown command '${asked}'` : 'missing command'} for ${path}; commands: ${commands}${hint}`;
    }
    case 'commander.missingArgument': {
      const choices = c.registeredArguments.flatMap((a) => a.argChoices ?? []);
      return `${what} of ${path}${choices.length ? `; one of: ${choices.join(', ')}` : ''}${hint}`;
    }
    case 'commander.excessArguments':
      return `${what.replace(/\.$/, '')}${hint}`;
    default:
      return `${what.replace(/\.$/, '')}${hint}`;
  }
}

/**
 * Commander's own exits become exceptions: help and version (exit code 0) as they are, every
 * other one as a CliUsageError. Commander prints nothing itself for an error: the caller
 * reports the exception as one line.
 */
function usageRules(c: Command): void {
  c.exitOverride((e) => {
    if (e.exitCode === 0) throw e;
    throw new CliUsageError(usageMessage(c, e));
  });
  c.configureOutput({
    outputError: () => undefined,
    // Only used for help shown because of an error (a missing command): reported instead.
    writeErr: () => undefined,
  });
  c.commands.forEach(usageRules);
}

/** A fresh program (commands mounted, not parsed). */
export function createProgram(options: ProgramOptions = {}): Command {
  const program = new Command('exchange-replica')
    .description('Live, exact replicas of an exchange (books, trades, stats, funding, accounts) and a local exchange simulator')
    .version(options.version ?? 'unknown', '-V, --version', 'print the version of exchange-replica')
    .addHelpText('after', EXAMPLES);
  program.addCommand(viewCommand());
  program.addCommand(simulateCommand());
  program.addCommand(restCommand());
  program.addCommand(watchCommand());
  program.addCommand(relayCommand());
  program.addCommand(recordCommand());
  program.addCommand(replayCommand());
  // Commands added with addCommand do not inherit settings: every level gets them.
  usageRules(program);
  return program;
}

/**
 * Runs the program on `argv` (as `process.argv`: node, script, args...). Help and version
 * end with exit code 0; any failure is reported by {@link reportCliError} (one line,
 * `process.exitCode` 2 for usage, 1 otherwise).
 */
export async function runCli(argv: readonly string[], options: ProgramOptions = {}): Promise<void> {
  try {
    await createProgram(options).parseAsync([...argv]);
  } catch (e) {
    if (e instanceof CommanderError && e.exitCode === 0) return;
    reportCliError(e);
  }
}
