/**
 * The CLI program run in this process (fast: no child process), its output captured: the
 * same `runCli` as the entry point, so usage errors, help and exit codes are the real ones.
 * `process.exitCode` is read and restored.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../src/cli/program';

export interface ProgramResult {
  /** The exit code the process would have (0 when none was set). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The version in package.json (what `--version` prints). */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;

/** Runs `exchange-replica ...args` in process. */
export async function runProgram(args: readonly string[]): Promise<ProgramResult> {
  const out = { stdout: '', stderr: '' };
  const saved = process.exitCode;
  process.exitCode = undefined;
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out.stdout += String(chunk)), true));
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((out.stderr += String(chunk)), true));
  let code = 0;
  try {
    await runCli(['node', 'exchange-replica', ...args], { version: PACKAGE_VERSION });
    code = Number(process.exitCode ?? 0);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.exitCode = saved;
  }
  return { code, ...out };
}
