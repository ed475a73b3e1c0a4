/**
 * Entry point of the `exchange-replica` command (bin/exchange-replica.js, `npm start`).
 * Runs the program on `process.argv`; any failure becomes one `error <code>: ...` line on
 * stderr and a non-zero exit code. A reader of stdout or stderr that goes away (`| head`)
 * ends the program quietly. @internal
 */
import { fileURLToPath } from 'node:url';
import { packageVersion } from './packageVersion';
import { runCli } from './program';
import { guardBrokenPipe } from './term/brokenPipe';

/** This file (src/cli/main.ts under tsx, dist/cli/main.js when built); the script run otherwise. */
function entryFile(): string | undefined {
  // `import.meta` is empty in the CommonJS bundle: fall back on the script that was run.
  const url: unknown = (import.meta as { url?: unknown }).url;
  return typeof url === 'string' ? fileURLToPath(url) : process.argv[1];
}

guardBrokenPipe(process.stdout);
guardBrokenPipe(process.stderr);
const file = entryFile();
void runCli(process.argv, { version: (file !== undefined ? packageVersion(file) : undefined) ?? 'unknown' });
