/**
 * `--version` reads package.json at run time, upward from the running file: the same answer
 * from the TypeScript source (src/cli), the bundle (dist/cli) and the bin script, also
 * through a symlink (node_modules/.bin), and never another package's version.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageVersion } from '../../src/cli/packageVersion';
import { PACKAGE_VERSION } from './runProgram';

describe('packageVersion', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'er-version-'));
    const pkg = join(dir, 'node_modules', 'exchange-replica');
    for (const sub of ['src/cli', 'dist/cli', 'bin']) mkdirSync(join(pkg, sub), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'an-app', version: '9.9.9' }));
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'exchange-replica', version: '1.2.3-test' }));
    // A package.json of another name on the way up (e.g. {"type":"module"} markers) is skipped.
    writeFileSync(join(pkg, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
    for (const f of ['src/cli/main.ts', 'dist/cli/main.js', 'bin/exchange-replica.js']) writeFileSync(join(pkg, f), '');
    mkdirSync(join(dir, 'node_modules', '.bin'));
    symlinkSync(join(pkg, 'bin', 'exchange-replica.js'), join(dir, 'node_modules', '.bin', 'exchange-replica'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the exchange-replica package.json from the source, the bundle, the bin and its symlink', () => {
    const pkg = join(dir, 'node_modules', 'exchange-replica');
    expect(packageVersion(join(pkg, 'src/cli/main.ts'))).toBe('1.2.3-test');
    expect(packageVersion(join(pkg, 'dist/cli/main.js'))).toBe('1.2.3-test');
    expect(packageVersion(join(pkg, 'bin/exchange-replica.js'))).toBe('1.2.3-test');
    expect(packageVersion(join(dir, 'node_modules', '.bin', 'exchange-replica'))).toBe('1.2.3-test');
  });

  it('is undefined outside the package, and the repository answers its own version', () => {
    expect(packageVersion(join(dir, 'elsewhere.js'))).toBeUndefined();
    expect(packageVersion(join(__dirname, '..', '..', 'src', 'cli', 'main.ts'))).toBe(PACKAGE_VERSION);
  });
});
