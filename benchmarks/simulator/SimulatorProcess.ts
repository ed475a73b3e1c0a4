/** A benchmark's handle on its simulator process (simProcess.ts, forked with the tsx loader). */
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { OperationName, ParamValues } from '../../src/protocol';
import type { SimulatorOptions } from '../../src/simulator';
import type { SimCommand, SimReply, SimStats } from './simProtocol';

const CHILD = fileURLToPath(new URL('./simProcess.ts', import.meta.url));
const REPLY_TIMEOUT_MS = 60_000;
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * @example
 * const sim = await SimulatorProcess.start({ seed: 7, eventsPerSecond: 2000 });
 * const client = new ExchangeClient({ restUrl: sim.restUrl, wsUrl: sim.wsUrl });
 * await sim.resyncStream(streamKey('book', { market_id: 0, is_perps: true }));
 * await sim.close();
 */
export class SimulatorProcess {
  private readonly child: ChildProcess;
  private readonly waiting: ((r: SimReply) => void)[] = [];
  private exited = false;
  restUrl = '';
  wsUrl = '';

  private constructor() {
    this.child = fork(CHILD, [], { execArgv: ['--import', TSX_LOADER], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (r: SimReply) => this.waiting.shift()?.(r));
    this.child.on('exit', () => {
      this.exited = true;
      for (const w of this.waiting.splice(0)) w({ type: 'error', message: 'simulator process exited' });
    });
  }

  /** Forks the process and starts a `Simulator` with `options` in it. */
  static async start(options: SimulatorOptions): Promise<SimulatorProcess> {
    const p = new SimulatorProcess();
    try {
      const r = await p.request({ cmd: 'init', options });
      if (r.type !== 'ready') throw new Error(`simulator failed to start: ${JSON.stringify(r)}`);
      p.restUrl = r.restUrl;
      p.wsUrl = r.wsUrl;
      return p;
    } catch (e) {
      await p.close();
      throw e;
    }
  }

  /** `faults.resyncStream(key)` in the simulator. */
  async resyncStream(key: string): Promise<void> {
    this.expect(await this.request({ cmd: 'resync', key }), 'ok');
  }

  async pause(): Promise<void> {
    this.expect(await this.request({ cmd: 'pause' }), 'ok');
  }

  async resume(): Promise<void> {
    this.expect(await this.request({ cmd: 'resume' }), 'ok');
  }

  /** The true answer of a REST operation (`Simulator.truth`). */
  async truth(name: OperationName, params: ParamValues): Promise<{ status: number; body: unknown }> {
    const r = await this.request({ cmd: 'truth', name, params });
    if (r.type !== 'truth') throw new Error(`simulator truth ${name}: ${JSON.stringify(r)}`);
    return r;
  }

  async stats(): Promise<SimStats> {
    const r = await this.request({ cmd: 'stats' });
    if (r.type !== 'stats') throw new Error(`simulator stats: ${JSON.stringify(r)}`);
    return r.stats;
  }

  /** Asks the process to stop its simulator and exit; kills it if it does not go. */
  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ cmd: 'exit' } satisfies SimCommand);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }

  private request(cmd: SimCommand): Promise<SimReply> {
    if (this.exited) return Promise.resolve({ type: 'error', message: 'simulator process exited' });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`simulator did not answer ${cmd.cmd} within ${REPLY_TIMEOUT_MS} ms`)), REPLY_TIMEOUT_MS);
      this.waiting.push((r) => {
        clearTimeout(timer);
        resolve(r);
      });
      this.child.send(cmd);
    });
  }

  private expect(r: SimReply, type: SimReply['type']): void {
    if (r.type !== type) throw new Error(`simulator: expected ${type}, got ${JSON.stringify(r)}`);
  }
}
