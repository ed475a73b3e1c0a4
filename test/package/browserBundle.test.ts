/**
 * The size budget of the client in a browser: an app that constructs an `ExchangeClient` and
 * subscribes to one order book replica, bundled by esbuild for the browser (bundle, minify,
 * ESM, tree shaking as any app bundler does), must stay within BUDGET_BYTES gzipped. The
 * bundle is really built and measured; its breakdown (by package and by source folder, and the
 * largest inputs) is printed, and named in the failure when over budget.
 *
 * The entry imports the package's main entry (src/index.ts), as an app does: it has no
 * Node-only import (record/replay is `exchange-replica/record`).
 */
import { build, stop, type Metafile } from 'esbuild';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** 80 KiB gzipped (zlib's default level, as servers compress). */
const BUDGET_BYTES = 80 * 1024;

const root = join(__dirname, '..', '..');

/** What an app does with the client: one order book replica. */
const ENTRY = `
import { ExchangeClient } from './src/index';
const client = new ExchangeClient({ restUrl: 'https://exchange.example' });
client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe(({ status, state }) => console.log(status, state));
`;

/** Modules that once made most of the bundle and have no place in it (see README, "In a browser"). */
const FORBIDDEN_INPUTS: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /node_modules\/zod\/v4\/classic\//, why: 'classic zod (the schemas are zod/mini)' },
  { pattern: /node_modules\/zod\/v4\/locales\/(?!en\.js$)/, why: "a zod locale other than English (import the one needed, not zod's namespace)" },
  { pattern: /node_modules\/(hdr-histogram-js|pako)\//, why: 'hdr-histogram-js and its pako (LatencyTracker has its own histogram)' },
];

interface Measure {
  readonly minifiedBytes: number;
  readonly gzipBytes: number;
  readonly inputs: ReadonlyArray<readonly [path: string, bytes: number]>;
}

async function measure(): Promise<Measure> {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: root, loader: 'ts', sourcefile: 'browser-entry.ts' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const output: Metafile['outputs'][string] = Object.values(result.metafile.outputs)[0]!;
  const inputs = Object.entries(output.inputs)
    .map(([path, v]) => [path, v.bytesInOutput] as const)
    .filter(([, bytes]) => bytes > 0)
    .sort((a, b) => b[1] - a[1]);
  return { minifiedBytes: code.length, gzipBytes: gzipSync(code).length, inputs };
}

/** A package name, or the source folder (`src/replicas/book`, `src/protocol`, ...). */
function groupOf(path: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1]!;
  const src = /(?:^|\/)src\/(.*)\/[^/]+$/.exec(path);
  if (!src) return path;
  const dirs = src[1]!.split('/');
  return `src/${dirs.slice(0, dirs[0] === 'replicas' && dirs[1] !== undefined ? 2 : 1).join('/')}`;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function report(m: Measure): string {
  const groups = new Map<string, number>();
  for (const [path, bytes] of m.inputs) groups.set(groupOf(path), (groups.get(groupOf(path)) ?? 0) + bytes);
  const byGroup = [...groups].sort((a, b) => b[1] - a[1]).map(([g, bytes]) => `  ${kb(bytes).padStart(9)}  ${g}`);
  const top = m.inputs.slice(0, 12).map(([path, bytes]) => `  ${kb(bytes).padStart(9)}  ${path.replace(/^.*?node_modules\//, '').replace(/^.*?\/?src\//, 'src/')}`);
  return [
    `ExchangeClient + one order book, for the browser: ${kb(m.gzipBytes)} gzipped (budget ${kb(BUDGET_BYTES)}), ${kb(m.minifiedBytes)} minified`,
    'minified bytes by package / source folder:',
    ...byGroup,
    'largest inputs:',
    ...top,
  ].join('\n');
}

afterAll(() => stop());

test(`the browser bundle of ExchangeClient with one book replica is at most ${BUDGET_BYTES / 1024} KB gzipped`, async () => {
  const m = await measure();
  const text = report(m);
  console.log(text);
  // The entry really bundled the client (a tree-shaken-away entry would pass any budget).
  const paths = m.inputs.map(([p]) => p);
  for (const file of ['src/client/ExchangeClient.ts', 'src/replicas/book/OrderBook.ts', 'src/protocol/fastDecode.ts', 'src/connection/Connection.ts']) {
    expect(paths.some((p) => p.endsWith(file))).toBe(true);
  }
  const forbidden = FORBIDDEN_INPUTS.flatMap(({ pattern, why }) => paths.filter((p) => pattern.test(p)).map((p) => `${p}: ${why}`));
  expect(forbidden).toEqual([]);
  if (m.gzipBytes > BUDGET_BYTES) throw new Error(`over budget by ${kb(m.gzipBytes - BUDGET_BYTES)}\n${text}`);
});
