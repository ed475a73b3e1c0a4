/** How every command reports a failure: one clear line on stderr and a non-zero exit code. @internal */
import { ExchangeReplicaError } from '../errors';

/** Exit code of a usage error (bad flag or parameter); 1 is every other failure. */
export const EXIT_USAGE = 2;
export const EXIT_FAILURE = 1;

/** Codes that mean the user asked for something invalid (nothing was attempted). */
const USAGE_CODES = new Set(['ERR_INVALID_PARAMETER', 'ERR_SIMULATOR_OPTION', 'ERR_CLI_USAGE']);

/** A command-line mistake found after parsing (e.g. a missing combination of flags). */
export class CliUsageError extends ExchangeReplicaError {
  constructor(message: string) {
    super('ERR_CLI_USAGE', message);
  }
}

/** Prints `error <code>: <message>` (one line) and sets `process.exitCode`. */
export function reportCliError(error: unknown, write: (text: string) => void = (t) => void process.stderr.write(t)): void {
  const code = error instanceof ExchangeReplicaError ? error.code : ((error as { code?: unknown })?.code as string | undefined) ?? 'ERR_UNKNOWN';
  const message = ((error as Error)?.message ?? String(error)).replace(/\s*\n\s*/g, ' ');
  write(`error ${code}: ${message}\n`);
  process.exitCode = USAGE_CODES.has(String(code)) ? EXIT_USAGE : EXIT_FAILURE;
}
