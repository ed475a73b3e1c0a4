/**
 * `exchange-replica replay FILE`: draws the live view (terminal or `--web`) from a recording
 * made by `exchange-replica record` (no network): a client whose replicas read the recording
 * (`RecordingSource`), in recorded time, at the recorded pace or a factor of it, from its
 * start or `--from` a recorded time. `--exact` runs the exact rerun instead (`Replayer`: every
 * input of the recorded client fed back and checked in order; the debugging tool). @internal
 */
import { Command, InvalidArgumentError } from 'commander';
import { ExchangeClient } from '../client';
import type { ExchangeClientOptions } from '../client/clientOptions';
import { Replayer, type ReplayResult } from '../record/Replayer';
import { RecordingSource } from '../record/RecordingSource';
import { parseReplayTime, type ReplayTime } from '../record/replayTime';
import { DEFAULT_WEB_PORT } from './view/viewCommand';
import { CliUsageError } from './CliUsageError';
import { integerFlag, positiveMsFlag } from './flagParsers';
import type { RecordMeta } from './recordCommand';
import { reportCliError } from './reportCliError';
import type { StopReason } from './RunControl';
import { safeText } from './term/safeText';
import type { Terminal } from './term/Terminal';
import type { ViewTargets } from './view/pickTargets';
import { runView } from './view/runView';

const EXAMPLES = `
Examples:
  exchange-replica replay session.rec.gz                 # the recorded pace
  exchange-replica replay session.rec.gz --speed 10      # ten times faster
  exchange-replica replay session.rec.gz --speed max     # as fast as possible (last frame shown)
  exchange-replica replay session.rec.gz --from 5m      # from five minutes into the recording
  exchange-replica replay session.rec.gz --web           # in a browser
  exchange-replica replay session.rec.gz --exact         # the exact rerun (debugging)
  exchange-replica replay session.rec.gz | head -3       # not a terminal: one line a second

Draws what "exchange-replica view" draws, from the recording: the same markets and account,
with the statuses, resyncs and gaps they had, in recorded time (from --from: each replica
starts from its snapshot recorded nearest before it). It stops at the end of the recording
(or on q / Ctrl-C). A torn end (a recorder that died) is skipped.

--exact feeds every recorded input back to a client and checks each of its reads and actions
in order (the debugging tool: a replay that parts from the recording stops with error
ERR_REPLAY_DIVERGED); it always starts at the beginning.`;

/** Options of {@link runReplay}. */
export interface ReplayCommandOptions {
  readonly file: string;
  /** Recorded time per real time; Infinity = as fast as possible. @default 1 */
  readonly speed?: number;
  /** Session of the file, 0 for the first. @default 0 */
  readonly session?: number;
  /** Stop after this long. @default the end of the recording */
  readonly durationMs?: number;
  /** Start at this recorded time (not with `exact`). @default the session's start */
  readonly from?: ReplayTime;
  /** The exact rerun (`Replayer`) instead of the recording as a source. @default false */
  readonly exact?: boolean;
  /** Serve the view as a web page on 127.0.0.1 at this port instead of the terminal. @default undefined */
  readonly webPort?: number;
  readonly terminal?: Terminal;
  readonly print?: (line: string) => void;
}

/** The view targets `record` stored in the session header. */
function targetsOf(meta: unknown, file: string): ViewTargets {
  const m = meta as Partial<RecordMeta> | null;
  const t = m?.command === 'record' ? m.targets : undefined;
  if (!t || !Array.isArray(t.markets) || !Array.isArray(t.allMarkets) || !Array.isArray(t.tokenDecimals)) {
    throw new CliUsageError(`${file} was not recorded by "exchange-replica record" (its session has no view targets): replay it with the Replayer class`);
  }
  return { markets: t.markets, allMarkets: t.allMarkets, account: t.account ?? undefined, tokenDecimals: new Map(t.tokenDecimals) };
}

/** Replays to the end (or a stop); returns why the view stopped and what was replayed (`result`: the exact rerun's). */
export async function runReplay(options: ReplayCommandOptions): Promise<{ reason: StopReason; result: ReplayResult | undefined }> {
  if (!options.exact) return { reason: await runSourceReplay(options), result: undefined };
  if (options.from !== undefined) throw new CliUsageError('--from starts a replay from a recorded time: the exact rerun (--exact) always starts at the beginning');
  const print = options.print ?? ((line: string) => void process.stdout.write(`${safeText(line)}\n`));
  const speed = options.speed ?? 1;
  const replayer = new Replayer(options.file, { speed, session: options.session ?? 0 });
  const targets = targetsOf(replayer.header.meta, options.file);
  const torn = replayer.recording.torn;
  const pace = speed === Number.POSITIVE_INFINITY ? 'full speed' : `speed x${speed}`;
  const reason = await runView(
    { ...(options.durationMs !== undefined ? { durationMs: options.durationMs } : {}), ...(options.webPort !== undefined ? { webPort: options.webPort } : {}) },
    {
      ...(options.terminal ? { terminal: options.terminal } : {}),
      open: async () => {
        const client = new ExchangeClient(replayer.clientOptions());
        return {
          target: {
            client,
            sim: undefined,
            label: `exact rerun of ${options.file} (recorded ${replayer.header.startedAt}, ${pace})`,
            // Detach the replay first: what the client does when it closes early is not in the recording.
            close: () => {
              replayer.stop();
              return client.close();
            },
          },
          targets,
          ended: replayer.start(),
        };
      },
    },
  );
  replayer.stop();
  const result = await replayer.done;
  print(
    `replayed ${result.frames} frames, ${result.inputs} inputs (${(result.recordedMs / 1000).toFixed(1)}s recorded) in ${(result.realMs / 1000).toFixed(1)}s${result.end ? '' : '; the session has no end entry (the recorder died or was cut)'}${torn ? `; torn tail skipped: ${torn.reason}` : ''}`,
  );
  return { reason, result };
}

/** The view drawn from the recording as a replica source, from `from` on, in recorded time. */
async function runSourceReplay(options: ReplayCommandOptions): Promise<StopReason> {
  const print = options.print ?? ((line: string) => void process.stdout.write(`${safeText(line)}\n`));
  const speed = options.speed ?? 1;
  const source = new RecordingSource(options.file, { speed, session: options.session ?? 0, ...(options.from !== undefined ? { from: options.from } : {}) });
  const targets = targetsOf(source.header.meta, options.file);
  const pace = speed === Number.POSITIVE_INFINITY ? 'full speed' : `speed x${speed}`;
  const from = source.fromMs > 0 ? `, from ${(source.fromMs / 1000).toFixed(1)}s` : '';
  const started = performance.now();
  const reason = await runView(
    { ...(options.durationMs !== undefined ? { durationMs: options.durationMs } : {}), ...(options.webPort !== undefined ? { webPort: options.webPort } : {}) },
    {
      ...(options.terminal ? { terminal: options.terminal } : {}),
      open: async () => {
        const client = new ExchangeClient(source.clientOptions(reviveRecordedOptions(source)));
        return {
          target: {
            client,
            sim: undefined,
            label: `replay of ${options.file} (recorded ${source.header.startedAt}, ${pace}${from})`,
            close: () => {
              source.close();
              return client.close();
            },
          },
          targets,
          ended: source.ended,
        };
      },
    },
  );
  source.close();
  const result = await source.ended;
  const torn = source.torn;
  const error = result.error instanceof Error ? `; stopped: ${result.error.message}` : '';
  print(
    `replayed ${source.framesRead()} frames, ${result.updates} updates (${((result.recordedMs - source.fromMs) / 1000).toFixed(1)}s recorded) in ${((performance.now() - started) / 1000).toFixed(1)}s${source.end ? '' : '; the session has no end entry (the recorder died or was cut)'}${torn ? `; torn tail skipped: ${torn.reason}` : ''}${error}`,
  );
  return reason;
}

/** The recorded client's replica options (liveness windows, buffers): the replay's replicas behave as those did. */
function reviveRecordedOptions(source: RecordingSource): { replica?: ExchangeClientOptions['replica'] } {
  const o = source.header.options as { replica?: ExchangeClientOptions['replica'] } | null;
  return o?.replica !== undefined && typeof o.replica === 'object' ? { replica: o.replica } : {};
}

function speedFlag(text: string): number {
  if (text === 'max') return Number.POSITIVE_INFINITY;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a factor > 0 (1 = the recorded pace) or "max".');
  return n;
}

function fromFlag(text: string): ReplayTime {
  try {
    return parseReplayTime(text);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

/** The `replay` command (mounted by the main program). */
export function replayCommand(): Command {
  return new Command('replay')
    .description('Draw the live view from a recording made by `record`, in recorded time (no network); --exact: the exact rerun')
    .argument('<file>', 'the recording')
    .option('--speed <factor>', 'recorded time per real time: 1 = the recorded pace, 10 = ten times faster, max = as fast as possible', speedFlag, 1)
    .option('--session <n>', 'session of the file (0 = the first; a file recorded to twice holds two)', integerFlag(0), 0)
    .option('--duration-ms <ms>', 'stop after this many milliseconds', positiveMsFlag)
    .option('--from <time>', 'start at this recorded time: an offset (90s, 1m30s, 1h, 250ms) or an ISO date', fromFlag)
    .option('--exact', 'the exact rerun: every recorded input fed back to a client and checked in order (debugging; from the start)')
    .option('--web', 'serve the view as a web page on 127.0.0.1 instead of drawing it on the terminal')
    .option('--port <n>', `port of --web (default ${DEFAULT_WEB_PORT}; 0: any free port)`, integerFlag(0, 65535))
    .addHelpText('after', EXAMPLES)
    .action(async (file: string, flags: Record<string, unknown>) => {
      try {
        if (flags.port !== undefined && flags.web !== true) throw new CliUsageError('--port is the port of --web: add --web');
        const webPort = flags.web === true ? ((flags.port as number | undefined) ?? DEFAULT_WEB_PORT) : undefined;
        await runReplay({
          file,
          speed: flags.speed as number,
          session: flags.session as number,
          durationMs: flags.durationMs as number | undefined,
          exact: flags.exact === true,
          ...(flags.from !== undefined ? { from: flags.from as ReplayTime } : {}),
          ...(webPort !== undefined ? { webPort } : {}),
        });
      } catch (e) {
        reportCliError(e);
      }
    });
}
