/** The benchmark's handle on its sender process (sender.ts, forked with the tsx loader). */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StreamSpec } from '../book/deltaStream';
import type { SenderCommand, SenderReply } from './senderProtocol';

const SENDER = fileURLToPath(new URL('./sender.ts', import.meta.url));
const REPLY_TIMEOUT_MS = 60_000;
/** The tsx loader by absolute URL, so the child runs TypeScript whatever its working directory. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export class SenderProcess {
  private readonly child: ChildProcess;
  private readonly waiting: ((r: SenderReply) => void)[] = [];
  private exited = false;

  private constructor() {
    this.child = fork(SENDER, [], { execArgv: ['--import', TSX_LOADER], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (r: SenderReply) => this.waiting.shift()?.(r));
    this.child.on('exit', () => {
      this.exited = true;
      for (const w of this.waiting.splice(0)) w({ type: 'error', message: 'sender process exited' });
    });
  }

  /** Forks the sender, has it build `stream` and listen; resolves with its port. */
  static async start(anchorNs: bigint, stream: StreamSpec): Promise<{ sender: SenderProcess; port: number }> {
    const sender = new SenderProcess();
    const r = await sender.request({ cmd: 'init', anchorNs: anchorNs.toString(), stream });
    if (r.type !== 'ready') throw new Error(`sender failed to start: ${JSON.stringify(r)}`);
    return { sender, port: r.port };
  }

  /** Sends one command and waits for its reply (replies come in command order). */
  request(cmd: SenderCommand): Promise<SenderReply> {
    if (this.exited) return Promise.resolve({ type: 'error', message: 'sender process exited' });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`sender did not answer ${cmd.cmd} within ${REPLY_TIMEOUT_MS} ms`)), REPLY_TIMEOUT_MS);
      this.waiting.push((r) => {
        clearTimeout(timer);
        resolve(r);
      });
      this.child.send(cmd);
    });
  }

  /** Asks the sender to exit and waits for it (kills it if it does not go). */
  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ cmd: 'exit' } satisfies SenderCommand);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }
}
