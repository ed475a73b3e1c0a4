/**
 * The package's types as a new user meets them: the tarball packed from the run's build,
 * installed in a fresh `npm init -y` project (CommonJS by default) with the NATS peers,
 * @types/node and the OpenTelemetry packages the README's metrics snippet imports, then real
 * `tsc` runs (TypeScript 5.9, `strict`, `skipLibCheck: false`):
 *
 * - one program that uses the four entries together (a simulator, a client, a recorder and
 *   its replay, a relay and a bus client, values assigned across entries), as `.mts` and `.cts`
 *   under `nodenext` and as `.ts` under `bundler`: each shared class has one declaration that
 *   every entry imports, and the nats entry's declarations import rxjs and eventemitter3;
 * - every ```ts block of README.md, as written, each as its own ES module (`readme/line<N>.mts`,
 *   N = the README line of the block's first line, so an error at (l, c) is README line
 *   N + l - 1) under `nodenext`. The names a snippet leaves to the reader are declared in
 *   `readme/placeholders.d.ts` (PLACEHOLDERS below). A block not meant to compile is preceded,
 *   on the line before its fence, by `<!-- not typechecked: <why> -->`: it is skipped, and it
 *   must say why;
 * - the simulator entry with `"types": []`: its declarations reference @types/node themselves
 *   (first line: a reference directive after an import is ignored);
 * - and the tour run as the README says (`npx tsx tour.mts`) in that CommonJS project.
 *
 * The build is the run's (EXCHANGE_REPLICA_PACKAGE_ROOT, from `npm test`), else built here
 * into a temporary folder as test/package/package.test.ts does. No step has a time limit of
 * its own but PROCESS_HANG_MS, which only catches a hang.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PROCESS_TEST_TIMEOUT_MS } from '../helpers/deadlines';
import { mustRun, packageRoot, root, run, type Outcome } from './packageBuild';

// Whole processes (build, pack, install, tsc, the tour): the hook and each test wait for them,
// longer than PROCESS_HANG_MS so that a hung process's own failure (with its output) is reported.
jest.setTimeout(PROCESS_TEST_TIMEOUT_MS);

const TSC = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const TSX = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const README = readFileSync(join(root, 'README.md'), 'utf8');
const PACKAGE = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

/** What a new user installs beside the package (at the versions the repository tests): the NATS peers, Node's types, the README's OpenTelemetry imports. */
const COMPANIONS = ['@nats-io/transport-node', '@nats-io/jetstream', '@nats-io/kv', '@types/node', '@opentelemetry/api', '@opentelemetry/sdk-metrics', '@opentelemetry/exporter-prometheus'].map((name) => {
  const version = PACKAGE.devDependencies[name];
  if (version === undefined) throw new Error(`${name} is not a devDependency of the repository`);
  return `${name}@${version}`;
});


// ---- the programs ------------------------------------------------------------------------

/**
 * The four entries in one program, values passed between them. Written without top-level
 * await so that the same text is an ES module (.mts), a CommonJS module (.cts) and a bundler
 * module (.ts). Runs nowhere: checked by tsc only.
 */
const ALL_ENTRIES = `import { ExchangeClient, ExchangeReplicaError, SystemClock, type ExchangeClientOptions, type OrderBook, type ReplicaSource, type ReplicaStatus } from 'exchange-replica';
import { Simulator, SimulatorOptionError } from 'exchange-replica/simulator';
import { FeedRecorder, Replayer, RecordingSource, RecordingFormatError } from 'exchange-replica/record';
import { BusClient, BusSource, ReplicaRelay } from 'exchange-replica/nats';

export async function allEntries(path: string, natsUrl: string): Promise<string> {
  // A simulator (with the main entry's clock), a recording client, a relay on it.
  const sim = await Simulator.start({ seed: 1, clock: new SystemClock() });
  const recorded = new ExchangeClient({ restUrl: sim.restUrl, record: new FeedRecorder({ path }) });
  const relay = await ReplicaRelay.start({ client: recorded, natsUrl, streams: [{ channel: 'book', scope: { market_id: 0, is_perps: true } }] });
  const relayClient: ExchangeClient = relay.client;

  // Bus clients: a BusClient is an ExchangeClient; a BusSource a ReplicaSource.
  const bus = new BusClient({ natsUrl });
  const busAsClient: ExchangeClient = bus;
  const busSource: ReplicaSource = new BusSource({ natsUrl });
  const overBus = new ExchangeClient({ restUrl: sim.restUrl, source: busSource });
  const { status, state } = await bus.whenLive(bus.orderBook({ market_type: 'perp', market_id: 0 }));
  const live: ReplicaStatus = status;
  const book: OrderBook = state;
  await Promise.all([overBus.close(), bus.close(), relay.close(), recorded.close()]);

  // The replay: its options are the main entry's, its clients the main entry's class.
  const replayer = new Replayer(path, { speed: Infinity });
  const options: ExchangeClientOptions = replayer.clientOptions();
  const replayed: ExchangeClient[] = [new ExchangeClient(options), new ExchangeClient(replayer.clientOptions()), busAsClient, relayClient];
  const recording = RecordingSource.open(path, { speed: Infinity });
  const fromFile: ReplicaSource = recording;
  const backtest = new ExchangeClient({ ...recording.clientOptions(), source: fromFile });
  await backtest.close();

  // Every entry's errors are the main entry's ExchangeReplicaError.
  const errors: ExchangeReplicaError[] = [new SimulatorOptionError('seed', 'x'), new RecordingFormatError('x')];
  await sim.stop();
  return \`\${live} \${book.bestBid() ?? ''} \${replayed.length} \${errors.map((e) => e.code).join()}\`;
}
`;

/** The simulator entry alone: compiled with `"types": []` (its declarations must bring @types/node themselves). */
const SIMULATOR_PROGRAM = `import { ExchangeClient } from 'exchange-replica';
import { Simulator, type SimulatorOptions } from 'exchange-replica/simulator';

export async function markets(options: SimulatorOptions): Promise<number> {
  const sim = await Simulator.start(options);
  const client = new ExchangeClient({ restUrl: sim.restUrl });
  try {
    return (await client.rest.markets({ market_type: 'all' })).data.length;
  } finally {
    await client.close();
    await sim.stop();
  }
}
`;

/** Names the README's snippets leave to the reader, declared for their type check. */
const PLACEHOLDERS = `// The exchange's REST base URL, a NATS server URL, two feed URLs (README's snippets).
declare const restUrl: string;
declare const natsUrl: string;
declare const urlA: string;
declare const urlB: string;
// The reader's own functions.
declare function render(emission: unknown): void;
declare function check(emission: unknown): void;
declare function runStrategy(client: import('exchange-replica', { with: { 'resolution-mode': 'import' } }).ExchangeClient): void;
`;

interface ReadmeBlock {
  /** README line of the block's first line of code. */
  readonly line: number;
  readonly code: string;
  /** Why it is not typechecked, when its fence is preceded by the marker. */
  readonly skipped?: string;
}

/** The ```ts (or ```typescript) blocks of the README. */
function readmeBlocks(text: string): ReadmeBlock[] {
  const lines = text.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (open[1] === 'ts' || open[1] === 'typescript') {
      const marker = /^<!--\s*not typechecked:\s*(.*?)\s*-->\s*$/.exec(lines[i - 1] ?? '');
      blocks.push({ line: i + 2, code: `${lines.slice(i + 1, end).join('\n')}\n`, ...(marker ? { skipped: marker[1] ?? '' } : {}) });
    }
    i = end;
  }
  return blocks;
}

function tsconfig(compilerOptions: Record<string, unknown>, files: readonly string[]): string {
  return JSON.stringify({ compilerOptions: { target: 'ES2022', strict: true, skipLibCheck: false, noEmit: true, ...compilerOptions }, files }, null, 2);
}

/** Every file under `dir` whose name ends with `suffix`. */
function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(suffix)).map((f) => join(dir, f));
}

// ---- pack, install, then every check at once -------------------------------------------

let work = '';
let app = '';
const blocks = readmeBlocks(README);
const checked = blocks.filter((b) => b.skipped === undefined);
const checks: Record<string, Promise<Outcome>> = {};
/** The tour's file and command, as the README says to run it (`npx tsx tour.mts`). */
const tourCommand = /`npx tsx ([\w.-]+)`/.exec(README)?.[1];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'exchange-replica-types-'));
  const stage = await packageRoot(work);
  const packed = JSON.parse(await mustRun('npm', ['pack', '--json', '--pack-destination', work], stage)) as Array<{ filename: string }>;
  const tarball = join(work, packed[0]!.filename);

  // A fresh project as `npm init -y` makes it (CommonJS), the package and its companions
  // installed from the npm cache (filled when the repository's own were installed).
  app = join(work, 'app');
  mkdirSync(app);
  await mustRun('npm', ['init', '-y'], app);
  await mustRun('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball, ...COMPANIONS], app);

  for (const [file, text] of [['entries.mts', ALL_ENTRIES], ['entries.cts', ALL_ENTRIES], ['entries.ts', ALL_ENTRIES], ['simulator.mts', SIMULATOR_PROGRAM]] as const) writeFileSync(join(app, file), text);
  mkdirSync(join(app, 'readme'));
  writeFileSync(join(app, 'readme', 'placeholders.d.ts'), PLACEHOLDERS);
  const readmeFiles = checked.map((b) => {
    const file = `readme/line${b.line}.mts`;
    writeFileSync(join(app, file), b.code);
    return file;
  });
  writeFileSync(join(app, 'tsconfig.nodenext.json'), tsconfig({ module: 'nodenext', moduleResolution: 'nodenext', types: ['node'] }, ['entries.mts', 'entries.cts', 'readme/placeholders.d.ts', ...readmeFiles]));
  writeFileSync(join(app, 'tsconfig.bundler.json'), tsconfig({ module: 'esnext', moduleResolution: 'bundler', types: ['node'] }, ['entries.ts']));
  writeFileSync(join(app, 'tsconfig.notypes.json'), tsconfig({ module: 'nodenext', moduleResolution: 'nodenext', types: [] }, ['simulator.mts']));

  checks.nodenext = run(process.execPath, [TSC, '-p', 'tsconfig.nodenext.json'], app);
  checks.bundler = run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json'], app);
  checks.notypes = run(process.execPath, [TSC, '-p', 'tsconfig.notypes.json'], app);
  const tourLine = README.slice(0, README.indexOf('`npx tsx ')).split('\n').length;
  const tour = blocks.find((b) => b.line > tourLine);
  if (tourCommand !== undefined && tour !== undefined) {
    writeFileSync(join(app, tourCommand), tour.code);
    checks.tour = run(process.execPath, [TSX, tourCommand], app);
  }
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('the four entries together, values passed between them: tsc under nodenext (.mts and .cts) and bundler, skipLibCheck off', async () => {
  expect(await checks.nodenext!).toMatchObject({ code: 0, stdout: '' });
  expect(await checks.bundler!).toMatchObject({ code: 0, stdout: '' });
});

it('every ```ts block of the README compiles as written (in the nodenext program above); a skipped one says why', async () => {
  expect(checked.length).toBeGreaterThanOrEqual(8);
  for (const b of blocks) if (b.skipped !== undefined) expect({ line: b.line, skipped: b.skipped }).toEqual({ line: b.line, skipped: expect.stringMatching(/\S/) });
  expect(await checks.nodenext!).toMatchObject({ code: 0, stdout: '' });
});

it('the simulator entry compiles with "types": [] (its declarations reference @types/node on their first line)', async () => {
  expect(await checks.notypes!).toMatchObject({ code: 0, stdout: '' });
  const dist = join(app, 'node_modules', 'exchange-replica', 'dist');
  for (const entry of ['simulator', 'record', 'nats']) {
    for (const ext of ['.d.ts', '.d.cts']) expect(readFileSync(join(dist, entry, `index${ext}`), 'utf8').split('\n')[0]).toBe('/// <reference types="node" />');
  }
  // The main entry needs no @types/node: none of the declarations it reaches references it.
  expect(readFileSync(join(dist, 'index.d.ts'), 'utf8')).not.toContain('reference types="node"');
});

it('each class the entries share is declared once per format, in the module every entry imports', () => {
  const dist = join(app, 'node_modules', 'exchange-replica', 'dist');
  for (const ext of ['.d.ts', '.d.cts']) {
    const files = filesUnder(dist, ext);
    for (const name of ['ExchangeClient', 'ExchangeReplicaError', 'RestClient', 'OrderBook', 'Connection', 'SystemClock']) {
      const declaring = files.filter((f) => new RegExp(`^export declare (?:abstract )?class ${name}\\b`, 'm').test(readFileSync(f, 'utf8')));
      expect({ name, ext, declaring: declaring.map((f) => relative(dist, f)) }).toEqual({ name, ext, declaring: [expect.any(String)] });
    }
  }
});

it('the tour runs as the README says (npx tsx tour.mts) in a fresh npm init -y project, which is CommonJS', async () => {
  expect(tourCommand).toMatch(/\.mts$/);
  expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'))).not.toHaveProperty('type', 'module');
  const r = await checks.tour!;
  expect(r).toMatchObject({ code: 0, stderr: '' });
  const lines = r.stdout.trim().split('\n');
  expect(lines[0]).toBe('book is live (snapshot 1)');
  expect(lines).toContain('book is live (snapshot 2)');
  expect(lines[lines.length - 1]).toMatch(/^healed: [1-9]\d* resync after the disconnect$/);
});
