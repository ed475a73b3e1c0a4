/**
 * The feed connection closes once no stream has had a subscriber for `idleCloseMs` (state
 * `idle`), reopens on the next subscribe, and a process that forgot `close()` exits by itself.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { filter, firstValueFrom, timeout } from 'rxjs';
import { ExchangeClient } from '../../src';
import { Simulator } from '../../src/simulator';
import { ROOT } from '../cli/spawnTsx';
import { startPair, type Pair } from './harness';
import { WAIT_MS } from '../helpers/deadlines';

let pair: Pair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

const BOOK = { market_type: 'perp', market_id: 0 } as const;

test('closes the idle connection after idleCloseMs and reopens it on the next subscribe', async () => {
  pair = await startPair({}, { router: { idleCloseMs: 200 } });
  const { client } = pair;
  const book$ = client.orderBook(BOOK);
  const first = book$.subscribe();
  await client.whenLive(book$, { signal: AbortSignal.timeout(WAIT_MS) });
  const generation = client.connection.generation;
  const idle = firstValueFrom(client.connection.state$.pipe(filter((c) => c.to === 'idle'), timeout(WAIT_MS)));
  first.unsubscribe();
  const change = await idle;
  expect(change).toMatchObject({ from: 'open', to: 'idle', reason: 'no subscriber for 200 ms' });
  expect(client.activity()).toEqual({ replicas: 0, serverSubscriptions: 0, pendingRequests: 0 });

  const again = book$.subscribe();
  const live = await client.whenLive(book$, { signal: AbortSignal.timeout(WAIT_MS) });
  expect(live.snapshotId).toBe(1);
  expect(client.connection.state).toBe('open');
  expect(client.connection.generation).toBe(generation + 1);
  again.unsubscribe();
});

test('a subscriber that comes back within idleCloseMs keeps the connection open', async () => {
  pair = await startPair({}, { router: { idleCloseMs: 1_000 } });
  const { client } = pair;
  const states: string[] = [];
  // state$ replays the current state first (idle -> idle): only real changes count.
  client.connection.state$.subscribe((c) => c.from !== c.to && states.push(`${c.from}->${c.to}`));
  const bbo$ = client.bbo(BOOK);
  const book$ = client.orderBook(BOOK);
  const a = bbo$.subscribe();
  await client.whenLive(bbo$, { signal: AbortSignal.timeout(WAIT_MS) });
  a.unsubscribe();
  // Another stream subscribes at once: the idle timer is disarmed, the socket stays.
  const b = book$.subscribe();
  await client.whenLive(book$, { signal: AbortSignal.timeout(WAIT_MS) });
  // Proof of absence without a race: leave, then wait for the idle close that must follow; no
  // other transition may have happened in between.
  const idle = firstValueFrom(client.connection.state$.pipe(filter((c) => c.to === 'idle'), timeout(WAIT_MS)));
  b.unsubscribe();
  await idle;
  expect(states).toEqual(['idle->connecting', 'connecting->open', 'open->idle']);
});

test('refuses an idleCloseMs that is not a number of milliseconds, naming it', () => {
  expect(() => new ExchangeClient({ restUrl: 'http://127.0.0.1:1', router: { idleCloseMs: -1 } })).toThrow(/'idleCloseMs': expected a number of milliseconds >= 0/);
});

test('a process that forgot close() exits by itself once its subscribers are gone', async () => {
  const sim = await Simulator.start({ seed: 5 });
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'forgotCloseChild.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, EXCHANGE_REST_URL: sim.restUrl } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exit = await new Promise<{ code: number | null; timedOut: boolean }>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve({ code: null, timedOut: true });
      }, 40_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, timedOut: false });
      });
    });
    expect({ ...exit, err: err.trim() }).toEqual({ code: 0, timedOut: false, err: '' });
    expect(out).toMatch(/^unsubscribed; close\(\) forgotten$/m);
    expect(out).toMatch(/^connection open -> idle: no subscriber for 300 ms$/m);
  } finally {
    await sim.stop();
  }
});
