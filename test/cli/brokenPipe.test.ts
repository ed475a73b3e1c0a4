/**
 * A reader of stdout that goes away (`exchange-replica watch ... | head -c 100`) ends the
 * program quietly with exit code 0, whether it leaves while the command runs or after the
 * command has finished and only its pending writes keep the process alive (the write then
 * fails with EPIPE after every command listener is gone: it must not be an unhandled
 * 'error' event).
 *
 * The CLI runs as a child process with stdout piped and NOT read, so its writes pile up
 * pending; the feed goes through a proxy in this process, so the test knows when the
 * child's run is over (its feed connection closed) without guessing a time.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { Simulator } from '../../src/simulator';
import { guardBrokenPipe } from '../../src/cli/term/brokenPipe';
import { Terminal } from '../../src/cli/term/Terminal';
import { ROOT } from './spawnTsx';

jest.setTimeout(120_000);

/** A feed proxy: relays every frame both ways and tells when a client connection closed. */
class FeedProxy {
  private readonly connections = new EventEmitter();
  private readonly server: WebSocketServer;

  private constructor(
    server: WebSocketServer,
    private readonly upstreamUrl: string,
  ) {
    this.server = server;
    server.on('connection', (client) => this.relay(client));
  }

  static async start(upstreamUrl: string): Promise<FeedProxy> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    return new FeedProxy(server, upstreamUrl);
  }

  get url(): string {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected pipe address');
    return `ws://127.0.0.1:${address.port}/ws`;
  }

  private relay(client: WebSocket): void {
    const upstream = new WebSocket(this.upstreamUrl);
    const queued: Array<[RawData, boolean]> = [];
    upstream.on('open', () => {
      for (const [data, binary] of queued.splice(0)) upstream.send(data, { binary });
    });
    client.on('message', (data, binary) => (upstream.readyState === WebSocket.OPEN ? upstream.send(data, { binary }) : queued.push([data, binary])));
    upstream.on('message', (data, binary) => client.readyState === WebSocket.OPEN && client.send(data, { binary }));
    this.connections.emit('open', client);
    client.on('close', () => upstream.close());
    upstream.on('close', () => client.close());
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }

  /** Resolves when the next client to connect (from now on) has closed its connection. */
  nextConnectionClosed(): Promise<void> {
    return new Promise((resolve) => this.connections.once('open', (client: WebSocket) => client.once('close', () => resolve())));
  }

  async stop(): Promise<void> {
    for (const c of this.server.clients) c.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly received: number;
}

/**
 * Runs `watch book` (30 emissions of 500 levels a side: far more than a pipe holds) with
 * stdout unread; reads `bytes` bytes and destroys the pipe either as soon as output is there
 * (`during` the run) or once the child's feed connection has closed (`after` the run).
 */
async function watchThenLeave(sim: Simulator, proxy: FeedProxy, when: 'during' | 'after', bytes: number): Promise<Outcome> {
  const runOver = proxy.nextConnectionClosed();
  const args = ['watch', 'book', '--rest-url', sim.restUrl, '--ws-url', proxy.url, '--market_id', '0', '--market_type', 'perp', '--count', '30', '--depth', '500'];
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (t: string) => (stderr += t));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  child.stdout.pause();
  if (when === 'after') {
    // Over, or a failure: either way the next step can run.
    await Promise.race([runOver, exited]);
  }
  const received = await new Promise<number>((resolve) => {
    const take = (): void => {
      const chunk = child.stdout.read(bytes) as Buffer | null;
      if (chunk === null) {
        child.stdout.once('readable', take);
        return;
      }
      child.stdout.destroy();
      resolve(chunk.length);
    };
    take();
  });
  const timeout = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exit = await exited;
  clearTimeout(timeout);
  return { ...exit, stderr, received };
}

describe('a closed stdout pipe', () => {
  let sim: Simulator;
  let proxy: FeedProxy;
  beforeAll(async () => {
    sim = await Simulator.start({ seed: 1 });
    proxy = await FeedProxy.start(sim.wsUrl);
  });
  afterAll(async () => {
    await proxy.stop();
    await sim.stop();
  });

  // Each case twice: a crash that only some runs show would still be caught.
  it.each([
    ['after', 100],
    ['after', 100],
    ['after', 4096],
    ['during', 100],
    ['during', 100],
  ] as const)('watch | head: reader leaves %s the run (%i bytes read): exit 0, nothing on stderr', async (when, bytes) => {
    const r = await watchThenLeave(sim, proxy, when, bytes);
    expect(r.received).toBe(bytes);
    expect(r.stderr).not.toMatch(/Unhandled|EPIPE/);
    expect(r).toEqual({ code: 0, signal: null, stderr: '', received: bytes });
  });
});

describe('EPIPE guard (in process)', () => {
  class FakeOutput extends EventEmitter {
    readonly isTTY = false;
    readonly written: string[] = [];
    write(text: string): boolean {
      this.written.push(text);
      return true;
    }
  }
  const epipe = (): NodeJS.ErrnoException => Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });

  it('stays after Terminal.close(): a write pending then fails with EPIPE harmlessly', () => {
    const output = new FakeOutput();
    const input = new EventEmitter();
    const terminal = new Terminal({ output: output as unknown as NodeJS.WriteStream, input: input as unknown as NodeJS.ReadStream });
    let closedSeen = 0;
    terminal.onOutputClosed(() => closedSeen++);
    terminal.println('last line');
    terminal.close();
    expect(() => output.emit('error', epipe())).not.toThrow();
    expect(closedSeen).toBe(0);
    expect(output.written).toEqual(['last line\n']);
  });

  it('reports a closed output while the terminal is open, rethrows any other error, installs once', () => {
    const output = new FakeOutput();
    const terminal = new Terminal({ output: output as unknown as NodeJS.WriteStream, input: new EventEmitter() as unknown as NodeJS.ReadStream });
    let closedSeen = 0;
    terminal.onOutputClosed(() => closedSeen++);
    output.emit('error', epipe());
    expect(closedSeen).toBe(1);
    terminal.println('not written');
    expect(output.written).toEqual([]);
    terminal.close();
    guardBrokenPipe(output);
    guardBrokenPipe(output);
    expect(output.listenerCount('error')).toBe(1);
    expect(() => output.emit('error', Object.assign(new Error('boom'), { code: 'EIO' }))).toThrow('boom');
  });
});
