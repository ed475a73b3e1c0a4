/**
 * `exchange-replica view` (and `npm start`): the live terminal view of two markets and one
 * account, against the embedded simulator or a real exchange. @internal
 */
import { Command } from 'commander';
import { CliUsageError } from '../CliUsageError';
import { addNatsAuthFlags, natsAuthFromFlags } from '../natsAuthFlags';
import { reportCliError } from '../reportCliError';
import { integerFlag, positiveMsFlag } from '../flagParsers';
import { addViewTargetFlags, checkViewTargetFlags } from './viewTargetFlags';
import { runView, type ViewOptions } from './runView';

/** Port of `--web` when `--port` is not given. */
export const DEFAULT_WEB_PORT = 8280;

const EXAMPLES = `
Examples:
  npm start                                          # the same as: exchange-replica view
  exchange-replica view --seed 7                     # another simulated world
  exchange-replica view --duration-ms 10000          # exit by itself after 10 s
  exchange-replica view | head -5                    # not a terminal: one line a second
  exchange-replica view --rest-url https://api.example.com --address <base58> --subaccount-id 0
  exchange-replica view --nats nats://127.0.0.1:4222   # from the bus, beside: exchange-replica relay --rest-url URL --nats nats://127.0.0.1:4222
  exchange-replica view --web                        # in a browser: open http://127.0.0.1:${DEFAULT_WEB_PORT}/
  exchange-replica view --web --port 0               # on any free port (the URL is printed)

On a terminal it redraws in place several times a second:
  - for one perp and one spot market: the top book levels as depth bars, spread and mid,
    the last trades, market stats and funding;
  - one subaccount: balances, positions and open orders;
  - the feed connection and each subscription's status (live, resyncing, stale, ...);
  - latency from the server's timestamp to the draw (p50/p99) and to the replica, frames/s.
Keys: f injects a random fault into the simulator (watch a resync heal the book), q or
Ctrl-C quits. With --rest-url the view shows a real exchange and f is disabled.
When stdout is not a terminal it prints one line a second instead (key=value words); its
latency is model_p50/model_p99, from the server's timestamp to the view model (a print a
second would only measure its own cadence), and feed_p50/feed_p99, to the replica.
With --web it draws nothing on the terminal: it serves one page on 127.0.0.1 (port
${DEFAULT_WEB_PORT}, or --port; 0 picks a free one), prints its URL on one line and pushes the
view to it ten times a second: the depth chart of a book (pick the market on the page), its
last trades, every replica's status and a latency histogram, updated in place. f and q
still work from the terminal; Ctrl-C or SIGTERM stops the view and the server.
With --nats on a server with authentication, sign in as a consumer: --nats-creds FILE (or
NATS_CREDS), --nats-nkey SEEDFILE (NATS_NKEY), --nats-user with NATS_PASSWORD, or NATS_TOKEN;
--nats-ca FILE (NATS_CA) or a tls:// URL for TLS. Secrets are never printed.`;

/** The flags as commander hands them over, each already parsed by its flag parser. */
interface ViewFlags {
  readonly seed: number;
  readonly durationMs?: number;
  readonly restUrl?: string;
  readonly wsUrl?: string;
  readonly perp?: number;
  readonly spot?: number;
  readonly address?: string;
  readonly subaccountId: number;
  readonly eventsPerSecond?: number;
  readonly nats?: string;
  readonly web?: boolean;
  readonly port?: number;
}

/** The `view` command (mounted by the main program). */
export function viewCommand(): Command {
  const command = new Command('view').description('Live terminal view of books, trades, stats, funding, one account and the feed health (embedded simulator by default)');
  addViewTargetFlags(command)
    .option('--duration-ms <ms>', 'exit by itself after this many milliseconds', positiveMsFlag)
    .option('--nats <url>', 'draw from the bus (relays on this NATS server) instead of the exchange; --rest-url then only serves REST calls')
    .option('--web', 'serve the view as a web page on 127.0.0.1 instead of drawing it on the terminal')
    .option('--port <n>', `port of --web (default ${DEFAULT_WEB_PORT}; 0: any free port)`, integerFlag(0, 65535))
    .addHelpText('after', EXAMPLES)
    .action(async (flags: ViewFlags) => {
      try {
        if (flags.nats !== undefined && flags.eventsPerSecond !== undefined) throw new CliUsageError('--events-per-second drives the embedded simulator; --nats draws from the bus');
        if (flags.port !== undefined && flags.web !== true) throw new CliUsageError('--port is the port of --web: add --web');
        // The flags need --nats; the variables are read only with it (they may be set for other programs).
        if (flags.nats === undefined && natsAuthFromFlags(flags as unknown as Record<string, unknown>, {}) !== undefined) throw new CliUsageError('the --nats-* credential flags sign in to the bus: add --nats <url>');
        const natsAuth = flags.nats !== undefined ? natsAuthFromFlags(flags as unknown as Record<string, unknown>) : undefined;
        checkViewTargetFlags(flags);
        const options: ViewOptions = {
          seed: flags.seed,
          durationMs: flags.durationMs,
          restUrl: flags.restUrl,
          wsUrl: flags.wsUrl,
          perp: flags.perp,
          spot: flags.spot,
          address: flags.address,
          subaccountId: flags.subaccountId,
          eventsPerSecond: flags.eventsPerSecond,
          natsUrl: flags.nats,
          ...(natsAuth !== undefined ? { natsAuth } : {}),
          webPort: flags.web === true ? (flags.port ?? DEFAULT_WEB_PORT) : undefined,
        };
        await runView(options);
      } catch (e) {
        reportCliError(e);
      }
    });
  return addNatsAuthFlags(command);
}
