/**
 * A real nats-server started from a configuration file (examples/nats/roles.conf, or one a
 * test writes), with JetStream, on 127.0.0.1, a free port and a temporary store; secrets are
 * handed over in the server's environment (the configuration reads `$NAME` from it). `start`
 * waits until it accepts connections (bounded: only catches a hang, failing early when the
 * process exits); `stop` ends it and removes its store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, natsServerBinary } from './natsServer';

/** Bound of a start: only catches a hang (a loaded machine may be slow). */
const WAIT_MS = 60_000;

/** The configuration with the relay and consumer roles (README, "Trust"). */
export const ROLES_CONF = resolve(__dirname, '../../examples/nats/roles.conf');

const STOP_TIMEOUT_MS = 10_000;

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

export interface AuthServerOptions {
  /** Path of the configuration file, or its text (`text`). */
  readonly config: { readonly file: string } | { readonly text: string };
  /** Variables of the server's environment (the configuration's `$NAME`s). */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra command-line arguments (e.g. TLS flags). */
  readonly args?: readonly string[];
}

export class NatsAuthServer {
  private readonly log: string[] = [];
  private exited?: Promise<void>;

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly child: ChildProcess,
  ) {}

  /** Starts a server with the configuration and waits until it accepts connections. */
  static async start(options: AuthServerOptions): Promise<NatsAuthServer> {
    const bin = natsServerBinary();
    const dir = mkdtempSync(join(tmpdir(), 'er-nats-auth-'));
    let file: string;
    if ('file' in options.config) file = options.config.file;
    else {
      file = join(dir, 'server.conf');
      writeFileSync(file, options.config.text);
    }
    const port = await freePort();
    const args = ['-c', file, '-js', '-a', '127.0.0.1', '-p', String(port), '-sd', join(dir, 'store'), ...(options.args ?? [])];
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...(options.env ?? {}) } });
    const server = new NatsAuthServer(port, dir, child);
    await server.waitReady();
    return server;
  }

  /** `nats://127.0.0.1:<port>` */
  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** The server's recent output (for failure messages, and to check what it logged). */
  output(): string {
    return this.log.join('');
  }

  /** Stops the server and removes its store. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitReady(): Promise<void> {
    let ready = false;
    const keep = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (/Server is ready/.test(text)) ready = true;
      this.log.push(text);
      if (this.log.length > 200) this.log.splice(0, this.log.length - 200);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    let exitInfo: string | undefined;
    this.exited = new Promise((res) => {
      this.child.once('exit', (code, signal) => {
        exitInfo = `exited (code ${code}, signal ${signal})`;
        res();
      });
      this.child.once('error', (e) => {
        exitInfo = `could not start: ${e.message}`;
        res();
      });
    });
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      if (exitInfo !== undefined) {
        rmSync(this.dir, { recursive: true, force: true });
        throw new Error(`nats-server ${exitInfo} before accepting connections: ${this.output().slice(-1500)}`);
      }
      if (ready && (await canConnect(this.port))) return;
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`nats-server did not accept connections on port ${this.port} within ${WAIT_MS} ms: ${this.output().slice(-1500)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
