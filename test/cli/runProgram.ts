/**
 * The CLI program run in this process (fast: no child process), its output captured.
 * Commander's exits become results; `process.exitCode` is read and restored.
 */
import { Command, CommanderError } from 'commander';
import { createProgram } from '../../src/cli/program';

export interface ProgramResult {
  /** The exit code the process would have (0 when none was set). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function configure(c: Command, out: { stdout: string; stderr: string }): void {
  c.exitOverride();
  c.configureOutput({ writeOut: (t) => void (out.stdout += t), writeErr: (t) => void (out.stderr += t) });
  c.commands.forEach((sub) => configure(sub, out));
}

/** Runs `exchange-replica ...args` in process. */
export async function runProgram(args: readonly string[]): Promise<ProgramResult> {
  const out = { stdout: '', stderr: '' };
  const program = createProgram();
  configure(program, out);
  const saved = process.exitCode;
  process.exitCode = undefined;
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out.stdout += String(chunk)), true));
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((out.stderr += String(chunk)), true));
  let code = 0;
  try {
    await program.parseAsync(['node', 'exchange-replica', ...args]);
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = e.exitCode;
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.exitCode = saved;
  }
  return { code, ...out };
}
