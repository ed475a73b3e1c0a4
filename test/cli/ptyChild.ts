/**
 * The CLI in a real pseudo-terminal, for what it draws only on a terminal (the live screens
 * of `view` and `watch`): util-linux `script` gives the child a pty and copies everything
 * the terminal receives to its stdout, escape sequences included. Keys written to `script`'s
 * stdin reach the child as typed keys. Waits are on the output, never on a fixed time.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, type Exit } from './spawnTsx';
import { WAIT_MS } from '../helpers/deadlines';

/** True when util-linux `script` (with `-e`, `-f`, `-c`) is there. */
export function hasScript(): boolean {
  const r = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return r.status === 0 && /util-linux/.test(r.stdout);
}

/** Single-quoted for sh. */
function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

export class PtyChild {
  /** Everything the terminal received. */
  output = '';
  readonly exited: Promise<Exit>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiters = new Set<() => void>();
  private exit: Exit | undefined;

  /** Runs `src/cli/main.ts ...args` on a `columns` x `rows` terminal. */
  constructor(args: readonly string[], columns = 130, rows = 50) {
    const node = [process.execPath, '--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args].map(quote).join(' ');
    this.child = spawn('script', ['-qfec', `stty cols ${columns} rows ${rows}; exec ${node}`, '/dev/null'], { cwd: ROOT, env: { ...process.env, NO_COLOR: undefined, TERM: 'xterm-256color' }, stdio: 'pipe' });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.output += chunk;
      this.notify();
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.output += chunk;
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.exit = { code, signal };
        this.notify();
        resolve(this.exit);
      });
    });
  }

  /** The end of the output, for failure messages: as JSON, C1 and bidi controls escaped too. */
  private tail(): string {
    return JSON.stringify(this.output.slice(-3000)).replace(/[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves once the output holds `text` (or matches it), within `ms`; rejects early if the child exits. */
  waitFor(text: string | RegExp, ms = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        if (typeof text === 'string' ? this.output.includes(text) : text.test(this.output)) {
          done();
          resolve();
          return true;
        }
        if (this.exit) {
          done();
          reject(new Error(`child exited (${JSON.stringify(this.exit)}) before showing ${String(text)}\noutput:\n${this.tail()}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${ms} ms waiting for ${String(text)}\noutput:\n${this.tail()}`));
      }, ms);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      if (!check()) this.waiters.add(check);
    });
  }

  /** Types `text` on the terminal. */
  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** The exit, within `ms` (else the child is killed and this rejects). */
  async waitForExit(ms = WAIT_MS): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void this.stop();
        reject(new Error(`child did not exit within ${ms} ms\noutput:\n${this.tail()}`));
      }, ms);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills `script` (which hangs up the child's terminal) if it still runs, and waits. */
  async stop(): Promise<void> {
    if (!this.exit) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}
