/**
 * `exchange-replica replay FILE`: feeds a recording made by `exchange-replica record` into a
 * client (no network) and draws the live view from it, at the recorded pace or a factor of
 * it. The replayed client goes through exactly the recorded states. @internal
 */
import { Command, InvalidArgumentError } from 'commander';
import { ExchangeClient } from '../client';
import { Replayer, type ReplayResult } from '../record/Replayer';
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
  exchange-replica replay session.rec.gz | head -3       # not a terminal: one line a second

Draws what "exchange-replica view" draws, from the recording: the same markets, account,
statuses, resyncs and errors as during the recording, from the same inputs. It stops at the
end of the recording (or on q / Ctrl-C). A torn end (a recorder that died) is skipped. A
replay that parts from the recording stops with error ERR_REPLAY_DIVERGED.`;

/** Options of {@link runReplay}. */
export interface ReplayCommandOptions {
  readonly file: string;
  /** Recorded time per real time; Infinity = as fast as possible. @default 1 */
  readonly speed?: number;
  /** Session of the file, 0 for the first. @default 0 */
  readonly session?: number;
  /** Stop after this long. @default the end of the recording */
  readonly durationMs?: number;
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

/** Replays to the end (or a stop); returns why the view stopped and what was replayed. */
export async function runReplay(options: ReplayCommandOptions): Promise<{ reason: StopReason; result: ReplayResult | undefined }> {
  const print = options.print ?? ((line: string) => void process.stdout.write(`${safeText(line)}\n`));
  const speed = options.speed ?? 1;
  const replayer = new Replayer(options.file, { speed, session: options.session ?? 0 });
  const targets = targetsOf(replayer.header.meta, options.file);
  const torn = replayer.recording.torn;
  const pace = speed === Number.POSITIVE_INFINITY ? 'full speed' : `speed x${speed}`;
  const reason = await runView(
    { ...(options.durationMs !== undefined ? { durationMs: options.durationMs } : {}) },
    {
      ...(options.terminal ? { terminal: options.terminal } : {}),
      open: async () => {
        const client = new ExchangeClient(replayer.clientOptions());
        return {
          target: {
            client,
            sim: undefined,
            label: `replay of ${options.file} (recorded ${replayer.header.startedAt}, ${pace})`,
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

function speedFlag(text: string): number {
  if (text === 'max') return Number.POSITIVE_INFINITY;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a factor > 0 (1 = the recorded pace) or "max".');
  return n;
}

/** The `replay` command (mounted by the main program). */
export function replayCommand(): Command {
  return new Command('replay')
    .description('Draw the live view from a recording made by `record`, exactly as the client saw it (no network)')
    .argument('<file>', 'the recording')
    .option('--speed <factor>', 'recorded time per real time: 1 = the recorded pace, 10 = ten times faster, max = as fast as possible', speedFlag, 1)
    .option('--session <n>', 'session of the file (0 = the first; a file recorded to twice holds two)', integerFlag(0), 0)
    .option('--duration-ms <ms>', 'stop after this many milliseconds', positiveMsFlag)
    .addHelpText('after', EXAMPLES)
    .action(async (file: string, flags: Record<string, unknown>) => {
      try {
        await runReplay({ file, speed: flags.speed as number, session: flags.session as number, durationMs: flags.durationMs as number | undefined });
      } catch (e) {
        reportCliError(e);
      }
    });
}
