/** How every command reports a failure: one clear line on stderr and a non-zero exit code. @internal */
import { ExchangeReplicaError } from '../errors';
import { messageOf } from '../errors/messageOf';
import { safeText } from './term/safeText';

/** Exit code of a usage error (bad flag or parameter); 1 is every other failure. */
const EXIT_USAGE = 2;
const EXIT_FAILURE = 1;

/** Codes that mean the user asked for something invalid (nothing was attempted). */
const USAGE_CODES = new Set(['ERR_INVALID_PARAMETER', 'ERR_SIMULATOR_OPTION', 'ERR_CLI_USAGE']);

/**
 * Prints `error <code>: <message>` (one line) and sets `process.exitCode`. Code and message
 * may be the server's words: their control characters are made visible (safeText.ts).
 */
export function reportCliError(error: unknown, write: (text: string) => void = (t) => void process.stderr.write(t)): void {
  const thrown = typeof error === 'object' && error !== null ? error : {};
  const code = error instanceof ExchangeReplicaError ? error.code : 'code' in thrown && thrown.code != null ? String(thrown.code) : 'ERR_UNKNOWN';
  const message = messageOf(error).replace(/\s*\n\s*/g, ' ');
  write(`error ${safeText(code)}: ${safeText(message)}\n`);
  process.exitCode = USAGE_CODES.has(String(code)) ? EXIT_USAGE : EXIT_FAILURE;
}
