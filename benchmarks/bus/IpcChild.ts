/**
 * A child process of the bus benchmark (a `.ts` file forked with the tsx loader), driven by
 * IPC: it sends one `{ type: 'ready' }` (or `{ type: 'error' }`) when set up, then answers
 * each command with one reply, in command order. Every wait is bounded; `close` asks the
 * child to exit and kills it when it does not.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** The tsx loader by absolute URL, so the child runs TypeScript whatever its working directory. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const EXIT_GRACE_MS = 5_000;

/** Every reply names its type; `error` is the one a child sends when something failed. */
export type Reply = { readonly type: string } | { readonly type: 'error'; readonly message: string };

export class IpcChild<Cmd extends { readonly cmd: string }, R extends Reply> {
  private readonly child: ChildProcess;
  private readonly waiting: ((r: R | { type: 'error'; message: string }) => void)[] = [];
  private exited = false;
  /** The child's first message (`ready`, with whatever it tells). */
  ready?: R;

  private constructor(
    file: string,
    args: readonly string[],
    private readonly name: string,
    nodeFlags: readonly string[],
  ) {
    this.child = fork(file, [...args], { execArgv: ['--import', TSX_LOADER, ...nodeFlags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (r: R) => this.waiting.shift()?.(r));
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      for (const w of this.waiting.splice(0)) w({ type: 'error', message: `${this.name} exited (code ${code}, signal ${signal})` });
    });
  }

  /** The child's process id (for /proc). */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Forks `file` with `args` (and Node flags, e.g. `--cpu-prof`); resolves once it said `ready` within `readyMs`. */
  static async start<C extends { readonly cmd: string }, R extends Reply>(file: string, args: readonly string[], name: string, readyMs: number, nodeFlags: readonly string[] = []): Promise<IpcChild<C, R>> {
    const child = new IpcChild<C, R>(file, args, name, nodeFlags);
    try {
      const first = await child.next(readyMs, 'ready');
      if (first.type !== 'ready') throw new Error(`${name} failed to start: ${JSON.stringify(first)}`);
      child.ready = first;
      return child;
    } catch (e) {
      await child.close();
      throw e;
    }
  }

  /** Sends `cmd` and waits (at most `ms`) for its reply; a reply of another type than `expect` throws. */
  async request<T extends R['type']>(cmd: Cmd, expect: T, ms: number): Promise<Extract<R, { type: T }>> {
    if (this.exited) throw new Error(`${this.name} has exited`);
    const reply = this.next(ms, cmd.cmd);
    this.child.send(cmd);
    const r = await reply;
    if (r.type !== expect) throw new Error(`${this.name} answered ${cmd.cmd} with ${JSON.stringify(r)}`);
    return r as Extract<R, { type: T }>;
  }

  /** Asks the child to exit and waits for it (SIGKILL after a grace period). */
  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.send({ cmd: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), EXIT_GRACE_MS);
    await gone;
    clearTimeout(timer);
  }

  private next(ms: number, what: string): Promise<R | { type: 'error'; message: string }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(done);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new Error(`${this.name} did not answer ${what} within ${ms} ms`));
      }, ms);
      const done = (r: R | { type: 'error'; message: string }): void => {
        clearTimeout(timer);
        resolve(r);
      };
      this.waiting.push(done);
    });
  }
}
