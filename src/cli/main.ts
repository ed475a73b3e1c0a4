/**
 * Entry point of the `exchange-replica` command (bin/exchange-replica.js, `npm start`).
 * Runs the program on `process.argv`; any failure becomes one `error <code>: ...` line on
 * stderr and a non-zero exit code. @internal
 */
import { reportCliError } from './cliErrors';
import { createProgram } from './program';

createProgram()
  .parseAsync(process.argv)
  .catch((e: unknown) => reportCliError(e));
