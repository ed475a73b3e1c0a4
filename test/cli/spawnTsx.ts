/**
 * A TypeScript file run in a child process through tsx, with its output split into lines
 * and waits on those lines: the child-process tests of the CLI and the examples wait for
 * what they expect, never for a fixed time. Every child is killed by `stop()` (call it in
 * afterEach) so jest exits by itself.
 *
 * The child is `node --import tsx file` (tsx as a loader, one process) rather than the tsx
 * CLI: the CLI wraps the script in a second process and relays signals with a 30 ms
 * deadline, after which it kills the script and exits 130, which a loaded machine misses.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { WAIT_MS } from '../helpers/deadlines';

export const ROOT = join(__dirname, '..', '..');

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class TsxChild {
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcessWithoutNullStreams;
  private partial = '';
  private readonly waiters = new Set<() => void>();
  private exit: Exit | undefined;

  constructor(file: string, args: readonly string[], env: Record<string, string | undefined> = {}) {
    this.child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file), ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
      stdio: 'pipe',
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop()!;
      this.lines.push(...parts);
      this.notify();
    });
    this.child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        if (this.partial) this.lines.push(this.partial);
        this.partial = '';
        this.exit = { code, signal };
        this.notify();
        resolve(this.exit);
      });
    });
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** The first line (from `from` on) matching `pred`, within `ms`; rejects early if the child exits. */
  waitForLine(pred: (line: string) => boolean, what: string, ms = WAIT_MS, from = 0): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const hit = this.lines.slice(from).find(pred);
        if (hit !== undefined) {
          done();
          resolve(hit);
          return true;
        }
        if (this.exit) {
          done();
          reject(new Error(`child exited (${JSON.stringify(this.exit)}) before ${what}\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${ms} ms waiting for ${what}\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`));
      }, ms);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      if (!check()) this.waiters.add(check);
    });
  }

  /** The exit, within `ms` (else the child is killed and this rejects). */
  async waitForExit(ms = WAIT_MS): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void this.stop();
        reject(new Error(`child did not exit within ${ms} ms\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`));
      }, ms);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Writes to the child's stdin (keys). */
  write(text: string): void {
    this.child.stdin.write(text);
  }

  signal(sig: NodeJS.Signals): void {
    this.child.kill(sig);
  }

  /** Kills the child if it is still running and waits for it. */
  async stop(): Promise<void> {
    if (!this.exit) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

/** Runs a file to its end (bounded) and returns its output. */
export async function runTsx(file: string, args: readonly string[], ms = WAIT_MS, env: Record<string, string | undefined> = {}): Promise<{ exit: Exit; lines: string[]; stderr: string }> {
  const child = new TsxChild(file, args, env);
  try {
    const exit = await child.waitForExit(ms);
    return { exit, lines: child.lines, stderr: child.stderr };
  } finally {
    await child.stop();
  }
}
