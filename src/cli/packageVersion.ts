/**
 * The version of the installed package, read from its package.json at run time. The CLI
 * runs from `src/cli/` (tsx) or from the bundle in `dist/cli/` (bin/exchange-replica.js): in
 * both the package root is a few directories up, so the nearest package.json named
 * `exchange-replica` is searched upward from the running file. @internal
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE_NAME = 'exchange-replica';
/** src/cli, dist/cli, bin: the root is at most two levels up; a few more for safety. */
const MAX_LEVELS = 5;

/** The `version` of the nearest `exchange-replica` package.json above `fromFile`, or undefined. */
export function packageVersion(fromFile: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(fromFile));
  } catch {
    dir = dirname(fromFile);
  }
  for (let i = 0; i <= MAX_LEVELS; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // No (readable) package.json here: keep going up.
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}
