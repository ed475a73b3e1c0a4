/**
 * A real 3-node nats-server JetStream cluster for the tests, on 127.0.0.1: each node has its
 * own client port, cluster port, monitoring port and `store_dir` (all free ports asked of the
 * OS), a config file with `server_name`, `cluster { name, listen, routes }` and `jetstream {
 * store_dir }` (Debian's nats-server 2.9 takes these). `start` waits until every node accepts
 * connections and answers `/healthz` ok (JetStream's meta group has a leader); a node can be
 * killed (SIGKILL: a crash) and started again on the same ports and store, and
 * `waitHealthy` waits until it is current again (its `/healthz`: every stream and consumer
 * it holds caught up). Every wait is for an event, bounded only to catch a hang.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, natsServerBinary } from './natsServer';

/** A wait for a node: it only catches a hang (a loaded 2-core machine is slow, never this slow). */
const HANG_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;
const LOG_CHUNKS = 60;

/** The ports of one node. */
interface NodePorts {
  readonly client: number;
  readonly cluster: number;
  readonly monitor: number;
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

/** GET of a monitoring endpoint: its status and body, or undefined when nothing answers. */
function monitorGet(port: number, path: string): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

export class ClusterNode {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private exitInfo?: string;
  private readonly log: string[] = [];

  constructor(
    /** `server_name`: what JetStream names as a stream's leader. */
    readonly name: string,
    readonly ports: NodePorts,
    readonly storeDir: string,
    private readonly configFile: string,
    private readonly bin: string,
  ) {}

  /** `nats://127.0.0.1:<client port>` */
  get url(): string {
    return `nats://127.0.0.1:${this.ports.client}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The node's recent output (for failure messages). */
  output(): string {
    return this.log.join('');
  }

  /** Starts the node and waits until it accepts client connections (not for the cluster: see {@link NatsCluster.start}). */
  async launch(): Promise<void> {
    const child = spawn(this.bin, ['-c', this.configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.exitInfo = undefined;
    let ready = false;
    const keep = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (/Server is ready/.test(text)) ready = true;
      this.log.push(text);
      if (this.log.length > LOG_CHUNKS) this.log.splice(0, this.log.length - LOG_CHUNKS);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((res) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = `exited (code ${code}, signal ${signal})`;
        res();
      });
      child.once('error', (e) => {
        this.exitInfo = `could not start: ${e.message}`;
        res();
      });
    });
    const deadline = Date.now() + HANG_MS;
    for (;;) {
      if (this.exitInfo !== undefined) throw new Error(`nats-server ${this.name} ${this.exitInfo} before accepting connections on port ${this.ports.client}: ${this.output().slice(-1500)}`);
      if (ready && (await canConnect(this.ports.client))) return;
      if (Date.now() > deadline) throw new Error(`nats-server ${this.name} did not accept connections on port ${this.ports.client} within ${HANG_MS} ms: ${this.output().slice(-1500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGKILL (a crash: no goodbye to the cluster or the clients); the store stays. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** SIGTERM (then SIGKILL), for the end of a test. */
  async stop(): Promise<void> {
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

  /** Whether the node's `/healthz` says ok: JetStream's meta leader known, and every stream and consumer it holds current. */
  async healthy(): Promise<boolean> {
    if (!this.running) return false;
    const r = await monitorGet(this.ports.monitor, '/healthz');
    return r !== undefined && r.status === 200 && /"ok"/.test(r.body);
  }

  /** The node's `/jsz` (JetStream) report with stream details, parsed, or undefined when it does not answer. */
  async jsz(): Promise<unknown> {
    const r = await monitorGet(this.ports.monitor, '/jsz?streams=true&consumers=true&config=false');
    if (r === undefined || r.status !== 200) return undefined;
    return JSON.parse(r.body) as unknown;
  }
}

export class NatsCluster {
  private constructor(
    readonly nodes: readonly ClusterNode[],
    private readonly root: string,
  ) {}

  /**
   * Starts `size` nodes forming one JetStream cluster and waits until every one answers
   * `/healthz` ok. Ports taken meanwhile by another process: all nodes get new ones (the routes
   * name every node's cluster port).
   */
  static async start(size = 3, clusterName = 'er-test'): Promise<NatsCluster> {
    const bin = natsServerBinary();
    let lastError: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      const root = mkdtempSync(join(tmpdir(), 'er-natscluster-'));
      const ports: NodePorts[] = [];
      for (let i = 0; i < size; i++) ports.push({ client: await freePort(), cluster: await freePort(), monitor: await freePort() });
      const nodes = ports.map((p, i) => {
        const name = `n${i + 1}`;
        const storeDir = join(root, name);
        const configFile = join(root, `${name}.conf`);
        const routes = ports.filter((_q, j) => j !== i).map((q) => `    nats-route://127.0.0.1:${q.cluster}`);
        writeFileSync(
          configFile,
          [
            `server_name: ${name}`,
            `listen: 127.0.0.1:${p.client}`,
            `http: 127.0.0.1:${p.monitor}`,
            'jetstream {',
            `  store_dir: ${JSON.stringify(storeDir)}`,
            '}',
            'cluster {',
            `  name: ${clusterName}`,
            `  listen: 127.0.0.1:${p.cluster}`,
            '  routes: [',
            ...routes,
            '  ]',
            '}',
            '',
          ].join('\n'),
        );
        return new ClusterNode(name, p, storeDir, configFile, bin);
      });
      const cluster = new NatsCluster(nodes, root);
      try {
        await Promise.all(nodes.map((n) => n.launch()));
        await cluster.waitHealthy();
        return cluster;
      } catch (e) {
        lastError = e;
        await cluster.stop();
      }
    }
    throw lastError;
  }

  /** Every node's URL (a client given them all reconnects to another when its node is lost). */
  get urls(): string[] {
    return this.nodes.map((n) => n.url);
  }

  /** The node of a `server_name`. */
  node(name: string): ClusterNode {
    const n = this.nodes.find((x) => x.name === name);
    if (n === undefined) throw new Error(`no node ${name} in the cluster (${this.nodes.map((x) => x.name).join(', ')})`);
    return n;
  }

  /** Waits until every running node (or the ones given) answers `/healthz` ok. */
  async waitHealthy(nodes: readonly ClusterNode[] = this.nodes.filter((n) => n.running), ms = HANG_MS): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      const ok = await Promise.all(nodes.map((n) => n.healthy()));
      if (ok.every(Boolean)) return;
      if (Date.now() > deadline) {
        const bad = nodes.filter((_n, i) => !ok[i]);
        throw new Error(`nats-server ${bad.map((n) => n.name).join(', ')} not healthy within ${ms} ms: ${bad.map((n) => `${n.name}: ${n.output().slice(-1200)}`).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The recent output of every node (for failure messages). */
  output(): string {
    return this.nodes.map((n) => `--- ${n.name}\n${n.output().slice(-2000)}`).join('\n');
  }

  /** Stops every node and removes the stores. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
    rmSync(this.root, { recursive: true, force: true });
  }
}
