/**
 * A real nats-server for the tests: JetStream on, 127.0.0.1, a free port, a temporary store.
 * `start` waits until it accepts connections (polling, bounded, failing early when the
 * process exits); `stop` ends it (SIGTERM, then SIGKILL) and removes the store; `restart`
 * stops it and starts it again on the same port and store (JetStream state kept).
 *
 * The binary comes from scripts/ensure-nats-server.mjs (the same step as `npm test`'s
 * pretest), so `npx jest` alone works on a fresh machine where it can be installed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WAIT_MS } from '../helpers/deadlines';

const ENSURE_SCRIPT = resolve(__dirname, '../../scripts/ensure-nats-server.mjs');
/** Bound of a start: only catches a hang (a loaded machine may be slow). */
const START_TIMEOUT_MS = WAIT_MS;
const STOP_TIMEOUT_MS = 10_000;
const LOG_LINES = 40;

let binary: string | undefined;

/**
 * The nats-server binary, installed when missing and allowed (see the script).
 * @throws Error with the script's one line when it cannot be had.
 */
export function natsServerBinary(): string {
  if (binary !== undefined) return binary;
  try {
    binary = execFileSync(process.execPath, [ENSURE_SCRIPT, '--print-path'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 }).trim();
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? '').trim().split('\n').pop();
    throw new Error(stderr || `scripts/ensure-nats-server.mjs failed: ${(e as Error).message}`);
  }
  return binary;
}

/** A free TCP port on 127.0.0.1 (asked of the OS). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => res(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((res) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      res(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export interface NatsServerOptions {
  /** Port (default: a free one). */
  readonly port?: number;
  /** Also serve HTTP monitoring (`-m`) on a free port. @default false */
  readonly monitor?: boolean;
}

export class NatsServer {
  private child?: ChildProcess;
  private readonly log: string[] = [];
  private exited?: Promise<void>;

  private constructor(
    readonly port: number,
    readonly storeDir: string,
    readonly monitorPort: number | undefined,
    private readonly bin: string,
  ) {}

  /** Starts a server and waits until it accepts connections. */
  static async start(options: NatsServerOptions = {}): Promise<NatsServer> {
    const bin = natsServerBinary();
    const storeDir = mkdtempSync(join(tmpdir(), 'er-nats-'));
    let lastError: unknown;
    // A free port can be taken between the question and the server's bind: try another.
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = options.port ?? (await freePort());
      const monitorPort = options.monitor ? await freePort() : undefined;
      const server = new NatsServer(port, storeDir, monitorPort, bin);
      try {
        await server.launch();
        return server;
      } catch (e) {
        lastError = e;
        await server.kill();
        if (options.port !== undefined) break;
      }
    }
    rmSync(storeDir, { recursive: true, force: true });
    throw lastError;
  }

  /** `nats://127.0.0.1:<port>` */
  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The server's recent output (for failure messages). */
  output(): string {
    return this.log.join('');
  }

  /** Stops the server (JetStream state stays in the store) and starts it again on the same port. */
  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }

  /** Stops the server without removing its store (see `restart`, `stop`). */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
    }
  }

  /** Stops the server and removes its store. */
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.storeDir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    const args = ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir];
    if (this.monitorPort !== undefined) args.push('-m', String(this.monitorPort));
    const child = spawn(this.bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let ready = false;
    const keep = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      // Logged once it listens (a server that lost the port to another process never says it).
      if (/Server is ready/.test(text)) ready = true;
      this.log.push(text);
      if (this.log.length > LOG_LINES) this.log.splice(0, this.log.length - LOG_LINES);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let exitInfo: string | undefined;
    this.exited = new Promise((res) => {
      child.once('exit', (code, signal) => {
        exitInfo = `exited (code ${code}, signal ${signal})`;
        res();
      });
      child.once('error', (e) => {
        exitInfo = `could not start: ${e.message}`;
        res();
      });
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (exitInfo !== undefined) throw new Error(`nats-server ${exitInfo} before accepting connections on port ${this.port}: ${this.output().slice(-1500)}`);
      if (ready && (await canConnect(this.port))) return;
      if (Date.now() > deadline) throw new Error(`nats-server did not accept connections on port ${this.port} within ${START_TIMEOUT_MS} ms: ${this.output().slice(-1500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
