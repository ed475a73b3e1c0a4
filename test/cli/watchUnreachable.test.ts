/**
 * `watch` against an exchange it cannot reach (issue item 4): it says why it waits (each failed
 * attempt, on stderr) and gives up with the coded error and exit code 1 after as many attempts
 * as `view` makes, where it used to wait silently forever. The CLI runs as a child process
 * against 127.0.0.1: a port nobody listens on (the command), a server that counts
 * what reaches it and drops it (the attempts of view and watch, compared), and a simulator
 * whose REST fails (the snapshot's attempts). StartBound's rules are checked directly too.
 *
 * No own time limit on the children: jest's timeout is the hang guard.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ConnectionFailedError, RestApiError, RestTransportError } from '../../src/errors';
import { SnapshotBehindError } from '../../src/replicas/SnapshotError';
import { START_ATTEMPTS, StartBound } from '../../src/cli/watch/StartBound';
import { Simulator } from '../../src/simulator';
import { TsxChild, type Exit } from './spawnTsx';

const MAIN = 'src/cli/main.ts';
const BOOK = ['--market_type', 'perp', '--market_id', '0'];

interface Run {
  readonly exit: Exit;
  readonly stdout: string[];
  readonly stderr: string[];
}

const children = new Set<TsxChild>();

/** Runs the CLI to its end (no limit of its own). */
async function cli(args: readonly string[]): Promise<Run> {
  const child = new TsxChild(MAIN, args);
  children.add(child);
  const exit = await child.exited;
  return { exit, stdout: child.lines.filter(Boolean), stderr: child.stderr.split('\n').filter(Boolean) };
}

afterEach(async () => {
  await Promise.all([...children].map((c) => c.stop()));
  children.clear();
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago: connections are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await close(server);
  return port;
}

describe('watch against an exchange it cannot reach', () => {
  it('says why it waits and gives up with ERR_CONNECTION_FAILED, exit 1, as view and rest fail (nothing listening)', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const [watch, view, rest] = await Promise.all([
      cli(['watch', 'book', '--rest-url', url, ...BOOK]),
      cli(['view', '--rest-url', url]),
      cli(['rest', 'markets', '--rest-url', url, '--market_type', 'all']),
    ]);

    expect(watch.exit).toEqual({ code: 1, signal: null });
    expect(watch.stdout).toEqual([]);
    // One line per failed attempt, saying what it waits for, then the error line.
    const attempts = START_ATTEMPTS;
    expect(watch.stderr).toHaveLength(attempts);
    watch.stderr.slice(0, -1).forEach((line, i) => {
      expect(line).toMatch(/^warning ERR_CONNECTION_FAILED: cannot connect to ws:\/\/127\.0\.0\.1:\d+\/ws: .*ECONNREFUSED/);
      expect(line).toContain(`(no replica until the feed opens: attempt ${i + 1} of ${attempts} failed, retrying)`);
    });
    expect(watch.stderr[attempts - 1]).toMatch(new RegExp(`^error ERR_CONNECTION_FAILED: cannot connect to .*ECONNREFUSED.* \\(the feed could not be opened in ${attempts} attempts: giving up\\)$`));

    // view and rest: one coded error line, the same exit code.
    for (const other of [view, rest]) {
      expect(other.exit).toEqual({ code: 1, signal: null });
      expect(other.stderr).toEqual([expect.stringMatching(/^error ERR_TRANSPORT: markets: request failed: .*ECONNREFUSED/)]);
    }
  });

  describe('attempts, counted by the server', () => {
    let server: Server;
    let restRequests = 0;
    let upgrades = 0;
    let url = '';
    beforeAll(async () => {
      // Every REST request and every WebSocket upgrade reaches it, is counted and dropped.
      server = createServer((req) => {
        restRequests += 1;
        req.socket.destroy();
      });
      server.on('upgrade', (_req, socket: Socket) => {
        upgrades += 1;
        socket.destroy();
      });
      url = `http://127.0.0.1:${await listen(server)}`;
    });
    afterAll(() => close(server));

    it('view makes its REST call 4 times (the retry policy), watch opens the feed as many times, then each gives up', async () => {
      restRequests = 0;
      upgrades = 0;
      const view = await cli(['view', '--rest-url', url]);
      expect(view.exit).toEqual({ code: 1, signal: null });
      expect(view.stderr).toEqual([expect.stringMatching(/^error ERR_TRANSPORT: markets: /)]);
      const viewAttempts = restRequests;
      expect(viewAttempts).toBe(START_ATTEMPTS);

      restRequests = 0;
      const watch = await cli(['watch', 'book', '--rest-url', url, ...BOOK]);
      expect(watch.exit).toEqual({ code: 1, signal: null });
      expect(watch.stdout).toEqual([]);
      expect(upgrades).toBe(viewAttempts);
      // The feed never opened: no snapshot was asked for.
      expect(restRequests).toBe(0);
      expect(watch.stderr[watch.stderr.length - 1]).toMatch(new RegExp(`^error ERR_(CONNECTION|HANDSHAKE)_FAILED: .* \\(the feed could not be opened in ${viewAttempts} attempts: giving up\\)$`));
      expect(watch.stderr.slice(0, -1)).toEqual(Array.from({ length: viewAttempts - 1 }, (_, i) => expect.stringContaining(`attempt ${i + 1} of ${viewAttempts} failed, retrying`)));
    });
  });

  describe('a feed that serves, a REST API that fails (HTTP 500 on every call)', () => {
    let sim: Simulator;
    beforeAll(async () => {
      sim = await Simulator.start({ seed: 3, rest500Rate: 1 });
    });
    afterAll(() => sim.stop());

    it('gives up with the snapshot\'s ERR_REST_API after its attempts, exit 1', async () => {
      const watch = await cli(['watch', 'book', '--rest-url', sim.restUrl, ...BOOK]);
      expect(watch.exit).toEqual({ code: 1, signal: null });
      expect(watch.stdout).toEqual([]);
      expect(watch.stderr).toEqual([expect.stringMatching(new RegExp(`^error ERR_REST_API: orderBook: .*\\(HTTP 500, INTERNAL_ERROR\\) \\(the replica's first snapshot failed after ${START_ATTEMPTS} attempts: giving up\\)$`))]);
    });
  });
});

describe('StartBound', () => {
  const refused = (): ConnectionFailedError => new ConnectionFailedError('cannot connect to ws://127.0.0.1:1/ws: connect ECONNREFUSED');

  it('gives up at the last of its consecutive failed connection attempts, keeping the code', () => {
    const bound = new StartBound(3);
    expect(bound.judge(refused())).toEqual({ kind: 'warn', note: ' (no replica until the feed opens: attempt 1 of 3 failed, retrying)' });
    expect(bound.judge(refused())).toMatchObject({ kind: 'warn' });
    const last = bound.judge(refused());
    expect(last.kind).toBe('giveUp');
    if (last.kind !== 'giveUp') return;
    expect(last.error.code).toBe('ERR_CONNECTION_FAILED');
    expect(last.error.message).toBe('cannot connect to ws://127.0.0.1:1/ws: connect ECONNREFUSED (the feed could not be opened in 3 attempts: giving up)');
  });

  it('counts again from zero once the feed opened', () => {
    const bound = new StartBound(2);
    expect(bound.judge(refused()).kind).toBe('warn');
    bound.connected();
    expect(bound.judge(refused()).kind).toBe('warn');
    expect(bound.judge(refused()).kind).toBe('giveUp');
  });

  it('gives up on a snapshot that failed after its retries (5xx, network), not on a 4xx nor on what heals by itself', () => {
    expect(new StartBound().judge(new RestTransportError('orderBook: request failed', { operation: 'orderBook' })).kind).toBe('giveUp');
    expect(new StartBound().judge(new RestApiError('INTERNAL_ERROR', 'orderBook: boom', { operation: 'orderBook', status: 500 })).kind).toBe('giveUp');
    expect(new StartBound().judge(new RestApiError('NOT_FOUND', 'orderBook: no such market', { operation: 'orderBook', status: 404 }))).toEqual({ kind: 'warn', note: '' });
    expect(new StartBound().judge(new SnapshotBehindError(10n, 12n))).toEqual({ kind: 'warn', note: '' });
  });

  it('once the replica was live, every error is a plain warning', () => {
    const bound = new StartBound(1);
    bound.markStarted();
    expect(bound.judge(refused())).toEqual({ kind: 'warn', note: '' });
    expect(bound.judge(new RestTransportError('orderBook: request failed', { operation: 'orderBook' }))).toEqual({ kind: 'warn', note: '' });
  });
});
