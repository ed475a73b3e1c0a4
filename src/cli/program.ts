/**
 * The `exchange-replica` program: `simulate`, `rest <operation>`, `watch <channel>`, `view`.
 * Every command has `--help` with examples; failures print one `error <code>: ...` line and
 * exit non-zero. @internal
 */
import { Command } from 'commander';
import { restCommand } from './restCommand';
import { simulateCommand } from './simulateCommand';
import { viewCommand } from './view/viewCommand';
import { watchCommand } from './watch/watchCommand';

const EXAMPLES = `
Examples:
  exchange-replica view                                   # live view against an embedded simulator (npm start)
  exchange-replica simulate --port 8080                   # run the local exchange
  exchange-replica rest bbo --rest-url http://127.0.0.1:8080 --market_type perp --market_id 0
  exchange-replica watch book --simulator --market_id 0 --is_perps --count 3
  exchange-replica watch trades --rest-url http://127.0.0.1:8080 --market_id 3 --is_perps false
  exchange-replica <command> --help`;

/** A fresh program (commands mounted, not parsed). */
export function createProgram(): Command {
  const program = new Command('exchange-replica')
    .description('Live, exact replicas of an exchange (books, trades, stats, funding, accounts) and a local exchange simulator')
    .addHelpText('after', EXAMPLES);
  program.addCommand(viewCommand());
  program.addCommand(simulateCommand());
  program.addCommand(restCommand());
  program.addCommand(watchCommand());
  // Commands added with addCommand do not inherit settings: every level gets the hint.
  const hint = (c: Command): void => {
    c.showHelpAfterError('(add --help for usage and examples)');
    c.commands.forEach(hint);
  };
  hint(program);
  return program;
}
