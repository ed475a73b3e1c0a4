/**
 * The package is importable from ESM and CommonJS (package.json `exports`): build it with
 * tsup (no type declarations, to stay fast) and load both formats in a fresh Node process.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(120_000);

const root = join(__dirname, '..', '..');
const out = join(root, '.build-check');
const ADDRESS = '11111111111111111111111111111111'; // 32 zero bytes in base58

afterAll(() => rmSync(out, { recursive: true, force: true }));

it('builds ESM and CJS entry points that both work', () => {
  execFileSync(process.execPath, [join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js'), '--out-dir', out, '--no-dts', '--silent'], { cwd: root, stdio: 'pipe', timeout: 100_000 });
  const cjs = `const lib = require(${JSON.stringify(join(out, 'index.cjs'))}); const sim = require(${JSON.stringify(join(out, 'simulator', 'index.cjs'))});
console.log(JSON.stringify([lib.protocol.isBase58OfLength('${ADDRESS}', 32), typeof lib.ExchangeClient, typeof lib.RestClient, typeof sim.Simulator]));`;
  expect(JSON.parse(execFileSync(process.execPath, ['-e', cjs], { cwd: root, timeout: 30_000 }).toString())).toEqual([true, 'function', 'function', 'function']);
  const esm = `const lib = await import(${JSON.stringify('file://' + join(out, 'index.js'))}); const sim = await import(${JSON.stringify('file://' + join(out, 'simulator', 'index.js'))});
console.log(JSON.stringify([lib.protocol.isBase58OfLength('${ADDRESS}', 32), typeof lib.ExchangeClient, typeof lib.RestClient, typeof sim.Simulator]));`;
  expect(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', esm], { cwd: root, timeout: 30_000 }).toString())).toEqual([true, 'function', 'function', 'function']);
});
