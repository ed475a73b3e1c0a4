/**
 * The package as its users meet it: the package root as published (package.json, README.md,
 * LICENSE, bin/, dist/ built by `npm run build`), packed into a tarball, installed in a fresh
 * project outside the repository (from the npm cache) and used there: an ESM and a CJS program
 * against the embedded simulator, the CLI, `tsc` with `skipLibCheck: false` under `nodenext`
 * (ESM and CJS files) and `bundler` (without @types/node), publint and @arethetypeswrong/cli
 * on the tarball.
 *
 * The build is the one of the run: `npm test` (scripts/test.mjs) builds the package root once,
 * beside jest, names it in EXCHANGE_REPLICA_PACKAGE_ROOT and writes the build's outcome to the
 * file named in EXCHANGE_REPLICA_PACKAGE_BUILD_STATUS, which this file waits for. Run alone
 * (`npx jest test/package`), this file builds it into a temporary folder (never the
 * repository's dist/). No step has a time limit of its own but PROCESS_HANG_MS, which only
 * catches a hang.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_CODES } from '../../src/errors/ErrorCode';
import { PROCESS_HANG_MS, PROCESS_TEST_TIMEOUT_MS } from '../helpers/deadlines';
import { mustRun, packageRoot, root, run, type Outcome } from './packageBuild';

// Whole processes (pack, install, tsc, attw): the hook and each test wait for them.
jest.setTimeout(PROCESS_TEST_TIMEOUT_MS);

const tool = (name: string): string => join(root, 'node_modules', '.bin', name);
const ADDRESS = '11111111111111111111111111111111'; // 32 zero bytes in base58


// ---- the programs of the temporary project ---------------------------------------------

/** Constructs a client against the embedded simulator, gets one REST answer, closes both, and must then exit by itself. */
const RUNTIME_BODY = `
const sim = await Simulator.start({ seed: 1 });
const client = new ExchangeClient({ restUrl: sim.restUrl });
const markets = await client.rest.markets({ market_type: 'perp', market_id: 0 });
await client.close();
await sim.stop();
console.log(JSON.stringify({
  markets: markets.data.length,
  base58: protocol.isBase58OfLength('${ADDRESS}', 32),
  errorClass: new InvalidParameterError('x', { param: 'p' }) instanceof ExchangeReplicaError,
  // The two entry points share one ExchangeReplicaError.
  simulatorErrorClass: new SimulatorOptionError('seed', 'x') instanceof ExchangeReplicaError,
  // So does exchange-replica/record.
  recordErrorClass: new RecordingFormatError('x') instanceof ExchangeReplicaError,
  recorder: typeof FeedRecorder === 'function' && typeof Replayer === 'function',
  codes: ERROR_CODES.length,
}));
`;

const ESM_PROGRAM = `import { ExchangeClient, ExchangeReplicaError, InvalidParameterError, ERROR_CODES, protocol } from 'exchange-replica';
import { Simulator, SimulatorOptionError } from 'exchange-replica/simulator';
import { FeedRecorder, Replayer, RecordingFormatError } from 'exchange-replica/record';
${RUNTIME_BODY}`;

const CJS_PROGRAM = `'use strict';
const { ExchangeClient, ExchangeReplicaError, InvalidParameterError, ERROR_CODES, protocol } = require('exchange-replica');
const { Simulator, SimulatorOptionError } = require('exchange-replica/simulator');
const { FeedRecorder, Replayer, RecordingFormatError } = require('exchange-replica/record');
(async () => {${RUNTIME_BODY}})().catch((e) => { console.error(e); process.exitCode = 1; });
`;

/** Every error class of the README's table (and the newer ones), imported by name. */
const ERROR_CLASSES = [
  'ExchangeReplicaError', 'InvalidParameterError', 'RestApiError', 'RestTransportError', 'RestTimeoutError', 'AbortedError', 'ResponseValidationError',
  'TransactionNotIndexedError', 'FeedError', 'FrameError', 'RequestTimeoutError', 'ClientClosedError', 'ConnectionFailedError', 'SubscriberError',
  'ResponseTooLargeError', 'FrameTooLargeError', 'CursorRepeatedError', 'ConsumerOverflowError', 'ReplicaIntegrityError', 'SnapshotError',
  'SnapshotBehindError', 'SnapshotAheadError', 'BookPrecisionError', 'IllegalStateTransitionError', 'InvalidTransitionError',
];

/** Library types in use: the protocol namespace (types and values), ErrorCode exhaustively, the book's read types. Runs nowhere: checked by tsc only. */
const TYPES_PROGRAM = `import {
  ExchangeClient,
  OrderBook,
  ticksToPrice,
  protocol,
  type ErrorCode,
  type BookTopView,
  type BookLevels,
  type BookSideReader,
  type LevelCallback,
  type BigLevelCallback,
  type MarketScales,
  ${ERROR_CLASSES.join(',\n  ')},
} from 'exchange-replica';

export const operation: protocol.OperationName = 'markets';
export const channel: protocol.ChannelName = 'book';
export const scope: protocol.Scope = { market_id: 0, is_perps: true };
// A name that is both a value (the zod schema) and a type.
export const parseMarket = (x: unknown): protocol.Market => protocol.Market.parse(x);

export function explain(code: ErrorCode): string {
  switch (code) {
${ERROR_CODES.map((c) => `    case '${c}':`).join('\n')}
      return code;
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

export function onError(e: unknown): string {
  if (e instanceof RestApiError) return \`HTTP \${e.status} \${e.operation}: \${explain(e.code)} (\${e.serverCode})\`;
  if (e instanceof BookPrecisionError || e instanceof SnapshotBehindError) return explain(e.code);
  if (e instanceof ExchangeReplicaError) return \`\${explain(e.code)} \${e.context.stream ?? ''}\`;
  return 'not an exchange-replica error';
}

export const errorClasses: ReadonlyArray<abstract new (...args: never[]) => ExchangeReplicaError> = [${ERROR_CLASSES.join(', ')}];

export const printLevel: LevelCallback = (price, size, i) => console.log(i, price, size);
export const printBig: BigLevelCallback = (price, size, i) => console.log(i, price.toString(), size.toString());

export function describeBook(book: OrderBook, view: BookTopView, levels: BookLevels, bids: BookSideReader, scales: MarketScales): string {
  book.forEachLevel('bid', 3, printLevel);
  return \`\${view.side} \${view.length} \${view.prices[0] ?? ''} \${levels.bids.length} \${bids.length} \${ticksToPrice(scales, 1n)}\`;
}

export async function marketIds(client: ExchangeClient): Promise<number[]> {
  const answer = await client.rest.markets({ market_type: 'perp' });
  return answer.data.map((m: protocol.Market) => m.market_id);
}
`;

/** The simulator entry, typed (it is a Node HTTP server: needs @types/node). */
const SIMULATOR_TYPES_PROGRAM = `import { ExchangeClient } from 'exchange-replica';
import { Simulator, SimulatorOptionError, SimulatorRequestError, type SimulatorOptions } from 'exchange-replica/simulator';

export async function main(options: SimulatorOptions): Promise<string> {
  const sim = await Simulator.start(options);
  const client = new ExchangeClient({ restUrl: sim.restUrl });
  try {
    const markets = await client.rest.markets({ market_type: 'spot' });
    return String(markets.data.length);
  } catch (e) {
    if (e instanceof SimulatorOptionError || e instanceof SimulatorRequestError) return e.code;
    throw e;
  } finally {
    await client.close();
    await sim.stop();
  }
}
`;

/** The main entry as a browser page uses it (DOM lib, no @types/node): the platform's WebSocket and fetch fit the options. */
const BROWSER_TYPES_PROGRAM = `import { ExchangeClient, type WebSocketConstructor, type FetchLike } from 'exchange-replica';

export const socketClass: WebSocketConstructor = WebSocket;
export const platformFetch: FetchLike = (input, init) => fetch(input, init);
export const client = (restUrl: string): ExchangeClient => new ExchangeClient({ restUrl, connection: { WebSocket }, rest: { fetch: platformFetch } });
`;

function tsconfig(compilerOptions: Record<string, unknown>, files: string[]): string {
  return JSON.stringify({ compilerOptions: { target: 'ES2022', strict: true, skipLibCheck: false, noEmit: true, ...compilerOptions }, files }, null, 2);
}

// ---- build, pack, install, then every check at once ------------------------------------

let work = '';
let tarball = '';
const checks: Record<string, Promise<Outcome>> = {};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'exchange-replica-package-'));
  const stage = await packageRoot(work);
  const packed = JSON.parse(await mustRun('npm', ['pack', '--json', '--pack-destination', work], stage)) as Array<{ filename: string }>;
  tarball = join(work, packed[0]!.filename);

  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '0.0.0', private: true }));
  // Dependencies come from the npm cache (filled when the repository's own were installed).
  await mustRun('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', tarball], app);

  writeFileSync(join(app, 'esm.mjs'), ESM_PROGRAM);
  writeFileSync(join(app, 'cjs.cjs'), CJS_PROGRAM);
  writeFileSync(join(app, 'types.mts'), TYPES_PROGRAM);
  writeFileSync(join(app, 'types.cts'), TYPES_PROGRAM);
  writeFileSync(join(app, 'types.ts'), TYPES_PROGRAM);
  writeFileSync(join(app, 'simulator.mts'), SIMULATOR_TYPES_PROGRAM);
  writeFileSync(join(app, 'browser.ts'), BROWSER_TYPES_PROGRAM);
  writeFileSync(
    join(app, 'tsconfig.nodenext.json'),
    tsconfig({ module: 'nodenext', moduleResolution: 'nodenext', types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] }, ['types.mts', 'types.cts', 'simulator.mts']),
  );
  // No @types/node: the main entry's types must not need it (a browser-style lib instead).
  writeFileSync(join(app, 'tsconfig.bundler.json'), tsconfig({ module: 'esnext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], types: [] }, ['types.ts', 'browser.ts']));

  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  checks.esm = run(process.execPath, ['esm.mjs'], app);
  checks.cjs = run(process.execPath, ['cjs.cjs'], app);
  checks.cli = run(process.execPath, [join(app, 'node_modules', '.bin', 'exchange-replica'), '--help'], app);
  checks.nodenext = run(process.execPath, [tsc, '-p', 'tsconfig.nodenext.json'], app);
  checks.bundler = run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], app);
  checks.publint = run(tool('publint'), ['run', tarball, '--strict'], work);
  checks.attw = run(tool('attw'), [tarball, '--format', 'ascii'], work);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const RUNTIME_RESULT = { markets: 1, base58: true, errorClass: true, simulatorErrorClass: true, recordErrorClass: true, recorder: true, codes: ERROR_CODES.length };

it('an ESM program runs against the embedded simulator and exits by itself', async () => {
  const r = await checks.esm!;
  expect(r).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(r.stdout)).toEqual(RUNTIME_RESULT);
});

it('a CommonJS program does the same', async () => {
  const r = await checks.cjs!;
  expect(r).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(r.stdout)).toEqual(RUNTIME_RESULT);
});

it('the installed CLI runs from dist/', async () => {
  const r = await checks.cli!;
  expect(r).toMatchObject({ code: 0 });
  expect(r.stdout).toContain('exchange-replica');
});

it('tsc accepts the declarations under nodenext (ESM and CJS), skipLibCheck off', async () => {
  expect(await checks.nodenext!).toMatchObject({ code: 0, stdout: '' });
});

it('tsc accepts the declarations under bundler without @types/node, skipLibCheck off', async () => {
  expect(await checks.bundler!).toMatchObject({ code: 0, stdout: '' });
});

it('publint finds nothing', async () => {
  const r = await checks.publint!;
  expect(r).toMatchObject({ code: 0 });
  expect(r.stdout).toContain('All good!');
});

it('@arethetypeswrong/cli finds no problem in any resolution mode', async () => {
  const r = await checks.attw!;
  expect(r).toMatchObject({ code: 0 });
  expect(r.stdout).toContain('No problems found');
});

it('the tarball holds the built entry points and their shared chunks, the CLI, README and LICENSE, and no CommonJS CLI', async () => {
  const listing = await mustRun('tar', ['-tzf', tarball], work);
  const files = listing.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, '')).sort();
  for (const f of ['LICENSE', 'README.md', 'package.json', 'bin/exchange-replica.js', 'dist/cli/main.js', 'dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts', 'dist/simulator/index.js', 'dist/simulator/index.cjs', 'dist/simulator/index.d.ts', 'dist/simulator/index.d.cts', 'dist/nats/index.js', 'dist/nats/index.cjs', 'dist/nats/index.d.ts', 'dist/nats/index.d.cts', 'dist/record/index.js', 'dist/record/index.cjs', 'dist/record/index.d.ts', 'dist/record/index.d.cts']) {
    expect(files).toContain(f);
  }
  expect(files.filter((f) => f.startsWith('dist/cli/'))).toEqual(['dist/cli/main.js']);
  // Shared chunks of the entry points (`.`, `./simulator`, `./nats`, `./record`): the same ones in each format.
  const chunks = files.filter((f) => /^dist\/chunk-\w+\.c?js$/.test(f));
  expect(chunks.length).toBeGreaterThanOrEqual(2);
  expect(chunks.filter((f) => f.endsWith('.cjs'))).toHaveLength(chunks.length / 2);
  expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
});
