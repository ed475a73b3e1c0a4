/**
 * The flags that say what the live view (and `record`, which runs the view's subscriptions)
 * reads from: the embedded simulator by default, or a real exchange, and which markets and
 * account. Defined once so both commands take the same flags with the same checks.
 */
import type { Command } from 'commander';
import { CliUsageError } from '../CliUsageError';
import { integerFlag, nonNegativeFlag, urlFlag } from '../flagParsers';

/** Adds the target flags to `command`. */
export function addViewTargetFlags(command: Command): Command {
  return command
    .option('--seed <n>', 'seed of the embedded simulator (and of the faults it injects)', integerFlag(-(2 ** 31), 2 ** 32 - 1), 1)
    .option('--rest-url <url>', 'REST base URL of a real exchange instead of the simulator', urlFlag(['http:', 'https:']))
    .option('--ws-url <url>', 'feed URL of that exchange (default: the REST host, path /ws)', urlFlag(['ws:', 'wss:']))
    .option('--perp <market_id>', 'perp market (default: the first active one)', integerFlag(0, 2 ** 31 - 1))
    .option('--spot <market_id>', 'spot market (default: the first active one)', integerFlag(0, 2 ** 31 - 1))
    .option('--address <address>', 'account (default with the simulator: one that trades)')
    .option('--subaccount-id <n>', 'subaccount of --address', integerFlag(0, 2 ** 31 - 1), 0)
    .option('--events-per-second <n>', 'order-flow events per second of the simulator', nonNegativeFlag);
}

/**
 * The checks the flags need together.
 * @throws CliUsageError for `--ws-url` without `--rest-url`.
 */
export function checkViewTargetFlags(flags: { readonly wsUrl?: unknown; readonly restUrl?: unknown }): void {
  if (flags.wsUrl !== undefined && flags.restUrl === undefined) throw new CliUsageError('--ws-url needs --rest-url (the feed of which exchange?)');
}
