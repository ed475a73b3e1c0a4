/**
 * The bus benchmark's nats-server: JetStream on, 127.0.0.1, a port the server picks
 * (`-p -1`, read back from its log), a temporary store removed on `stop`. The binary is the
 * one scripts/ensure-nats-server.mjs finds (as the tests' test/nats/natsServer.ts).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENSURE_SCRIPT = fileURLToPath(new URL('../../scripts/ensure-nats-server.mjs', import.meta.url));
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

/** The nats-server binary. @throws Error with the script's last line when there is none. */
export function natsServerBinary(): string {
  try {
    return execFileSync(process.execPath, [ENSURE_SCRIPT, '--print-path'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 }).trim();
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? '').trim().split('\n').pop();
    throw new Error(stderr || `scripts/ensure-nats-server.mjs failed: ${(e as Error).message}`);
  }
}

export class NatsServerProcess {
  /** Ends the server if this process exits first (an error, a signal turned into an exit). */
  private readonly onExit = (): void => {
    this.child.kill('SIGKILL');
    rmSync(this.storeDir, { recursive: true, force: true });
  };

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly storeDir: string,
    private readonly exited: Promise<void>,
  ) {
    process.once('exit', this.onExit);
  }

  /** `nats://127.0.0.1:<port>` */
  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** The server's process id (for /proc). */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Starts a server and resolves once it listens (bounded). */
  static async start(): Promise<NatsServerProcess> {
    const storeDir = mkdtempSync(join(tmpdir(), 'er-bus-bench-'));
    const child = spawn(natsServerBinary(), ['-js', '-a', '127.0.0.1', '-p', '-1', '-sd', storeDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    let log = '';
    try {
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`nats-server not ready within ${START_TIMEOUT_MS} ms: ${log.slice(-1000)}`)), START_TIMEOUT_MS);
        const onData = (chunk: Buffer): void => {
          log += chunk.toString('utf8');
          const m = /Listening for client connections on [^\s]*:(\d+)/.exec(log);
          if (m && /Server is ready/.test(log)) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        };
        child.stdout?.on('data', onData);
        child.stderr?.on('data', onData);
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`nats-server exited before it was ready: ${log.slice(-1000)}`));
        });
      });
      return new NatsServerProcess(child, port, storeDir, exited);
    } catch (e) {
      child.kill('SIGKILL');
      await exited;
      rmSync(storeDir, { recursive: true, force: true });
      throw e;
    }
  }

  /** Stops the server (SIGTERM, SIGKILL after a bound) and removes its store. */
  async stop(): Promise<void> {
    process.off('exit', this.onExit);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
