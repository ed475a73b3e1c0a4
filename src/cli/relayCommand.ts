/**
 * `exchange-replica relay`: one exchange connection republished on NATS JetStream (see
 * src/nats/ReplicaRelay.ts). Prints what it carries, each stream's status changes and a
 * summary line every `--status-ms`; runs until Ctrl-C / SIGTERM or `--duration-ms`. The NATS
 * client packages are loaded only when the command runs. @internal
 */
import { Command, InvalidArgumentError } from 'commander';
import { ExchangeClient } from '../client';
import { CHANNEL_NAMES, isChannelName, type ChannelName, type MarketType } from '../protocol';
import { accountStreams, DEFAULT_ACCOUNT_CHANNELS, DEFAULT_MARKET_CHANNELS, defaultStreams, marketStreams } from '../nats/relayStreams';
import { ReplicaRelay } from '../nats/ReplicaRelay';
import { MAX_REPLICAS, type RelayStream } from '../nats/relayOptions';
import { serveRelayMetrics, type RelayMetricsServer } from '../nats/relayMetrics';
import { redactNatsUrl } from '../nats/natsAuth';
import { CliUsageError } from './CliUsageError';
import { addNatsAuthFlags, natsAuthFromFlags } from './natsAuthFlags';
import { reportCliError } from './reportCliError';
import { integerFlag, positiveMsFlag, urlFlag } from './flagParsers';
import { RunControl } from './RunControl';
import { safeText } from './term/safeText';

const EXAMPLES = `
Examples:
  exchange-replica simulate --port 8080 &
  nats-server -js &
  exchange-replica relay --rest-url http://127.0.0.1:8080 --nats nats://127.0.0.1:4222
  exchange-replica relay --rest-url http://127.0.0.1:8080 --markets perp:0,spot:1 --channels book,bbo,trades
  exchange-replica relay --rest-url http://127.0.0.1:8080 --accounts <base58>:0 --markets perp:0

Without --markets and --accounts it carries what \`view\` shows: the first active perp and
spot markets (book, marketStats, trades, and fundingRates of the perp). --channels picks the
channels of each market and account (default: ${DEFAULT_MARKET_CHANNELS.join(',')} per market,
${DEFAULT_ACCOUNT_CHANNELS.join(',')} per account).

On a NATS server with authentication, sign in as a relay: --nats-creds FILE (or NATS_CREDS),
--nats-nkey SEEDFILE (NATS_NKEY), --nats-user with NATS_PASSWORD, or NATS_TOKEN; --nats-ca FILE
(NATS_CA) or a tls:// URL for TLS. Secrets are never printed. README, "Trust", gives a
nats-server configuration with a relay role and a consumer role.

Run two relays with the same streams for high availability: JetStream stores each batch of
updates once (message id <streamKey>#<first>-<last>), and either relay keeps the snapshots fresh.

Clustered: give every node's URL (--nats nats://a:4222,nats://b:4222,nats://c:4222) and
--replicas 3; the relay reconnects to another node when its node is lost.

With --metrics-port, /metrics serves Prometheus text (per stream: updates, batches,
duplicates, resyncs by reason, seconds since the last publish, snapshot writes; NATS
reconnects; event-loop lag) and /healthz answers 200 while every stream is live and NATS
is connected, else 503 with the reasons. It listens on 127.0.0.1 unless --metrics-host.

Output: "carrying <streamKey> on <subject>" per stream, "status <streamKey> <status>" on
each change, and every --status-ms "relay <id> feed=<state> live=<n>/<n> published=<n>
duplicates=<n>". Errors the relay survives go to stderr as "warning <code>: <message>".`;

/** `perp:0,spot:1` */
function marketsFlag(text: string): { type: MarketType; id: number }[] {
  return text.split(',').map((part) => {
    const m = /^(perp|spot):(\d{1,10})$/.exec(part.trim());
    if (!m || Number(m[2]) > 2 ** 31 - 1) throw new InvalidArgumentError(`expected a comma-separated list of <perp|spot>:<market_id>, such as perp:0,spot:1 (got ${JSON.stringify(part)}).`);
    return { type: m[1] as MarketType, id: Number(m[2]) };
  });
}

/** `<address>:<subaccount_id>,...` (the subaccount defaults to 0) */
function accountsFlag(text: string): { address: string; subaccountId: number }[] {
  return text.split(',').map((part) => {
    const m = /^([1-9A-HJ-NP-Za-km-z]+)(?::(\d{1,10}))?$/.exec(part.trim());
    if (!m || Number(m[2] ?? 0) > 2 ** 31 - 1) throw new InvalidArgumentError(`expected a comma-separated list of <base58 address>[:<subaccount_id>] (got ${JSON.stringify(part)}).`);
    return { address: m[1]!, subaccountId: Number(m[2] ?? 0) };
  });
}

/** `book,trades` */
function channelsFlag(text: string): ChannelName[] {
  return text.split(',').map((c) => {
    const name = c.trim();
    if (!isChannelName(name)) throw new InvalidArgumentError(`unknown channel ${JSON.stringify(name)}; channels: ${CHANNEL_NAMES.join(', ')}.`);
    return name;
  });
}

/** The `relay` command (mounted by the main program). */
export function relayCommand(): Command {
  const command = new Command('relay')
    .description('Republish exchange streams on NATS JetStream for consumers in other processes (exchange-replica/nats)')
    .option('--rest-url <url>', 'REST base URL of the exchange (or env EXCHANGE_REST_URL)', urlFlag(['http:', 'https:']))
    .option('--ws-url <url>', 'feed URL (default: the REST host, path /ws)', urlFlag(['ws:', 'wss:']))
    .option('--nats <urls>', 'NATS server URL(s), comma-separated (or env NATS_URL; default nats://127.0.0.1:4222)')
    .option('--markets <list>', 'markets to carry: <perp|spot>:<market_id>,... (default: the first active perp and spot)', marketsFlag)
    .option('--accounts <list>', 'accounts to carry: <address>[:<subaccount_id>],...', accountsFlag)
    .option('--channels <list>', 'channels of each market and account, comma-separated', channelsFlag)
    .option('--relay-id <id>', 'name of this relay in heartbeats and headers (default: <host>-<pid>-<random>)')
    .option('--prefix <prefix>', 'prefix of the bus names (stream <PREFIX>_UPDATES, subjects <prefix>.u.>, bucket <prefix>_snapshots)', 'er')
    .option('--heartbeat-ms <ms>', 'heartbeat period', integerFlag(10), 1000)
    .option('--refresh-ms <ms>', 'each snapshot is rewritten to the KV bucket at least this often', integerFlag(100), 5000)
    .option('--status-ms <ms>', 'period of the summary line', integerFlag(100), 5000)
    .option('--duration-ms <ms>', 'stop after this many milliseconds', positiveMsFlag)
    .option('--replicas <n>', `copies of the updates stream and the snapshot bucket in a JetStream cluster (1-${MAX_REPLICAS}; 3 survives a node loss, each publish then waits for a second node; an existing stream keeps its count)`, integerFlag(1, MAX_REPLICAS), 1)
    .option('--metrics-port <port>', 'serve Prometheus metrics at /metrics and a health check at /healthz on this port (0: a free one, printed)', integerFlag(0, 65535))
    .option('--metrics-host <host>', 'address the metrics server listens on', '127.0.0.1')
    .addHelpText('after', EXAMPLES)
    .action(async (flags: Record<string, unknown>) => {
      try {
        await runRelay(flags);
      } catch (e) {
        reportCliError(e);
      }
    });
  return addNatsAuthFlags(command);
}

function streamsOf(flags: Record<string, unknown>): RelayStream[] | undefined {
  const markets = flags.markets as { type: MarketType; id: number }[] | undefined;
  const accounts = flags.accounts as { address: string; subaccountId: number }[] | undefined;
  const channels = flags.channels as ChannelName[] | undefined;
  if (markets === undefined && accounts === undefined) return undefined;
  const out: RelayStream[] = [];
  for (const m of markets ?? []) out.push(...marketStreams(m.type, m.id, channels ?? DEFAULT_MARKET_CHANNELS));
  for (const a of accounts ?? []) out.push(...accountStreams(a.address, a.subaccountId, channels ?? DEFAULT_ACCOUNT_CHANNELS));
  if (out.length === 0) throw new CliUsageError(`--channels ${channels?.join(',')} names no channel of the markets and accounts given`);
  return out;
}

async function runRelay(flags: Record<string, unknown>): Promise<void> {
  const restUrl = (flags.restUrl as string | undefined) ?? process.env.EXCHANGE_REST_URL;
  if (restUrl === undefined) throw new CliUsageError('give --rest-url <url> (or EXCHANGE_REST_URL): the exchange to relay');
  const natsUrl = String(flags.nats ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  const natsAuth = natsAuthFromFlags(flags);
  const asked = streamsOf(flags);
  const control = new RunControl(flags.durationMs as number | undefined);
  // Stream keys and statuses come from the exchange and the flags: shown, never obeyed by the terminal.
  const out = (line: string) => void process.stdout.write(`${safeText(line)}\n`);
  const client = new ExchangeClient({ restUrl, ...(flags.wsUrl !== undefined ? { wsUrl: flags.wsUrl as string } : {}) });
  let relay: ReplicaRelay | undefined;
  let timer: NodeJS.Timeout | undefined;
  let metrics: RelayMetricsServer | undefined;
  try {
    const streams = asked ?? (await defaultStreams(client, (flags.channels as ChannelName[] | undefined) ?? DEFAULT_MARKET_CHANNELS));
    if (streams.length === 0) throw new CliUsageError('nothing to carry: the exchange lists no market of the channels asked for');
    relay = await ReplicaRelay.start({
      client,
      natsUrl,
      ...(natsAuth !== undefined ? { natsAuth } : {}),
      streams,
      ...(flags.relayId !== undefined ? { relayId: flags.relayId as string } : {}),
      prefix: flags.prefix as string,
      heartbeatMs: flags.heartbeatMs as number,
      snapshotRefreshMs: flags.refreshMs as number,
      streamLimits: { replicas: flags.replicas as number },
    });
    const r = relay;
    for (const s of r.describe()) out(`carrying ${s.streamKey} on ${s.subject}`);
    out(`relay ${r.relayId} started: ${r.streams.length} streams, NATS ${natsUrl.map(redactNatsUrl).join(',')}, exchange ${restUrl}`);
    r.status$.subscribe(({ streamKey, status }) => out(`status ${streamKey} ${status}`));
    // errors$ carries ExchangeReplicaErrors only (what NATS threw is their cause).
    r.errors$.subscribe((e) => process.stderr.write(`warning ${safeText(e.code)}: ${safeText(e.message.replace(/\s*\n\s*/g, ' '))}\n`));
    const summary = () => {
      const d = r.describe();
      out(`relay ${r.relayId} feed=${r.client.connection.state} live=${d.filter((s) => s.status === 'live').length}/${d.length} published=${d.reduce((n, s) => n + s.published, 0)} duplicates=${d.reduce((n, s) => n + s.duplicates, 0)}`);
    };
    if (flags.metricsPort !== undefined) {
      metrics = await serveRelayMetrics(r, { port: flags.metricsPort as number, host: flags.metricsHost as string });
      out(`metrics on ${metrics.url}/metrics, health on ${metrics.url}/healthz`);
    }
    timer = setInterval(summary, flags.statusMs as number);
    await control.stopped;
    summary();
  } finally {
    if (timer) clearInterval(timer);
    control.dispose();
    await metrics?.close();
    await relay?.close();
    await client.close();
  }
}
